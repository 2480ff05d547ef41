package core

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

func (s *Env) createPreState(ctx context.Context, c *createCmd) createPre {
	pre := createPre{parents: missingParents(c.path.s)}
	if fi, err := os.Lstat(c.path.s); err == nil && fi.IsDir() {
		pre.dirExisted, pre.dirMode = true, fi.Mode().Perm()
	}
	if commonDir, err := s.commonDir(ctx); err == nil && !exists(filepath.Join(commonDir, "worktrees")) {
		pre.adminDir = filepath.Join(commonDir, "worktrees")
	}
	if c.remote != nil {
		had, err := s.Git.BranchConfigured(ctx, c.cwd, c.branch.s)
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
func (s *Env) failedCreate(ctx context.Context, c *createCmd, before Snapshot, pre createPre, runErr error) error {
	var be *Error
	if errors.As(runErr, &be) && be.Kind == KindUncertain {
		return be // the backend already knows precisely what is uncertain
	}
	cancelled := errors.Is(runErr, context.Canceled) || IsGitKind(runErr, gitx.ErrCanceled)
	after, err := s.ReadBack(ctx)
	if err != nil {
		return Uncertain(CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	s.Learn(after)
	_, listed := Find(after, c.path.s)
	if listed && s.Backend.HasWorkspaces() {
		// Herdr may have a workspace on it: taking the checkout away under it is not
		// copse's call. Report it.
		return Uncertain(CodeCreateUncertain, runErr, "run `copse list` and check "+quoteDisplay(c.path.s),
			"create failed (%s) but git lists %s", Escape(errText(runErr)), Escape(c.path.s))
	}
	// A branch git says already existed was made by someone else between copse's check
	// (under the lock) and git's run: not this create's to delete.
	made := !c.existing && !branchExistedForGit(runErr)
	taken, remains := s.takeBackCreate(ctx, c, before, pre, listed, made)

	var out *Error
	switch {
	case cancelled:
		out = &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr, Message: "create of " + Escape(c.path.s) + " cancelled"}
	case be != nil:
		cp := *be
		out = &cp
	case IsGitKind(runErr, gitx.ErrOutputLimit):
		out = GitFailure(CodeOutputLimit, runErr, "git was stopped")
		out.Hint = "make the post-checkout hook quieter (or redirect its output to a file), then create again"
	default:
		out = GitFailure(CodeCreateFailed, runErr, "git could not create the worktree")
	}
	if len(remains) > 0 {
		kind := KindUncertain
		if cancelled {
			kind = KindCancelled
		}
		msg := out.Message + "; taking back what it made did not restore the state before: " + strings.Join(remains, "; ") + " remain"
		if len(taken) > 0 {
			msg += " (taken back: " + strings.Join(taken, ", ") + ")"
		}
		return &Error{Kind: kind, Code: CodeCreateNotTakenBack, Err: runErr, Message: msg,
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
func (s *Env) takeBackCreate(ctx context.Context, c *createCmd, before Snapshot, pre createPre, listed, madeBranch bool) (taken, remains []string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
	defer cancel()
	taken = s.undoCreate(rctx, c, pre, listed, madeBranch)
	return taken, s.createRemains(rctx, c, before, pre, madeBranch)
}

// undoCreate takes back each piece of the create it can, and says which it took back.
func (s *Env) undoCreate(rctx context.Context, c *createCmd, pre createPre, listed, madeBranch bool) (taken []string) {
	run := func(cmd gitx.Cmd, err error) error {
		if err != nil {
			return err
		}
		_, err = s.Git.Run(rctx, cmd)
		return err
	}
	if listed && run(gitx.WorktreeRemove(c.cwd, c.path.s, true, false)) == nil {
		taken = append(taken, "the worktree at "+Escape(c.path.s))
	}
	switch {
	case !pre.dirExisted && exists(c.path.s):
		// Only an empty folder: anything in it was not proven to be this create's.
		_ = os.Remove(c.path.s)
	case pre.dirExisted && !exists(c.path.s):
		// git's cleanup removes the (empty) directory it was given; put it back.
		if os.Mkdir(c.path.s, pre.dirMode) == nil {
			_ = os.Chmod(c.path.s, pre.dirMode) // the umask may have narrowed it
		}
	}
	if madeBranch {
		if still, err := s.Git.BranchExists(rctx, c.cwd, c.branch.s); err == nil && still &&
			run(gitx.BranchDeleteIfAt(c.cwd, c.branch.s, c.base.OID)) == nil {
			taken = append(taken, "branch "+Escape(c.branch.s))
		}
	}
	if c.remote != nil && !pre.hadConfig {
		if has, err := s.Git.BranchConfigured(rctx, c.cwd, c.branch.s); err == nil && has &&
			run(gitx.BranchConfigRemove(c.cwd, c.branch.s)) == nil {
			taken = append(taken, "its upstream settings")
		}
	}
	removeIfEmpty(pre.parents)
	if pre.adminDir != "" {
		_ = os.Remove(pre.adminDir) // only if empty: git made it for this worktree's admin entry
	}
	return taken
}

// createRemains proves the take-back: every piece compared with before, each one still
// different named.
func (s *Env) createRemains(rctx context.Context, c *createCmd, before Snapshot, pre createPre, madeBranch bool) (remains []string) {
	after, err := s.read(rctx)
	switch {
	case err != nil:
		remains = append(remains, "an unknown state (the worktree list could not be read back: "+Escape(errText(err))+")")
	case after.token != before.token:
		s.Learn(after)
		if t, ok := Find(after, c.path.s); ok {
			remains = append(remains, "the worktree "+Escape(c.path.s)+" ("+describe(t)+")")
		} else {
			remains = append(remains, "a changed worktree list")
		}
	default:
		s.Learn(after)
	}
	if exists(c.path.s) != pre.dirExisted {
		if pre.dirExisted {
			remains = append(remains, "the loss of the empty directory "+Escape(c.path.s))
		} else {
			remains = append(remains, "the directory "+Escape(c.path.s))
		}
	}
	if pre.adminDir != "" && exists(pre.adminDir) {
		remains = append(remains, "the directory "+Escape(pre.adminDir))
	}
	for _, d := range pre.parents {
		if exists(d) {
			remains = append(remains, "the directory "+Escape(d))
			break
		}
	}
	if madeBranch {
		if still, err := s.Git.BranchExists(rctx, c.cwd, c.branch.s); err != nil || still {
			remains = append(remains, "branch "+Escape(c.branch.s))
		}
	}
	if c.remote != nil && !pre.hadConfig {
		if has, err := s.Git.BranchConfigured(rctx, c.cwd, c.branch.s); err != nil || has {
			remains = append(remains, "the settings branch."+Escape(c.branch.s)+".*")
		}
	}
	return remains
}

// errText is an error's first line, for a message that goes on.
func errText(err error) string {
	var ge *gitx.Error
	if errors.As(err, &ge) && ge.Kind == gitx.ErrExit && strings.TrimSpace(ge.Stderr) != "" {
		return gitMessage(ge.Stderr)
	}
	return firstLine(err.Error())
}

// branchExistedForGit: git refused to create the branch because it exists ("fatal: a
// branch named 'x' already exists").
func branchExistedForGit(err error) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "fatal: a branch named ") && strings.Contains(ge.Stderr, " already exists")
}
