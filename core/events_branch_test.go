package core_test

import (
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// A remove that deletes the branch, and a land whose clean-up does, say so in their
// events (branch_deleted); a remove that keeps the branch, and a land with --keep, do not.
func TestRemoveAndLandEventsSayTheBranchWasDeleted(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	kept := r.AddWorktree("feat/kept", r.Base+"/kept")
	gone := r.AddWorktree("feat/gone", r.Base+"/gone")
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(kept)}); err != nil {
		t.Fatal(err)
	}
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(gone), DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	feature(t, r, "feat/landed", "l.txt", "l\n")
	if _, err := land(t, s, core.LandRequest{Branch: core.Str("feat/landed")}); err != nil {
		t.Fatal(err)
	}
	feature(t, r, "feat/keep", "k.txt", "k\n")
	if _, err := land(t, s, core.LandRequest{Branch: core.Str("feat/keep"), Keep: true}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"worktree.removed feat/kept":   false,
		"worktree.removed feat/gone":   true,
		"worktree.removed feat/landed": true,
		"land.landed feat/landed":      true,
		"land.landed feat/keep":        false,
	}
	seen := map[string]bool{}
	for _, e := range events(t, r) {
		if e.Worktree == nil {
			continue
		}
		k := e.Event + " " + e.Worktree.Branch
		if w, ok := want[k]; ok {
			seen[k] = true
			if e.BranchDeleted != w {
				t.Errorf("%s: branch_deleted %v, want %v", k, e.BranchDeleted, w)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no %s event", k)
		}
	}
}
