package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// readBackTimeout bounds the reads that check a mutation's result. They run even when the
// caller's context was cancelled: after an interrupt the user must learn what state is left.
const readBackTimeout = 30 * time.Second

func (s *service) sessionAt() string {
	s.mu.Lock()
	at := s.sessAt
	s.mu.Unlock()
	if at != "" {
		return at
	}
	return s.current()
}

// readBack lists the worktrees after a mutation, even if ctx was cancelled.
func (s *service) readBack(ctx context.Context) (snapshot, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	return s.read(rctx)
}

func find(snap snapshot, path string) (gitx.Worktree, bool) {
	cp := canonical(path)
	for _, t := range snap.trees {
		if canonical(t.Path) == cp {
			return t, true
		}
	}
	return gitx.Worktree{}, false
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func (s *service) row(t gitx.Worktree, ws string) *Worktree {
	w := &Worktree{Branch: t.Branch, Path: t.Path, Head: t.Head, Detached: t.Detached, Bare: t.Bare,
		Locked: t.Locked, Prunable: t.Prunable, Main: t.Path == s.root(), Current: t.Path == s.current(),
		Rebasing: t.Rebasing, Bisecting: t.Bisecting}
	if ws != "" {
		w.WorkspaceID = &ws
	}
	s.decorateOne(w)
	return w
}

func (s *service) runCreate(ctx context.Context, c *createCmd, before snapshot, warnings []string) (*Outcome, error) {
	pre := s.createPreState(ctx, c)
	ws, runErr := s.backend.create(ctx, c)
	if runErr != nil {
		return nil, s.failedCreate(ctx, c, before, pre, runErr)
	}
	t, listed, _, err := s.readBackAdded(ctx, c.path.s)
	if err != nil {
		return nil, uncertain(CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	switch {
	case !listed:
		return nil, uncertain(CodeCreateNotListed, nil, "run `copse list`; do not retry blindly",
			"create reported success but git does not list %s", Escape(c.path.s))
	case t.Branch != c.branch.s:
		return nil, uncertain(CodeCreateWrongBranch, nil, "inspect the worktree before using it",
			"git lists %s on %s, not on branch %s", Escape(c.path.s), describe(t), Escape(c.branch.s))
	case t.Head != c.base.OID:
		return nil, uncertain(CodeCreateWrongCommit, nil, "inspect the worktree before using it",
			"git lists %s at %s, not at %s (%s)", Escape(c.path.s), short(t.Head), short(c.base.OID), Escape(c.base.Ref))
	case !exists(c.path.s):
		return nil, uncertain(CodeCreateNoDirectory, nil, "run git worktree prune if the directory is really gone",
			"git lists %s but the directory does not exist", Escape(c.path.s))
	}
	s.refreshAfterCheckout(t.Path)
	var notices []string
	if c.remote != nil {
		if err := s.trackRemote(ctx, c); err != nil {
			return nil, err
		}
		// What copse did, as asked: information, not a warning.
		notices = append(notices, "created branch "+Escape(c.branch.s)+" from "+Escape(c.remote.String())+" (tracking it)")
	}
	row := s.row(t, ws)
	if w := s.recordCreate(ctx, c, row); w != "" {
		warnings = append(warnings, w)
	}
	return &Outcome{Operation: OpCreate, Worktree: row, Path: t.Path, WorkspaceID: ws, Base: c.startBase(), Warnings: warnings, Notices: notices}, nil
}

func isGitKind(err error, k gitx.ErrKind) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && ge.Kind == k
}

func (s *service) runRemove(ctx context.Context, c *removeCmd, before snapshot, warnings []string) (*Outcome, error) {
	gone := s.row(c.target, c.wsID)
	r, err := s.removeOne(ctx, removeStep{target: c.target, record: recordsRemove(c), deleteBranch: c.deleteBranch,
		before: &before.token, run: func(ctx context.Context) error { return s.backend.remove(ctx, c) }})
	if rerr, ok := isReadBack(err); ok {
		return nil, uncertain(CodeRemoveUnverified, rerr, "run `copse list` to see what exists",
			"remove of %s ran, but the worktree list could not be read back", Escape(c.target.Path))
	}
	if err != nil {
		return nil, err
	}
	if err := removeFailure(c.target.Path, r); err != nil {
		return nil, err
	}
	saved := r.saved
	out := &Outcome{Operation: OpRemove, Worktree: gone, Path: c.target.Path, WorkspaceID: c.wsID, Warnings: warnings}
	if saved != nil {
		out.RestoreID = saved.ID
	}
	if c.deleteBranch {
		cmd, err := gitx.BranchDelete(c.cwd, c.target.Branch, true)
		if err != nil {
			return nil, builderErr(err)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
		defer cancel()
		_, delErr := s.git.Run(rctx, cmd)
		still, err := s.git.BranchExists(rctx, c.cwd, c.target.Branch)
		if delErr != nil || err != nil || still {
			return nil, uncertain(CodeBranchNotDeleted, delErr, "delete it by hand: git branch -D "+quoteDisplay(c.target.Branch),
				"the worktree %s was removed, but branch %s could not be deleted", Escape(c.target.Path), Escape(c.target.Branch))
		}
		out.BranchDeleted = true
	}
	return out, nil
}

// removeFailure is remove's error for a removal that did not simply succeed (nil when it
// did): a refusal when nothing was removed, else what is left, uncertain.
func removeFailure(path string, r removal) error {
	runErr := r.runErr
	switch r.verdict {
	case removalDone:
		return nil
	case removalIncomplete:
		return uncertain(CodeRemoveIncomplete, nil, "run `copse list`; git worktree prune forgets a worktree whose directory is gone",
			"%s", removeState(path, r.listed, r.onDisk))
	case removalNothing:
		if e := AsError(runErr); e.Kind == KindUncertain {
			return e
		}
		if cancelledRun(runErr) {
			return &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr,
				Message: "remove of " + Escape(path) + " cancelled; nothing was removed"}
		}
		var e *Error
		if errors.As(runErr, &e) {
			return e
		}
		var ge *gitx.Error
		if errors.As(runErr, &ge) && strings.Contains(ge.Stderr, "contains modified or untracked files") {
			return forceHelps(refused(CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
				"%s has uncommitted changes", Escape(path)))
		}
		return gitFailure(CodeRemoveFailed, runErr, "git could not remove the worktree")
	}
	if e := AsError(runErr); e.Kind == KindUncertain {
		return e
	}
	kind := KindUncertain
	if cancelledRun(runErr) {
		kind = KindCancelled
	}
	return &Error{Kind: kind, Code: CodeRemoveInterrupted, Err: runErr,
		Message: removeState(path, r.listed, r.onDisk), Hint: "run `copse list`; git worktree prune forgets a worktree whose directory is gone"}
}

func removeState(path string, listed, onDisk bool) string {
	switch {
	case listed && onDisk:
		return Escape(path) + " is still listed by git and still on disk"
	case listed:
		return Escape(path) + " is gone from disk but still listed by git"
	case onDisk:
		return "git no longer lists " + Escape(path) + " but its directory is still on disk"
	}
	return Escape(path) + " was removed"
}

// missingParents lists the parent folders of path that do not exist yet, deepest first.
func missingParents(path string) []string {
	var out []string
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if exists(dir) {
			break
		}
		out = append(out, dir)
	}
	return out
}

// removeIfEmpty removes folders a failed create made; os.Remove never removes a folder
// with anything in it, so nothing else can be lost.
func removeIfEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
