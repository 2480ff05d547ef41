package core

import "context"

var SwitchOp = &Op{
	Name:     OpSwitch,
	Doc:      "switch to an existing worktree",
	Approval: ApprovalExecute,
	Request:  SwitchRequest{},
	Prepare: PrepareAs(func(s *Env, ctx context.Context, r SwitchRequest, snap Snapshot) (*Plan, error) {
		return s.prepareTarget(ctx, r, OpSwitch, r.Path, r.Branch, nil, true, snap)
	}),
	Lock: targetLock,
	Run:  runTargetOp,
}

// targetLock: a switch, back or open without workspaces changes nothing in git. It waits
// for a holder like any request, but never creates the lock file (read-only commands
// leave no trace in the repository).
func targetLock(s *Env, _ Command) LockKind {
	if s.backend.hasWorkspaces() {
		return LockRepo
	}
	return LockWaitOnly
}

// runTargetOp runs open, switch and back.
func runTargetOp(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
	c := x.Plan.Cmd.(*targetCmd)
	return s.runTarget(ctx, c, x.Warnings())
}

func (s *Env) prepareTarget(ctx context.Context, req Request, op Operation, path, branch, rawLabel *string, focus bool, snap Snapshot) (*Plan, error) {
	t, ws, err := s.resolveTarget(ctx, snap, path, branch, nil)
	if err != nil && branch != nil {
		if b, berr := s.parseBranch(ctx, "branch", *branch); berr == nil {
			err = createOffered(err, snap.trees, b.s)
		}
	}
	if err != nil {
		return nil, err
	}
	c := &targetCmd{operation: op, target: t, wsID: ws, focus: focus, cwd: s.root(), from: s.sessionAt()}
	var warnings []string
	if rawLabel != nil {
		if c.label, err = ParseLabel(*rawLabel); err != nil {
			return nil, err
		}
	}
	if !s.backend.hasWorkspaces() && op == OpOpen && (rawLabel != nil || focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if err := checkEnterable(t); err != nil {
		return nil, err
	}
	if e := ruleNotAlreadyThere(op, s.backend.hasWorkspaces(), c.from, t); e != nil {
		return nil, e
	}
	warnings = append(warnings, s.leavingWarning(ctx, c)...)
	var cmds []string
	if op == OpOpen {
		cmds, err = s.backend.openCommands(c)
	} else {
		cmds, err = s.backend.switchCommands(c)
	}
	if err != nil {
		return nil, err
	}
	return &Plan{Request: req, Cmd: c, Commands: cmds, Warnings: warnings}, nil
}

func (s *Env) runTarget(ctx context.Context, c *targetCmd, warnings []string) (*Outcome, error) {
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
	s.markAgentsRead(c.target.Path) // a done agent there has now been seen
	dest := c.target.Path
	if c.operation == OpBack {
		dest = s.backDir(c.target.Path)
	}
	return &Outcome{Operation: c.operation, Worktree: s.row(c.target, ws), Path: dest, WorkspaceID: ws, Warnings: warnings}, nil
}
