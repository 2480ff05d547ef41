package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// A mistyped switch target names the checked-out branch it is closest to, as git's "did
// you mean" does, and still offers the create; a name near nothing only offers the create.
// Either way nothing changes.
func TestSwitchSuggestsTheClosestBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/login", filepath.Join(r.Base, "app.worktrees", "login"))
	before := r.Snapshot()
	res := run(t, r, r.Root, "switch", "feat/logn")
	want(t, res, 1, "no worktree has branch feat/logn", "did you mean feat/login?", "`copse create feat/logn`")
	res = run(t, r, r.Root, "switch", "release/2.0")
	want(t, res, 1, "no worktree has branch release/2.0", "`copse create release/2.0`")
	if strings.Contains(res.stderr, "did you mean") {
		t.Fatalf("a name near no branch got a suggestion:\n%s", res)
	}
	r.Unchanged(before)
}
