package core

import "context"

var OpenOp = &Op{
	Name:     OpOpen,
	Doc:      "open an existing worktree (a Herdr workspace; without Herdr, same as switch)",
	Approval: ApprovalExecute,
	Request:  OpenRequest{},
	Prepare: PrepareAs(func(s *Env, ctx context.Context, r OpenRequest, snap Snapshot) (*Plan, error) {
		return s.prepareTarget(ctx, r, OpOpen, r.Path, r.Branch, r.Label, r.Focus, snap)
	}),
	Lock: targetLock,
	Run:  runTargetOp,
}
