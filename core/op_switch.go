package core

import "context"

// OpSwitch moves the session to an existing worktree.
const OpSwitch Operation = "switch"

type SwitchRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of an existing worktree"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of an existing worktree"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of an existing worktree (copse list --json)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (SwitchRequest) Op() Operation                 { return OpSwitch }
func (SwitchRequest) isRequest()                    {}
func (r SwitchRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r SwitchRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}
func (r SwitchRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

var SwitchOp = &operation{
	name:     OpSwitch,
	doc:      "switch to an existing worktree",
	approval: ApprovalExecute,
	request:  SwitchRequest{},
	prepare: prepareAs(func(s *service, ctx context.Context, r SwitchRequest, snap snapshot) (*Plan, error) {
		return s.prepareTarget(ctx, r, OpSwitch, r.Path, r.Branch, nil, true, snap)
	}),
	lock: targetLock,
	run:  runTargetOp,
}

// targetLock: a switch, back or open without workspaces changes nothing in git. It waits
// for a holder like any request, but never creates the lock file (read-only commands
// leave no trace in the repository).
func targetLock(s *service, _ command) lockKind {
	if s.backend.hasWorkspaces() {
		return lockRepo
	}
	return lockWaitOnly
}

// runTargetOp runs open, switch and back.
func runTargetOp(s *service, ctx context.Context, x *execution) (*Outcome, error) {
	c := x.plan.cmd.(*targetCmd)
	return s.runTarget(ctx, c, x.warnings())
}

func (s *service) prepareTarget(ctx context.Context, req Request, op Operation, path, branch, rawLabel *string, focus bool, snap snapshot) (*Plan, error) {
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
	return &Plan{Request: req, cmd: c, Commands: cmds, Warnings: warnings}, nil
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
	s.markAgentsRead(c.target.Path) // a done agent there has now been seen
	dest := c.target.Path
	if c.operation == OpBack {
		dest = s.backDir(c.target.Path)
	}
	return &Outcome{Operation: c.operation, Worktree: s.row(c.target, ws), Path: dest, WorkspaceID: ws, Warnings: warnings}, nil
}
