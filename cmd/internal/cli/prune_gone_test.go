package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// A worktree whose checkout was moved by hand, holding a commit only its detached HEAD
// has: prune records it before forgetting it, and says how to bring it back.
func TestPruneSaysHowToRestoreAGoneWorktreeItRecorded(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("gone", "app.worktrees/gone")
	r.Git(wt, "checkout", "-q", "--detach")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "only here")
	if err := os.Rename(wt, wt+"-moved"); err != nil {
		t.Fatal(err)
	}
	res := run(t, r, r.Root, "prune", "--yes")
	want(t, res, 0, "forgot ", "recorded first: it holds 1 commit only it held (detached HEAD)", "; copse restore ")
	if got := r.Git(r.Root, "for-each-ref", "refs/copse/removed/"); !strings.Contains(got, "refs/copse/removed/") {
		t.Errorf("no record was made: %q", got)
	}
}
