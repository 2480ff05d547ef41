package core_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// While another git is half-way through `worktree add` (its admin directory there, the
// commondir file still empty) git cannot list; copse reads the list again instead of
// failing the command. Here the other git "finishes" 30 ms in.
func TestListWaitsOutAHalfAddedWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	if _, err := s.List(context.Background(), false); err != nil { // Open's own reading, used up
		t.Fatal(err)
	}
	admin := filepath.Join(r.Root, ".git", "worktrees", "half")
	if err := os.MkdirAll(admin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(r.Base, "half", ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(admin, "commondir"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit(r.Root, "worktree", "list"); err == nil {
		t.Fatal("git lists a half-added worktree; this test needs it to fail")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(30 * time.Millisecond)
		os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644)
	}()
	l, err := s.List(context.Background(), false)
	<-done
	if err != nil {
		t.Fatalf("list while a worktree was being added: %v", err)
	}
	if len(l.Worktrees) != 2 {
		t.Fatalf("listed %d worktrees, want the main checkout and the added one", len(l.Worktrees))
	}
}
