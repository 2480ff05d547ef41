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

func (s *service) execute(ctx context.Context, p *Plan) (*Outcome, error) {
	if p == nil || p.cmd == nil || p.Request == nil {
		return nil, usage(CodeNoPlan, "", "call Prepare first", "nothing to execute: the plan is empty")
	}
	if c, ok := p.cmd.(listCmd); ok {
		l, err := s.list(ctx, c.withStatus)
		if err != nil {
			return nil, err
		}
		return &Outcome{Operation: OpList, Listing: l}, nil
	}
	// land queues and waits on its own terms (land_run.go): it takes the repository lock
	// only for its short critical steps, never while it waits in the queue.
	switch c := p.cmd.(type) {
	case *landCmd:
		return s.land(ctx, p, c, nil)
	case landStatusCmd:
		return s.landStatus(ctx, c)
	}
	if _, ok := p.cmd.(restoreListCmd); ok {
		return s.restoreList(ctx)
	}
	unlock, err := s.lockFor(ctx, p.cmd)
	if err != nil {
		return nil, err
	}
	defer unlock()

	// Under the lock, read git again: a confirmed plan runs only against the list the
	// human saw; any plan re-checks its preconditions against the state it will change.
	snap, err := s.readAndLearn(ctx)
	if err != nil {
		return nil, err
	}
	fresh, err := s.prepareWith(ctx, p.Request, snap)
	if err != nil {
		return nil, err
	}
	// A confirmed plan runs only if, under the lock, it would show exactly what the human
	// approved: the same worktree list and the same losses.
	if p.Confirm != nil && fresh.Token != p.Token {
		return nil, refused(CodeStaleState, "look again and confirm again; nothing ran",
			"the worktree list or what the remove would lose changed after the confirmation was shown; nothing ran")
	}
	switch c := fresh.cmd.(type) {
	case *createCmd:
		if old, ok := p.cmd.(*createCmd); ok && old.base.OID != c.base.OID {
			return nil, refused(CodeBaseMoved, "run the create again to start from the new commit",
				"%s moved from %s to %s after it was checked; nothing ran", Escape(c.base.Ref), short(old.base.OID), short(c.base.OID))
		}
		return s.emitted(s.runCreateClaim(ctx, c, snap, fresh.Warnings))
	case *removeCmd:
		out, err := s.runRemove(ctx, c, snap, fresh.Warnings)
		if out != nil && fresh.Confirm != nil {
			// What the confirmation told (the branch stays, with its commits); the plan's
			// own notice about recording is answered by the outcome's restore id.
			out.Notices = fresh.Confirm.Notices
		}
		return s.emitted(out, err)
	case *claimCmd:
		return s.runClaim(ctx, c, fresh.Warnings)
	case *pruneCmd:
		return s.runPrune(ctx, c, p, fresh)
	case *targetCmd:
		return s.runTarget(ctx, c, fresh.Warnings)
	case *restoreCmd:
		if old, ok := p.cmd.(*restoreCmd); ok && old.entry.ID != c.entry.ID {
			return nil, refused(CodeStaleState, "look at `copse restore --list` and ask again",
				"the most recent removed worktree changed after it was checked (%s, now %s); nothing ran", old.entry.ID, c.entry.ID)
		}
		return s.emitted(s.runRestore(ctx, c, snap, fresh.Warnings))
	}
	return nil, usage(CodeUnknownOperation, "operation", "", "cannot execute %T", fresh.cmd)
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
	after, err := s.readBack(ctx)
	if err != nil {
		return nil, uncertain(CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	s.learn(after)
	t, listed := find(after, c.path.s)
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
	// A forced remove (or one that deletes the branch) first records what it deletes.
	saved, err := s.snapshotBeforeRemove(ctx, c) // contract: snapshotForRemoval
	if err != nil {
		return nil, err
	}
	runErr := s.backend.remove(ctx, c)
	after, err := s.readBack(ctx)
	if err != nil {
		return nil, uncertain(CodeRemoveUnverified, err, "run `copse list` to see what exists",
			"remove of %s ran, but the worktree list could not be read back", Escape(c.target.Path))
	}
	s.learn(after)
	_, listed := find(after, c.target.Path)
	onDisk := exists(c.target.Path)
	if runErr != nil {
		if e := AsError(runErr); e.Kind == KindUncertain {
			return nil, e
		}
		cancelled := errors.Is(runErr, context.Canceled) || isGitKind(runErr, gitx.ErrCanceled)
		if after.token == before.token && listed && (onDisk || c.target.Prunable != nil) {
			s.dropSnapshot(ctx, saved) // nothing was removed: the record is not needed
			if cancelled {
				return nil, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr,
					Message: "remove of " + Escape(c.target.Path) + " cancelled; nothing was removed"}
			}
			var e *Error
			if errors.As(runErr, &e) {
				return nil, e
			}
			var ge *gitx.Error
			if errors.As(runErr, &ge) && strings.Contains(ge.Stderr, "contains modified or untracked files") {
				return nil, forceHelps(refused(CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
					"%s has uncommitted changes", Escape(c.target.Path)))
			}
			return nil, gitFailure(CodeRemoveFailed, runErr, "git could not remove the worktree")
		}
		kind := KindUncertain
		if cancelled {
			kind = KindCancelled
		}
		return nil, &Error{Kind: kind, Code: CodeRemoveInterrupted, Err: runErr,
			Message: removeState(c.target.Path, listed, onDisk), Hint: "run `copse list`; git worktree prune forgets a worktree whose directory is gone"}
	}
	if listed || onDisk {
		return nil, uncertain(CodeRemoveIncomplete, nil, "run `copse list`; git worktree prune forgets a worktree whose directory is gone",
			"%s", removeState(c.target.Path, listed, onDisk))
	}
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

func (s *service) runTarget(ctx context.Context, c *targetCmd, warnings []string) (*Outcome, error) {
	var (
		ws  string
		err error
	)
	if c.operation == OpOpen {
		ws, err = s.backend.open(ctx, c)
	} else {
		ws, err = s.backend.switchTo(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	if ws == "" {
		ws = c.wsID
	}
	if c.operation == OpBack {
		s.history.Previous(s.session, func(p string) bool { return canonical(p) == canonical(c.target.Path) || false })
	} else if c.operation == OpSwitch || !s.backend.hasWorkspaces() {
		s.history.Visit(s.session, c.from)
	}
	if c.operation != OpOpen || !s.backend.hasWorkspaces() {
		s.mu.Lock()
		s.sessAt = c.target.Path
		s.mu.Unlock()
	}
	dest := c.target.Path
	if c.operation == OpBack {
		dest = s.backDir(c.target.Path)
	}
	return &Outcome{Operation: c.operation, Worktree: s.row(c.target, ws), Path: dest, WorkspaceID: ws, Warnings: warnings}, nil
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
