package target

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var SwitchOp = &core.Op{
	Name:     core.OpSwitch,
	Doc:      "switch to an existing worktree",
	Approval: core.ApprovalExecute,
	Request:  core.SwitchRequest{},
	Prepare: core.PrepareAs(func(s *core.Env, ctx context.Context, r core.SwitchRequest, snap core.Snapshot) (*core.Plan, error) {
		return prepareTarget(s, ctx, r, core.OpSwitch, r.Path, r.Branch, nil, true, snap)
	}),
	Lock: targetLock,
	Run:  runTargetOp,
}

// targetLock: a switch, back or open without workspaces changes nothing in git. It waits
// for a holder like any request, but never creates the lock file (read-only commands
// leave no trace in the repository).
func targetLock(s *core.Env, _ core.Command) core.LockKind {
	if s.Backend.HasWorkspaces() {
		return core.LockRepo
	}
	return core.LockWaitOnly
}

// runTargetOp runs open, switch and back.
func runTargetOp(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
	c := x.Plan.Cmd.(*core.TargetSpec)
	return runTarget(s, ctx, c, x.Warnings())
}

func prepareTarget(s *core.Env, ctx context.Context, req core.Request, op core.Operation, path, branch, rawLabel *string, focus bool, snap core.Snapshot) (*core.Plan, error) {
	t, ws, err := s.ResolveTarget(ctx, snap, path, branch, nil)
	if err != nil && branch != nil {
		if b, berr := s.ParseBranch(ctx, "branch", *branch); berr == nil {
			err = core.CreateOffered(err, snap.Trees, b.String())
		}
	}
	if err != nil {
		return nil, err
	}
	c := &core.TargetSpec{Operation: op, Target: t, WsID: ws, Focus: focus, Cwd: s.Root(), From: s.SessionAt()}
	var warnings []string
	if rawLabel != nil {
		if c.Label, err = core.ParseLabel(*rawLabel); err != nil {
			return nil, err
		}
	}
	if !s.Backend.HasWorkspaces() && op == core.OpOpen && (rawLabel != nil || focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if err := core.CheckEnterable(t); err != nil {
		return nil, err
	}
	if e := core.RuleNotAlreadyThere(op, s.Backend.HasWorkspaces(), c.From, t); e != nil {
		return nil, e
	}
	warnings = append(warnings, s.LeavingWarning(ctx, c)...)
	var cmds []string
	if op == core.OpOpen {
		cmds, err = s.Backend.OpenCommands(c)
	} else {
		cmds, err = s.Backend.SwitchCommands(c)
	}
	if err != nil {
		return nil, err
	}
	return &core.Plan{Request: req, Cmd: c, Commands: cmds, Warnings: warnings}, nil
}

func runTarget(s *core.Env, ctx context.Context, c *core.TargetSpec, warnings []string) (*core.Outcome, error) {
	var (
		ws  string
		err error
	)
	if c.Operation == core.OpOpen {
		ws, err = s.Backend.Open(ctx, c)
	} else {
		ws, err = s.Backend.SwitchTo(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	if ws == "" {
		ws = c.WsID
	}
	if c.Operation == core.OpBack {
		s.History.Previous(s.Session, func(p string) bool { return core.Canonical(p) == core.Canonical(c.Target.Path) || false })
	} else if c.Operation == core.OpSwitch || !s.Backend.HasWorkspaces() {
		s.History.Visit(s.Session, c.From)
	}
	if c.Operation != core.OpOpen || !s.Backend.HasWorkspaces() {
		s.SetSessionAt(c.Target.Path)
	}
	s.MarkAgentsRead(c.Target.Path) // a done agent there has now been seen
	dest := c.Target.Path
	if c.Operation == core.OpBack {
		dest = s.BackDir(c.Target.Path)
	}
	return &core.Outcome{Operation: c.Operation, Worktree: s.Row(c.Target, ws), Path: dest, WorkspaceID: ws, Warnings: warnings}, nil
}
