package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

var RemoveOp = &Op{
	Name:     OpRemove,
	Doc:      "remove a worktree (always needs a human's confirmation)",
	Approval: ApprovalDestructive,
	Request:  RemoveRequest{},
	Confirms: Yes,
	Prepare:  PrepareAs((*Env).prepareRemove),
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		out, err := s.runRemove(ctx, x.Plan.Cmd.(*removeCmd), x.Before, x.Warnings())
		if err != nil {
			return out, err
		}
		if x.Plan.Confirm != nil {
			// What the confirmation told (the branch stays, with its commits); the plan's
			// own notice about recording is answered by the outcome's restore id.
			out.Notices = x.Plan.Confirm.Notices
		}
		if l := x.Plan.Cmd.(*removeCmd).losses; l.Ignored > 0 {
			// Deleted with it, as the confirmation said: the result says which (no record keeps them).
			out.Notices = append(append([]string(nil), out.Notices...), "deleted with it: "+l.ignoredNamed()+" (ignored files are not recorded)")
		}
		x.Emit(Event{Event: EventRemoved, Commit: out.Worktree.Head, BranchDeleted: out.BranchDeleted}, out.Worktree)
		return out, nil
	},
}

func (s *Env) prepareRemove(ctx context.Context, r RemoveRequest, snap Snapshot) (*Plan, error) {
	t, ws, err := s.ResolveTarget(ctx, snap, r.Path, r.Branch, r.WorkspaceID)
	if err != nil {
		return nil, err
	}
	c := &removeCmd{target: t, wsID: ws, force: r.Force, deleteBranch: r.DeleteBranch, cwd: s.Root()}
	// Rules that nothing gets past, then the ones --force gets past; each names what it
	// protects and how to proceed.
	// The workspace copse runs in comes before what works there: a remove typed in another
	// pane of the worktree's own tmux window would close that pane, and the programs the
	// rules below would name are copse and the shell that started it.
	for _, rule := range []func() *Error{
		func() *Error { return ruleNotMain(t, snap) },
		func() *Error { return s.ruleNotHere(t) },
		func() *Error { return ruleHoldsNoWorktree(t, snap) },
		func() *Error { return ruleDeleteHasBranch(t, r.DeleteBranch) },
		func() *Error { return ruleNotOwnWorkspace(c, s.Backend.Session()) },
	} {
		if e := rule(); e != nil {
			return nil, e
		}
	}
	c.losses = s.losses(ctx, t)
	if t.Prunable == nil {
		c.live = s.Backend.WorkspaceLive(ctx, t.Path, ws)
		if ws != "" && (len(c.live.procs) > 0 || c.live.unknown != "") {
			// One Herdr call, and only when the refusal or the confirmation speaks of
			// processes: a remove with nothing working in it is not slowed down.
			c.live.agent = s.Backend.AgentStatus(ctx, ws, t.Path)
		}
	}
	// A claim whose --run command ended binds nothing (agent_run.go).
	ended := s.claimEnded(t)
	c.unlockFirst = ended && !r.Force
	if !r.Force {
		// Every reason at once, live processes first: a person who fixes one should not
		// meet the next only on the second try.
		lockRule := ruleNotLockedUnlessEnded(t, ended)
		if al, ok := s.agentLockFor(ctx, t); ok {
			lockRule = ruleNotLockedByAgent(t, al)
		}
		if e := allReasons([]*Error{
			ruleNoProcesses(t.Path, Describe(t), c.live),
			lockRule,
			ruleStatusKnown(t, c.losses),
			ruleNoOperation(t, c.losses),
			ruleClean(t, c.losses),
			ruleNoNested(t, c.losses),
			ruleDetachedReachable(t, c.losses),
			ruleNoWorktreeOnlyCommits(t, c.losses),
			ruleSubmodulesPushed(t, c.losses),
			ruleBranchMerged(t, c.losses, r.DeleteBranch),
		}, forceWouldEnd(c.live, ws, s.Backend.ClosesWorkspace(ws))); e != nil {
			return nil, forceHelps(e)
		}
	}
	if r.Force {
		if e := ruleRecordable(t, c.losses); e != nil {
			return nil, e
		}
	}
	// Herdr's rules, which not even --force gets past (the backend's builder checks them
	// again before it runs anything).
	herdrOnly := ruleHerdrNotLocked(c)
	if s.Backend.Name() != "herdr" {
		herdrOnly = nil // git removes a locked worktree in one step (tmux closes the window after)
	}
	if herdrOnly != nil {
		return nil, herdrOnly
	}
	cmds, err := s.Backend.RemoveCommands(c)
	if err != nil {
		return nil, err
	}
	if r.DeleteBranch {
		bd, err := gitx.BranchDelete(s.Root(), t.Branch, true)
		if err != nil {
			return nil, BuilderErr(err)
		}
		cmds = append(cmds, bd.String())
	}
	conf := removeConfirmation(r, t, ws, c.losses, c.live, s.Backend.ClosesWorkspace(ws))
	notices := conf.Notices
	if recordsRemove(c) {
		// Said in the plan (the dry run shows it), not in the confirmation's token: it is
		// how the remove is undone, not something lost, so a notice. The outcome says the
		// record's id instead.
		notices = append(append([]string(nil), notices...),
			"before removing, copse records the worktree (HEAD, index, files, and the commits only it holds) under "+gitx.RemovedRefPrefix+"<id>; `copse restore` brings it back")
	}
	if c.losses.Ignored > 0 {
		// The dry run shows the plan's notices, not the confirmation: it names them too.
		notices = append(append([]string(nil), notices...), "removing it deletes "+c.losses.ignoredNamed()+" (ignored files are not recorded)")
	}
	return &Plan{Request: r, Cmd: c, Commands: cmds, Confirm: conf, Warnings: conf.Warnings, Notices: notices}, nil
}

// removeConfirmation shows the target as it was named, what else identifies it, what
// would be lost and what else happens. --delete-branch is always stated, with what the
// branch holds.
func removeConfirmation(r RemoveRequest, t gitx.Worktree, ws string, l Losses, live liveSet, closes string) *Confirmation {
	conf := &Confirmation{Title: "Remove this worktree?"}
	switch {
	case r.Path != nil:
		conf.Add("path", *r.Path)
	case r.Branch != nil:
		conf.Add("branch", *r.Branch)
	case r.WorkspaceID != nil:
		conf.Add("workspace", *r.WorkspaceID)
	}
	if r.Branch == nil {
		if t.Branch != "" {
			conf.Add("branch", t.Branch)
		} else {
			conf.Add("head", "detached at "+Short(t.Head))
		}
	}
	if r.Path == nil {
		conf.Add("path", t.Path)
	}
	if ws != "" && r.WorkspaceID == nil {
		conf.Add("workspace", ws)
	}
	if r.DeleteBranch {
		// What the branch holds that nothing else does; the loss line below spells it out.
		holds := "no commits only on it"
		if l.Unique > 0 {
			holds = plural(l.Unique, "commit") + " only on it"
		}
		conf.Fields = append(conf.Fields, ConfirmField{Name: "delete branch", Value: Escape(t.Branch) + " at " + Short(t.Head) + ": " + holds})
	}
	if r.Force {
		conf.Fields = append(conf.Fields, ConfirmField{Name: "force", Value: "yes"})
	}
	liveLines := live.lines()
	conf.Losses = append(l.lines(t, r.DeleteBranch), liveLines...)
	// The token holds which programs and panes, not their pids and ages (see liveSet.key).
	conf.showOnly(liveLines, live.tokenKey()...)
	if t.Locked != nil {
		conf.Losses = append(conf.Losses, "the worktree is locked: "+Escape(lockReason(t)))
	}
	if !r.DeleteBranch && l.Unique > 0 {
		// The branch stays, so its commits are not lost: information, not a warning.
		conf.Notices = append(conf.Notices, fmt.Sprintf("branch %s stays, with its %s found on no other branch or remote", Escape(t.Branch), plural(l.Unique, "commit")))
	}
	if ws != "" && closes != "" {
		// The backend closes the workspace on every remove: an agent running there is ended too.
		w := closes
		if len(live.idle) > 0 {
			w += ", among them " + plural(len(live.idle), "idle shell") + " of its panes (pid " + pidList(live.idle) + ")"
		}
		if r.Force {
			w = "forced: " + w + ", even with uncommitted work"
		}
		conf.Warnings = append(conf.Warnings, w)
		if len(live.idle) > 0 {
			conf.showOnly([]string{w}, "closes "+ws+" force "+fmt.Sprint(r.Force))
		}
	}
	return conf
}

func (s *Env) runRemove(ctx context.Context, c *removeCmd, before Snapshot, warnings []string) (*Outcome, error) {
	gone := s.Row(c.target, c.wsID)
	r, err := s.removeOne(ctx, removeStep{target: c.target, record: recordsRemove(c), deleteBranch: c.deleteBranch,
		before: &before.Token, run: func(ctx context.Context) error { return s.Backend.Remove(ctx, c) }})
	if rerr, ok := isReadBack(err); ok {
		return nil, Uncertain(CodeRemoveUnverified, rerr, "run `copse list` to see what exists",
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
			return nil, BuilderErr(err)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
		defer cancel()
		_, delErr := s.Git.Run(rctx, cmd)
		still, err := s.Git.BranchExists(rctx, c.cwd, c.target.Branch)
		if delErr != nil || err != nil || still {
			return nil, Uncertain(CodeBranchNotDeleted, delErr, "delete it by hand: git branch -D "+QuoteDisplay(c.target.Branch),
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
		return Uncertain(CodeRemoveIncomplete, nil, "run `copse list`; git worktree prune forgets a worktree whose directory is gone",
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
			return forceHelps(Refused(CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
				"%s has uncommitted changes", Escape(path)))
		}
		return GitFailure(CodeRemoveFailed, runErr, "git could not remove the worktree")
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
