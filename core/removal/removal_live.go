package removal

import (
	"context"
	"errors"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// The removals nobody forces (prune's, land's clean-up's) judge the processes working in
// a worktree exactly as remove does, through the backend: under tmux the idle shell of
// the worktree's own window does not keep it (closing the window ends it), under Herdr
// the idle shells of its workspace do not. And they look again right before git
// removes, inside the same locked step: a process that started after prune's scan (or
// after the land's check) keeps the worktree.

// errStillLive is the removal that did not run: a process works in the worktree now.
type errStillLive struct{ live core.LiveSet }

func (e errStillLive) Error() string { return core.LiveDetail(e.live) }

// stillLive is the processes a removal that did not run found (ok false for any other error).
func StillLive(err error) (core.LiveSet, bool) {
	var e errStillLive
	ok := errors.As(err, &e)
	return e.live, ok
}

// workspaceAt is the workspace (tmux window, Herdr workspace) the worktree at path is open
// in, "" when none or without workspaces.
func WorkspaceAt(s *core.Env, ctx context.Context, snap core.Snapshot, path string) (string, error) {
	wsOf, err := s.WorkspacesOf(ctx, snap)
	if err != nil {
		return "", err
	}
	return wsOf[path], nil
}

// unforcedRemoval is the run of a removal prune or land's clean-up decided on: the live
// check, then the remove, never forced, through the backend when the worktree has a
// workspace (which it closes, as remove does) and through git (with runner git) when not.
func UnforcedRemoval(s *core.Env, t gitx.Worktree, ws string, git *gitx.Runner) func(context.Context) error {
	return liveCheckedRemoval(s, t, ws, ws != "", git)
}

// liveCheckedRemoval looks at the processes as the window or workspace ws's (none: the
// directory's alone) right before the removal, and removes the worktree through the
// backend when closeWs (which closes ws with it), else with git alone.
func liveCheckedRemoval(s *core.Env, t gitx.Worktree, ws string, closeWs bool, git *gitx.Runner) func(context.Context) error {
	return func(ctx context.Context) error {
		if s.BeforeLiveCheck != nil {
			s.BeforeLiveCheck(t.Path)
		}
		if l := s.Backend.WorkspaceLive(ctx, t.Path, ws); len(l.Procs) > 0 {
			return errStillLive{l}
		}
		if t.Locked != nil {
			// Only the lock of a claim whose --run command ended reaches a removal here
			// (prune keeps, and land's clean-up releases, every other): unlocked only once
			// nothing keeps the worktree, so a refusal leaves the lock as it was.
			un, err := gitx.WorktreeUnlock(s.Root(), t.Path)
			if err != nil {
				return core.BuilderErr(err)
			}
			if _, err := git.Run(ctx, un); err != nil {
				return err
			}
			t.Locked = nil
		}
		if closeWs {
			return s.Backend.Remove(ctx, &core.RemoveSpec{Target: t, WsID: ws, Cwd: s.Root()})
		}
		rm, err := gitx.WorktreeRemove(s.Root(), t.Path, false, false)
		if err != nil {
			return core.BuilderErr(err)
		}
		_, err = git.Run(ctx, rm)
		return err
	}
}

// unforcedRemovalInOwnWindow is unforcedRemoval for a worktree whose tmux window (own) is
// the one copse runs in: the processes are judged as that window's (copse and the shell
// that started it go with the window), and git removes the worktree; the window itself is
// closed once copse has answered (closeOwnWindow), never under it.
func UnforcedRemovalInOwnWindow(s *core.Env, t gitx.Worktree, own string, git *gitx.Runner) func(context.Context) error {
	return liveCheckedRemoval(s, t, own, false, git)
}

// unforcedRemoveCommands are the commands unforcedRemoval runs, for a plan.
func UnforcedRemoveCommands(s *core.Env, t gitx.Worktree, ws string) ([]string, error) {
	if ws != "" {
		return s.Backend.RemoveCommands(&core.RemoveSpec{Target: t, WsID: ws, Cwd: s.Root()})
	}
	rm, err := gitx.WorktreeRemove(s.Root(), t.Path, false, false)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return []string{rm.String()}, nil
}
