package core

// Reading back what a run did: the worktree list after a change (even when the caller gave
// up), finding a worktree in it, and the row a run reports.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// ReadBackTimeout bounds the reads that check a mutation's result. They run even when the
// caller's context was cancelled: after an interrupt the user must learn what state is left.
const ReadBackTimeout = 30 * time.Second

// SetSessionAt records where this session now is (a switch or back went there).
func (s *Env) SetSessionAt(path string) {
	s.mu.Lock()
	s.sessAt = path
	s.mu.Unlock()
}

// SessionAt is where this session is: where its last switch or back went, else where
// copse started.
func (s *Env) SessionAt() string {
	s.mu.Lock()
	at := s.sessAt
	s.mu.Unlock()
	if at != "" {
		return at
	}
	return s.Current()
}

// ReadBack lists the worktrees after a mutation, even if ctx was cancelled.
func (s *Env) ReadBack(ctx context.Context) (Snapshot, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
	defer cancel()
	return s.Read(rctx)
}

func Find(snap Snapshot, path string) (gitx.Worktree, bool) {
	cp := Canonical(path)
	for _, t := range snap.Trees {
		if Canonical(t.Path) == cp {
			return t, true
		}
	}
	return gitx.Worktree{}, false
}

func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func (s *Env) Row(t gitx.Worktree, ws string) *Worktree {
	w := &Worktree{Branch: t.Branch, Path: t.Path, Head: t.Head, Detached: t.Detached, Bare: t.Bare,
		Locked: t.Locked, Prunable: t.Prunable, Main: t.Path == s.Root(), Current: t.Path == s.Current(),
		Rebasing: t.Rebasing, Bisecting: t.Bisecting}
	if ws != "" {
		w.WorkspaceID = &ws
	}
	s.decorateOne(w)
	return w
}

func IsGitKind(err error, k gitx.ErrKind) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && ge.Kind == k
}

// MissingParents lists the parent folders of path that do not exist yet, deepest first.
func MissingParents(path string) []string {
	var out []string
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if Exists(dir) {
			break
		}
		out = append(out, dir)
	}
	return out
}

// RemoveIfEmpty removes folders a failed create made; os.Remove never removes a folder
// with anything in it, so nothing else can be lost.
func RemoveIfEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
