package core_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The <repo>.worktrees folder copse's default paths make goes with its last worktree; it
// stays while anything is in it (another worktree, a file of the user's), and a worktree
// elsewhere never touches it.
func TestEmptyWorktreesDirGoesWithItsLastWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	dir := filepath.Join(filepath.Dir(r.Root), filepath.Base(r.Root)+".worktrees")
	a, err := do(t, s, core.CreateRequest{Branch: "feat/a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := do(t, s, core.CreateRequest{Branch: "feat/b"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(a.Path) != dir {
		t.Fatalf("the test assumes the default path is in %s, got %s", dir, a.Path)
	}
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(a.Path)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("%s went while feat/b is still in it: %v", dir, err)
	}
	elsewhere := r.AddWorktree("feat/else", filepath.Join(r.Base, "else"))
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(b.Path)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the empty %s stayed after its last worktree went (%v)", dir, err)
	}

	// A file of the user's in it keeps it; a worktree elsewhere does not touch it.
	c, err := do(t, s, core.CreateRequest{Branch: "feat/c"})
	if err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(dir, "notes.txt"), "mine\n")
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(c.Path)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatalf("a folder with the user's file in it was touched: %v", err)
	}
	os.Remove(filepath.Join(dir, "notes.txt"))
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(elsewhere)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("removing a worktree outside %s removed it: %v", dir, err)
	}
}
