package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// withOrigin gives the repository a bare origin that has main, with main tracking it.
func withOrigin(t *testing.T, r *coretest.Repo) string {
	t.Helper()
	origin := filepath.Join(r.Base, "origin.git")
	r.Git(r.Base, "clone", "-q", "--bare", r.Root, origin)
	r.Git(r.Root, "remote", "add", "origin", origin)
	r.Git(r.Root, "fetch", "-q", "origin")
	r.Git(r.Root, "branch", "-q", "--set-upstream-to=origin/main", "main")
	return origin
}

// After a land, copse says which upstreams now differ and what would publish them, and
// pushes nothing: the rebased branch's upstream (diverged: force-with-lease; deleted with
// the branch: delete it there) and the target ahead of its upstream (git push origin main).
func TestLandUpstreamNotices(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	origin := withOrigin(t, r)
	kept := landTree(t, r, "feat/kept")
	r.Git(kept, "push", "-q", "-u", "origin", "feat/kept")
	gone := landTree(t, r, "feat/gone")
	r.Git(gone, "push", "-q", "-u", "origin", "feat/gone")
	// main moves on locally, so each land rebases (rewrites) its branch.
	coretest.WriteFile(t, filepath.Join(r.Root, "local.txt"), "unpushed\n")
	r.Git(r.Root, "add", "local.txt")
	r.Git(r.Root, "commit", "-qm", "local work on main")
	pushed := r.Git(origin, "for-each-ref")

	res := run(t, r, r.Root, "land", "feat/kept", "--keep")
	want(t, res, 0)
	keptWas := r.Git(origin, "rev-parse", "feat/kept")
	for _, note := range []string{
		"copse: note: branch feat/kept's upstream origin/feat/kept has diverged from the landed commit (the rebase rewrote the branch: 1 commit only there); to update it: git -C " + kept +
			" push --force-with-lease=feat/kept:" + keptWas + " origin feat/kept:feat/kept\n",
		"copse: note: main is 2 commits ahead of origin/main; to publish it: git push origin main\n",
	} {
		if !strings.Contains(res.stderr, note) {
			t.Fatalf("missing notice %q:\n%s", note, res.stderr)
		}
	}
	st := run(t, r, r.Root, "land", "status", "land-1")
	if !strings.Contains(st.stdout, "note:        main is 2 commits ahead of origin/main") {
		t.Fatalf("land status does not keep the notices:\n%s", st.stdout)
	}

	res = run(t, r, r.Root, "land", "feat/gone")
	want(t, res, 0, "deleted branch feat/gone")
	if !strings.Contains(res.stderr, "copse: note: branch feat/gone's upstream origin/feat/gone has diverged") ||
		!strings.Contains(res.stderr, "copse deleted the branch, not its upstream: git push origin --delete feat/gone if you no longer need it") ||
		!strings.Contains(res.stderr, "main is 3 commits ahead of origin/main") {
		t.Fatalf("notices after a land that deleted the branch:\n%s", res.stderr)
	}
	if got := r.Git(origin, "for-each-ref"); got != pushed {
		t.Fatalf("a land pushed to origin:\n%s\nwas\n%s", got, pushed)
	}

	// A branch without an upstream gets no branch notice; main, pushed before, is one ahead.
	r.Git(r.Root, "push", "-q", "origin", "main")
	landTree(t, r, "feat/plain")
	res = run(t, r, r.Root, "land", "feat/plain")
	want(t, res, 0)
	if strings.Count(res.stderr, "note:") != 1 || !strings.Contains(res.stderr, "copse: note: main is 1 commit ahead of origin/main; to publish it: git push origin main") {
		t.Fatalf("notices after landing a branch without an upstream:\n%s", res.stderr)
	}
}

// A land whose progress said "advance main to X" and that then stops short of it says one
// thing about main, whichever check stopped it: it is unchanged by this land.
func TestLandStoppedAtAdvanceSaysTargetUnchanged(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/o")
	coretest.WriteFile(t, filepath.Join(r.Root, "feat-o.txt"), "in the way\n") // the path the land adds
	main := r.Git(r.Root, "rev-parse", "main")
	res := run(t, r, r.Root, "land", "feat/o", "--keep")
	want(t, res, 1, "target_dirty_overlap")
	if !strings.Contains(res.stderr, ": advance main to ") || !strings.Contains(res.stderr, "feat-o.txt; main is unchanged by this land\n") ||
		strings.Contains(res.stderr, "was not moved") {
		t.Fatalf("advance then stop:\n%s", res.stderr)
	}
	if got := r.Git(r.Root, "rev-parse", "main"); got != main {
		t.Fatalf("main moved: %s -> %s", main, got)
	}
}
