package landpredict

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/copse-dev/copse/gitx"
)

// ScratchLockReason is the lock reason of copse's scratch checkouts: `git worktree list`
// shows it, so a listing can tell them from the user's worktrees, and git's own prune
// (and copse's) leaves a locked worktree alone while a gate runs in it.
const ScratchLockReason = "copse: speculative land gate"

// Scratch is a detached checkout of one commit (a stacked commit, for a speculative gate)
// in a worktree copse made and removes.
type Scratch struct {
	Path    string // the checkout's directory
	Commit  string // the commit checked out (detached HEAD)
	git     *gitx.Runner
	dir     string
	removed bool
}

// Checkout checks commit out, detached, in a new locked worktree in a fresh directory
// under parent (made if missing; a directory copse owns, such as one under the
// repository's common dir). Hooks and submodule recursion are off: what the gate sees is
// the commit's tree and nothing a hook put beside it. On failure nothing is left behind.
func (p *Predictor) Checkout(ctx context.Context, parent, commit string) (*Scratch, error) {
	switch {
	case !filepath.IsAbs(parent) || filepath.Clean(parent) != parent:
		return nil, &InputError{fmt.Sprintf("scratch parent %q is not an absolute clean path", parent)}
	case !isOID(commit):
		return nil, &InputError{fmt.Sprintf("commit %q is not a full commit id", commit)}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	// A fresh empty directory reserves the name: git checks out into an empty one.
	path, err := os.MkdirTemp(parent, "gate-")
	if err != nil {
		return nil, err
	}
	c, err := gitx.WorktreeAddScratchCmd(p.dir, path, commit, ScratchLockReason)
	if err == nil {
		_, err = p.git.Run(ctx, c)
	}
	if err != nil {
		os.Remove(path) // still empty: git adds nothing when it fails
		return nil, err
	}
	s := &Scratch{Path: path, Commit: commit, git: p.git, dir: p.dir}
	head, err := p.git.ResolveCommit(ctx, path, "HEAD")
	if err == nil && head != commit {
		err = fmt.Errorf("landpredict: the scratch checkout %s is at %s, not %s", path, head, commit)
	}
	if err != nil {
		return nil, errors.Join(err, s.Remove(context.WithoutCancel(ctx)))
	}
	return s, nil
}

// Remove removes the scratch worktree, whatever the gate left in it (untracked and
// ignored files go with it: nothing in it is anyone's work), and git's record of it,
// also when the directory was deleted already. Removing twice is no error.
func (s *Scratch) Remove(ctx context.Context) error {
	if s.removed {
		return nil
	}
	c, err := gitx.WorktreeRemove(s.dir, s.Path, true, true)
	if err != nil {
		return err
	}
	if _, err := s.git.Run(ctx, c); err != nil {
		_, statErr := os.Lstat(s.Path)
		if _, exited := gitx.ExitCode(err); exited && errors.Is(statErr, fs.ErrNotExist) {
			s.removed = true // neither the directory nor git's record of it is left
			return nil
		}
		return fmt.Errorf("landpredict: removing the scratch checkout %s: %w", s.Path, err)
	}
	s.removed = true
	return nil
}
