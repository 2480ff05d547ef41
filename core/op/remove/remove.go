package remove

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
)

var RemoveOp = &core.Op{
	Name:     core.OpRemove,
	Doc:      "remove a worktree (always needs a human's confirmation)",
	Approval: core.ApprovalDestructive,
	Request:  core.RemoveRequest{},
	Confirms: core.Yes,
	Prepare:  core.PrepareAs(prepareRemove),
	Run: func(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
		out, err := runRemove(s, ctx, x.Plan.Cmd.(*core.RemoveSpec), x.Before, x.Warnings())
		if err != nil {
			return out, err
		}
		if x.Plan.Confirm != nil {
			// What the confirmation told (the branch stays, with its commits); the plan's
			// own notice about recording is answered by the outcome's restore id.
			out.Notices = x.Plan.Confirm.Notices
		}
		if l := x.Plan.Cmd.(*core.RemoveSpec).Losses; l.Ignored > 0 {
			// Deleted with it, as the confirmation said: the result says which (no record keeps them).
			out.Notices = append(append([]string(nil), out.Notices...), "deleted with it: "+l.IgnoredNamed()+" (ignored files are not recorded)")
		}
		x.Emit(core.Event{Event: core.EventRemoved, Commit: out.Worktree.Head, BranchDeleted: out.BranchDeleted}, out.Worktree)
		return out, nil
	},
}

func prepareRemove(s *core.Env, ctx context.Context, r core.RemoveRequest, snap core.Snapshot) (*core.Plan, error) {
	t, ws, err := s.ResolveTarget(ctx, snap, r.Path, r.Branch, r.WorkspaceID)
	if err != nil {
		return nil, err
	}
	c := &core.RemoveSpec{Target: t, WsID: ws, Force: r.Force, DeleteBranch: r.DeleteBranch, Cwd: s.Root()}
	// Rules that nothing gets past, then the ones --force gets past; each names what it
	// protects and how to proceed.
	// The workspace copse runs in comes before what works there: a remove typed in another
	// pane of the worktree's own tmux window would close that pane, and the programs the
	// rules below would name are copse and the shell that started it.
	for _, rule := range []func() *core.Error{
		func() *core.Error { return core.RuleNotMain(t, snap) },
		func() *core.Error { return s.RuleNotHere(t) },
		func() *core.Error { return core.RuleHoldsNoWorktree(t, snap) },
		func() *core.Error { return core.RuleDeleteHasBranch(t, r.DeleteBranch) },
		func() *core.Error { return core.RuleNotOwnWorkspace(c, s.Backend.Session()) },
	} {
		if e := rule(); e != nil {
			return nil, e
		}
	}
	c.Losses = removal.Losses(s, ctx, t)
	if t.Prunable == nil {
		c.Live = s.Backend.WorkspaceLive(ctx, t.Path, ws)
		if ws != "" && (len(c.Live.Procs) > 0 || c.Live.Unknown != "") {
			// One Herdr call, and only when the refusal or the confirmation speaks of
			// processes: a remove with nothing working in it is not slowed down.
			c.Live.Agent = s.Backend.AgentStatus(ctx, ws, t.Path)
		}
	}
	// A claim whose --run command ended binds nothing (agent_run.go).
	ended := s.ClaimEnded(t)
	c.UnlockFirst = ended && !r.Force
	if !r.Force {
		// Every reason at once, live processes first: a person who fixes one should not
		// meet the next only on the second try.
		lockRule := core.RuleNotLockedUnlessEnded(t, ended)
		if al, ok := s.AgentLockFor(ctx, t); ok {
			lockRule = core.RuleNotLockedByAgent(t, al)
		}
		if e := core.AllReasons([]*core.Error{
			core.RuleNoProcesses(t.Path, core.Describe(t), c.Live),
			lockRule,
			core.RuleStatusKnown(t, c.Losses),
			core.RuleNoOperation(t, c.Losses),
			core.RuleClean(t, c.Losses),
			core.RuleNoNested(t, c.Losses),
			core.RuleDetachedReachable(t, c.Losses),
			core.RuleNoWorktreeOnlyCommits(t, c.Losses),
			core.RuleSubmodulesPushed(t, c.Losses),
			core.RuleBranchMerged(t, c.Losses, r.DeleteBranch),
		}, core.ForceWouldEnd(c.Live, ws, s.Backend.ClosesWorkspace(ws))); e != nil {
			return nil, core.ForceHelps(e)
		}
	}
	if r.Force {
		if e := core.RuleRecordable(t, c.Losses); e != nil {
			return nil, e
		}
	}
	// Herdr's rules, which not even --force gets past (the backend's builder checks them
	// again before it runs anything).
	herdrOnly := core.RuleHerdrNotLocked(c)
	if s.Backend.RemovesLocked() {
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
			return nil, core.BuilderErr(err)
		}
		cmds = append(cmds, bd.String())
	}
	conf := removeConfirmation(r, t, ws, c.Losses, c.Live, s.Backend.ClosesWorkspace(ws))
	notices := conf.Notices
	if removal.RecordsRemove(c) {
		// Said in the plan (the dry run shows it), not in the confirmation's token: it is
		// how the remove is undone, not something lost, so a notice. The outcome says the
		// record's id instead.
		notices = append(append([]string(nil), notices...),
			"before removing, copse records the worktree (HEAD, index, files, and the commits only it holds) under "+gitx.RemovedRefPrefix+"<id>; `copse restore` brings it back")
	}
	if c.Losses.Ignored > 0 {
		// The dry run shows the plan's notices, not the confirmation: it names them too.
		notices = append(append([]string(nil), notices...), "removing it deletes "+c.Losses.IgnoredNamed()+" (ignored files are not recorded)")
	}
	return &core.Plan{Request: r, Cmd: c, Commands: cmds, Confirm: conf, Warnings: conf.Warnings, Notices: notices}, nil
}

// removeConfirmation shows the target as it was named, what else identifies it, what
// would be lost and what else happens. --delete-branch is always stated, with what the
// branch holds.
func removeConfirmation(r core.RemoveRequest, t gitx.Worktree, ws string, l core.Losses, live core.LiveSet, closes string) *core.Confirmation {
	conf := &core.Confirmation{Title: "Remove this worktree?"}
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
			conf.Add("head", "detached at "+core.Short(t.Head))
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
			holds = core.Plural(l.Unique, "commit") + " only on it"
		}
		conf.Fields = append(conf.Fields, core.ConfirmField{Name: "delete branch", Value: core.Escape(t.Branch) + " at " + core.Short(t.Head) + ": " + holds})
	}
	if r.Force {
		conf.Fields = append(conf.Fields, core.ConfirmField{Name: "force", Value: "yes"})
	}
	liveLines := live.Lines()
	conf.Losses = append(l.Lines(t, r.DeleteBranch), liveLines...)
	// The token holds which programs and panes, not their pids and ages (see liveSet.key).
	conf.ShowOnly(liveLines, live.TokenKey()...)
	if t.Locked != nil {
		conf.Losses = append(conf.Losses, "the worktree is locked: "+core.Escape(core.LockReason(t)))
	}
	if !r.DeleteBranch && l.Unique > 0 {
		// The branch stays, so its commits are not lost: information, not a warning.
		conf.Notices = append(conf.Notices, fmt.Sprintf("branch %s stays, with its %s found on no other branch or remote", core.Escape(t.Branch), core.Plural(l.Unique, "commit")))
	}
	if ws != "" && closes != "" {
		// The backend closes the workspace on every remove: an agent running there is ended too.
		w := closes
		if len(live.Idle) > 0 {
			w += ", among them " + core.Plural(len(live.Idle), "idle shell") + " of its panes (pid " + core.PidList(live.Idle) + ")"
		}
		if r.Force {
			w = "forced: " + w + ", even with uncommitted work"
		}
		conf.Warnings = append(conf.Warnings, w)
		if len(live.Idle) > 0 {
			conf.ShowOnly([]string{w}, "closes "+ws+" force "+fmt.Sprint(r.Force))
		}
	}
	return conf
}

func runRemove(s *core.Env, ctx context.Context, c *core.RemoveSpec, before core.Snapshot, warnings []string) (*core.Outcome, error) {
	gone := s.Row(c.Target, c.WsID)
	r, err := removal.RemoveOne(s, ctx, removal.RemoveStep{Target: c.Target, Record: removal.RecordsRemove(c), DeleteBranch: c.DeleteBranch,
		Before: &before.Token, Run: func(ctx context.Context) error { return s.Backend.Remove(ctx, c) }})
	if rerr, ok := removal.IsReadBack(err); ok {
		return nil, core.Uncertain(core.CodeRemoveUnverified, rerr, "run `copse list` to see what exists",
			"remove of %s ran, but the worktree list could not be read back", core.Escape(c.Target.Path))
	}
	if err != nil {
		return nil, err
	}
	if err := removeFailure(c.Target.Path, r); err != nil {
		return nil, err
	}
	saved := r.Saved
	out := &core.Outcome{Operation: core.OpRemove, Worktree: gone, Path: c.Target.Path, WorkspaceID: c.WsID, Warnings: warnings}
	if saved != nil {
		out.RestoreID = saved.ID
	}
	if c.DeleteBranch {
		cmd, err := gitx.BranchDelete(c.Cwd, c.Target.Branch, true)
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
		defer cancel()
		_, delErr := s.Git.Run(rctx, cmd)
		still, err := s.Git.BranchExists(rctx, c.Cwd, c.Target.Branch)
		if delErr != nil || err != nil || still {
			return nil, core.Uncertain(core.CodeBranchNotDeleted, delErr, "delete it by hand: git branch -D "+core.QuoteDisplay(c.Target.Branch),
				"the worktree %s was removed, but branch %s could not be deleted", core.Escape(c.Target.Path), core.Escape(c.Target.Branch))
		}
		out.BranchDeleted = true
	}
	return out, nil
}

// removeFailure is remove's error for a removal that did not simply succeed (nil when it
// did): a refusal when nothing was removed, else what is left, uncertain.
func removeFailure(path string, r removal.Removal) error {
	runErr := r.RunErr
	switch r.Verdict {
	case removal.RemovalDone:
		return nil
	case removal.RemovalIncomplete:
		return core.Uncertain(core.CodeRemoveIncomplete, nil, "run `copse list`; git worktree prune forgets a worktree whose directory is gone",
			"%s", removal.RemoveState(path, r.Listed, r.OnDisk))
	case removal.RemovalNothing:
		if e := core.AsError(runErr); e.Kind == core.KindUncertain {
			return e
		}
		if removal.CancelledRun(runErr) {
			return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: runErr,
				Message: "remove of " + core.Escape(path) + " cancelled; nothing was removed"}
		}
		var e *core.Error
		if errors.As(runErr, &e) {
			return e
		}
		var ge *gitx.Error
		if errors.As(runErr, &ge) && strings.Contains(ge.Stderr, "contains modified or untracked files") {
			return core.ForceHelps(core.Refused(core.CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
				"%s has uncommitted changes", core.Escape(path)))
		}
		return core.GitFailure(core.CodeRemoveFailed, runErr, "git could not remove the worktree")
	}
	if e := core.AsError(runErr); e.Kind == core.KindUncertain {
		return e
	}
	kind := core.KindUncertain
	if removal.CancelledRun(runErr) {
		kind = core.KindCancelled
	}
	return &core.Error{Kind: kind, Code: core.CodeRemoveInterrupted, Err: runErr,
		Message: removal.RemoveState(path, r.Listed, r.OnDisk), Hint: "run `copse list`; git worktree prune forgets a worktree whose directory is gone"}
}
