package core

import (
	"os"
	"path/filepath"
	"strings"
)

// worktreesDir is <parent of the main checkout>/<repo>.worktrees: the folder copse's
// default paths (without git config copse.root) put every worktree in.
func (s *Env) worktreesDir() string {
	// A bare layout's "main" is repo.git: its worktrees go to repo.worktrees.
	name := strings.TrimSuffix(filepath.Base(s.Root()), ".git")
	if name == "" {
		name = filepath.Base(s.Root())
	}
	return filepath.Join(filepath.Dir(s.Root()), name+".worktrees")
}

// dropEmptyWorktreesDir removes the <repo>.worktrees folder when the worktree just
// removed was in it and it is now empty: the folder is copse's own (its default paths
// made it), and left behind it is clutter beside the repository. os.Remove of a directory
// never removes one with anything in it, so nothing else can be lost; a folder that is not
// empty, or not there, stays as it is and says nothing.
func (s *Env) DropEmptyWorktreesDir(removed string) {
	dir := s.worktreesDir()
	if parent := filepath.Dir(removed); parent != dir && Canonical(parent) != Canonical(dir) {
		return
	}
	_ = os.Remove(dir)
}
