package cli_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// On the command line a huge --older-than (or copse.pruneAfter) exits 2 with
// duration_too_long, naming the value and the largest allowed, and the worktree used two
// hours ago stays.
func TestPruneHugeOlderThanExits2(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("used", "app.worktrees/used")
	past := time.Now().Add(-2 * time.Hour)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", "used", f), past, past)
	}
	before := r.Snapshot()
	want(t, run(t, r, r.Root, "prune", "--yes", "--older-than", "616385997d"), 2,
		`older_than "616385997d" is longer than the largest allowed, 36500d`)
	want(t, run(t, r, r.Root, "prune", "--yes", "--json", "--older-than", "616385997d"), 2, `"code":"duration_too_long"`)
	r.Unchanged(before)
	r.Git(r.Root, "config", "copse.pruneAfter", "616385997d")
	before = r.Snapshot()
	want(t, run(t, r, r.Root, "prune", "--yes"), 2,
		`git config copse.pruneAfter "616385997d" is longer than the largest allowed, 36500d`, "git config copse.pruneAfter 72h")
	r.Unchanged(before)
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("the worktree used two hours ago is gone: %v", err)
	}
}
