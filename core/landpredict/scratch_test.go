package landpredict

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScratchChecksOutTheStackedCommitAndGoesAway(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.repo
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{3: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{27: "from b"}), "b.txt": "b\n"})},
	}
	p := f.predictor(nil)
	ctx := context.Background()
	st, err := p.Stack(ctx, t0, jobs)
	if err != nil {
		t.Fatal(err)
	}
	refs := r.Git(r.Root, "for-each-ref")
	parent := filepath.Join(r.Base, "scratch")
	s, err := p.Checkout(ctx, parent, st[1].Commit)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git(s.Path, "rev-parse", "HEAD"); got != st[1].Commit {
		t.Errorf("scratch HEAD = %s, want %s", got, st[1].Commit)
	}
	if _, err := r.TryGit(s.Path, "symbolic-ref", "-q", "HEAD"); err == nil {
		t.Error("the scratch checkout is on a branch, want a detached HEAD")
	}
	b, err := os.ReadFile(filepath.Join(s.Path, "f.txt"))
	if err != nil || string(b) != lines(map[int]string{3: "from a", 27: "from b"}) {
		t.Errorf("scratch f.txt = %q, %v; want both jobs' edits", b, err)
	}
	if st := r.Git(s.Path, "status", "--porcelain"); st != "" {
		t.Errorf("scratch status = %q, want clean", st)
	}
	if list := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+s.Path+"\n") ||
		!strings.Contains(list, "locked "+ScratchLockReason) {
		t.Errorf("worktree list does not show the locked scratch:\n%s", list)
	}
	// The gate leaves build output behind; the scratch goes anyway, and only it.
	if err := os.WriteFile(filepath.Join(s.Path, "build.out"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch directory still there: %v", err)
	}
	if list := r.Git(r.Root, "worktree", "list", "--porcelain"); strings.Contains(list, s.Path) {
		t.Errorf("git still lists the scratch:\n%s", list)
	}
	if got := r.Git(r.Root, "for-each-ref"); got != refs {
		t.Errorf("refs changed:\n%s\nwant\n%s", got, refs)
	}
	if err := s.Remove(ctx); err != nil {
		t.Errorf("a second Remove: %v", err)
	}
}

func TestScratchOfAGoneDirectoryDropsGitsRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.repo
	p := f.predictor(nil)
	ctx := context.Background()
	s, err := p.Checkout(ctx, filepath.Join(r.Base, "scratch"), f.head("main"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(s.Path); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if list := r.Git(r.Root, "worktree", "list", "--porcelain"); strings.Contains(list, s.Path) {
		t.Errorf("git still lists the deleted scratch:\n%s", list)
	}
}

func TestScratchOfAMissingCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.repo
	p := f.predictor(nil)
	parent := filepath.Join(r.Base, "scratch")
	before := r.Snapshot()
	if _, err := p.Checkout(context.Background(), parent, strings.Repeat("0", 39)+"1"); err == nil {
		t.Fatal("a commit that does not exist was checked out")
	}
	if _, err := p.Checkout(context.Background(), parent, "main"); err == nil {
		t.Fatal("a ref name was accepted as a commit id")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in the scratch parent: %v", entries)
	}
	os.Remove(parent)
	r.Unchanged(before)
}
