package create

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// createPre is what a create's path, parents and branch config were before git ran, so a
// failed create can be taken back to exactly that.
type createPre struct {
	dirExisted bool        // the path was an empty directory (checkNewPath allows no more)
	dirMode    fs.FileMode // its permissions, to make it again if git removed it
	parents    []string    // parent folders that did not exist, deepest first
	hadConfig  bool        // branch.<name>.* settings existed (remote creates only)
	adminDir   string      // <common>/worktrees when it did not exist: git may leave it empty
}

func createPreState(s *core.Env, ctx context.Context, c *core.CreateSpec) createPre {
	pre := createPre{parents: core.MissingParents(c.Path.String())}
	if fi, err := os.Lstat(c.Path.String()); err == nil && fi.IsDir() {
		pre.dirExisted, pre.dirMode = true, fi.Mode().Perm()
	}
	if commonDir, err := s.CommonDir(ctx); err == nil && !core.Exists(filepath.Join(commonDir, "worktrees")) {
		pre.adminDir = filepath.Join(commonDir, "worktrees")
	}
	if c.Remote != nil {
		had, err := s.Git.BranchConfigured(ctx, c.Cwd, c.Branch.String())
		// Unknown counts as "had": copse never removes settings it cannot prove it made.
		pre.hadConfig = had || err != nil
	}
	return pre
}

// failedCreate answers a create whose git (or Herdr) command failed. git 2.39 removes the
// directory and admin entry of a worktree it could not check out (its "junk" cleanup), but
// keeps the branch it made first, with the upstream settings of --track; a failing
// post-checkout hook, or git stopped at the output cap, leaves the whole worktree. Under
// the lock Execute holds, copse takes back what remains of what this create made and
// proves the state is the one before (worktree list, branch, path, config): then the
// failure is exit 1, with git's own error. What cannot be taken back is named, exit 3.
func failedCreate(s *core.Env, ctx context.Context, c *core.CreateSpec, before core.Snapshot, pre createPre, runErr error) error {
	var be *core.Error
	if errors.As(runErr, &be) && be.Kind == core.KindUncertain {
		return be // the backend already knows precisely what is uncertain
	}
	cancelled := errors.Is(runErr, context.Canceled) || core.IsGitKind(runErr, gitx.ErrCanceled)
	after, err := s.ReadBack(ctx)
	if err != nil {
		return core.Uncertain(core.CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", core.Escape(c.Path.String()))
	}
	s.Learn(after)
	_, listed := core.Find(after, c.Path.String())
	if listed && s.Backend.HasWorkspaces() {
		// Herdr may have a workspace on it: taking the checkout away under it is not
		// copse's call. Report it.
		return core.Uncertain(core.CodeCreateUncertain, runErr, "run `copse list` and check "+core.QuoteDisplay(c.Path.String()),
			"create failed (%s) but git lists %s", core.Escape(core.ErrText(runErr)), core.Escape(c.Path.String()))
	}
	// A branch git says already existed was made by someone else between copse's check
	// (under the lock) and git's run: not this create's to delete.
	made := !c.Existing && !core.BranchExistedForGit(runErr)
	taken, remains := takeBackCreate(s, ctx, c, before, pre, listed, made)

	var out *core.Error
	switch {
	case cancelled:
		out = &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: runErr, Message: "create of " + core.Escape(c.Path.String()) + " cancelled"}
	case be != nil:
		cp := *be
		out = &cp
	case core.IsGitKind(runErr, gitx.ErrOutputLimit):
		out = core.GitFailure(core.CodeOutputLimit, runErr, "git was stopped")
		out.Hint = "make the post-checkout hook quieter (or redirect its output to a file), then create again"
	default:
		out = core.GitFailure(core.CodeCreateFailed, runErr, "git could not create the worktree")
	}
	if len(remains) > 0 {
		kind := core.KindUncertain
		if cancelled {
			kind = core.KindCancelled
		}
		msg := out.Message + "; taking back what it made did not restore the state before: " + strings.Join(remains, "; ") + " remain"
		if len(taken) > 0 {
			msg += " (taken back: " + strings.Join(taken, ", ") + ")"
		}
		return &core.Error{Kind: kind, Code: core.CodeCreateNotTakenBack, Err: runErr, Message: msg,
			Hint: "inspect and clean up by hand (`copse list` shows the worktrees; git branch -D deletes a branch)"}
	}
	result := "nothing changed"
	if cancelled {
		result = "nothing was created"
	}
	if len(taken) > 0 {
		out.Message += "; taken back: " + strings.Join(taken, ", ")
	}
	out.Message += "; " + result
	return out
}

// takeBackCreate removes what this create made: the worktree if git lists it, a directory
// git left, the branch (only while it is still at the commit the create made it at, and
// only if it did not exist before), the upstream settings --track wrote, and the parent
// folders made for it. A directory that existed (empty) before is made again. It returns
// what it took back and what is still different from before.
func takeBackCreate(s *core.Env, ctx context.Context, c *core.CreateSpec, before core.Snapshot, pre createPre, listed, madeBranch bool) (taken, remains []string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
	defer cancel()
	taken = undoCreate(s, rctx, c, pre, listed, madeBranch)
	return taken, createRemains(s, rctx, c, before, pre, madeBranch)
}

// undoCreate takes back each piece of the create it can, and says which it took back.
func undoCreate(s *core.Env, rctx context.Context, c *core.CreateSpec, pre createPre, listed, madeBranch bool) (taken []string) {
	run := func(cmd gitx.Cmd, err error) error {
		if err != nil {
			return err
		}
		_, err = s.Git.Run(rctx, cmd)
		return err
	}
	if listed && run(gitx.WorktreeRemove(c.Cwd, c.Path.String(), true, false)) == nil {
		taken = append(taken, "the worktree at "+core.Escape(c.Path.String()))
	}
	switch {
	case !pre.dirExisted && core.Exists(c.Path.String()):
		// Only an empty folder: anything in it was not proven to be this create's.
		_ = os.Remove(c.Path.String())
	case pre.dirExisted && !core.Exists(c.Path.String()):
		// git's cleanup removes the (empty) directory it was given; put it back.
		if os.Mkdir(c.Path.String(), pre.dirMode) == nil {
			_ = os.Chmod(c.Path.String(), pre.dirMode) // the umask may have narrowed it
		}
	}
	if madeBranch {
		if still, err := s.Git.BranchExists(rctx, c.Cwd, c.Branch.String()); err == nil && still &&
			run(gitx.BranchDeleteIfAt(c.Cwd, c.Branch.String(), c.Base.OID)) == nil {
			taken = append(taken, "branch "+core.Escape(c.Branch.String()))
		}
	}
	if c.Remote != nil && !pre.hadConfig {
		if has, err := s.Git.BranchConfigured(rctx, c.Cwd, c.Branch.String()); err == nil && has &&
			run(gitx.BranchConfigRemove(c.Cwd, c.Branch.String())) == nil {
			taken = append(taken, "its upstream settings")
		}
	}
	core.RemoveIfEmpty(pre.parents)
	if pre.adminDir != "" {
		_ = os.Remove(pre.adminDir) // only if empty: git made it for this worktree's admin entry
	}
	return taken
}

// createRemains proves the take-back: every piece compared with before, each one still
// different named.
func createRemains(s *core.Env, rctx context.Context, c *core.CreateSpec, before core.Snapshot, pre createPre, madeBranch bool) (remains []string) {
	after, err := s.Read(rctx)
	switch {
	case err != nil:
		remains = append(remains, "an unknown state (the worktree list could not be read back: "+core.Escape(core.ErrText(err))+")")
	case after.Token != before.Token:
		s.Learn(after)
		if t, ok := core.Find(after, c.Path.String()); ok {
			remains = append(remains, "the worktree "+core.Escape(c.Path.String())+" ("+core.Describe(t)+")")
		} else {
			remains = append(remains, "a changed worktree list")
		}
	default:
		s.Learn(after)
	}
	if core.Exists(c.Path.String()) != pre.dirExisted {
		if pre.dirExisted {
			remains = append(remains, "the loss of the empty directory "+core.Escape(c.Path.String()))
		} else {
			remains = append(remains, "the directory "+core.Escape(c.Path.String()))
		}
	}
	if pre.adminDir != "" && core.Exists(pre.adminDir) {
		remains = append(remains, "the directory "+core.Escape(pre.adminDir))
	}
	for _, d := range pre.parents {
		if core.Exists(d) {
			remains = append(remains, "the directory "+core.Escape(d))
			break
		}
	}
	if madeBranch {
		if still, err := s.Git.BranchExists(rctx, c.Cwd, c.Branch.String()); err != nil || still {
			remains = append(remains, "branch "+core.Escape(c.Branch.String()))
		}
	}
	if c.Remote != nil && !pre.hadConfig {
		if has, err := s.Git.BranchConfigured(rctx, c.Cwd, c.Branch.String()); err != nil || has {
			remains = append(remains, "the settings branch."+core.Escape(c.Branch.String())+".*")
		}
	}
	return remains
}
