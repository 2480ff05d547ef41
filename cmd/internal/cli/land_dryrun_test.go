package cli_test

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse land --dry-run prints the steps and what the clean-up would do on stdout, exits 0
// and changes nothing; a dry run that the land would refuse exits 1 with the same code;
// through copse tool, a dry run with a test command needs no approval (nothing runs).
func TestLandDryRunCLIAndTool(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := landTree(t, r, "feat/dry")
	// main moves on, so the land has a rebase to run.
	r.Git(r.Root, "commit", "-q", "--allow-empty", "-m", "main moves on")
	before := r.Snapshot()
	res := run(t, r, r.Root, "land", "feat/dry", "--dry-run")
	want(t, res, 0)
	for _, s := range []string{"nothing was queued or changed", "rebase --no-autostash", "update-ref refs/heads/main", "worktree remove", "the clean-up would record " + w} {
		if !strings.Contains(res.stdout, s) {
			t.Errorf("--dry-run output lacks %q:\n%s", s, res.stdout)
		}
	}
	r.Unchanged(before)

	res = runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"land","branch":"feat/dry","test":"touch gate-ran","dry_run":true}`), "tool")
	want(t, res, 0, `"dry_run":true`, `sh -c 'touch gate-ran'`)
	r.Unchanged(before)

	coretest.WriteFile(t, w+"/feat-dry.txt", "changed\n")
	res = run(t, r, r.Root, "land", "feat/dry", "--dry-run")
	want(t, res, 1, "has uncommitted changes", "commit (or remove) them first")
}
