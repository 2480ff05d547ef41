package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/gitx/gitxtest"
)

// "No record, no remove" holds for prune: when the record of an idle worktree cannot be
// made (git fails to write its commit, an answer real git gives only on a full disk),
// prune keeps the worktree, says why, and never runs git worktree remove.
func TestPruneNeverRemovesWhatItCouldNotRecord(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	old := time.Now().Add(-100 * time.Hour)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		if err := os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", "feat", f), old, old); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	before := r.Snapshot()
	f := readOnlyGit(gitxtest.New(t)).Allow(listArgs()...).Allow("-c").Allow("write-tree")
	f.ExpectPrefix("commit-tree").Returns("", gitxtest.ExitError(nil, 128, "fatal: unable to write object: No space left on device"))
	// Any git worktree remove would be an unexpected command and fail the test.
	out, err := withFake(t, r, core.PruneRequest{}, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Removed) != 0 || len(out.Prune.Kept) != 2 {
		t.Fatalf("report %+v", out.Prune)
	}
	k := out.Prune.Kept[1]
	if k.Path != wt || k.Reason != core.KeepRemoveRefused || !strings.Contains(k.Detail, "could not record it") || !strings.Contains(k.Detail, "No space left") {
		t.Fatalf("kept %+v; want remove_refused saying the record failed and why", k)
	}
	r.Unchanged(before)
}
