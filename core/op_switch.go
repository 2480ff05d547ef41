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

var switchOp = &operation{
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
	return s.runTarget(ctx, x.plan.cmd.(*targetCmd), x.warnings())
}
