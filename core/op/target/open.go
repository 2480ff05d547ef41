package target

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var OpenOp = &core.Op{
	Name:     core.OpOpen,
	Doc:      "open an existing worktree (a Herdr workspace; without Herdr, same as switch)",
	Approval: core.ApprovalExecute,
	Request:  core.OpenRequest{},
	Prepare: core.PrepareAs(func(s *core.Env, ctx context.Context, r core.OpenRequest, snap core.Snapshot) (*core.Plan, error) {
		return prepareTarget(s, ctx, r, core.OpOpen, r.Path, r.Branch, r.Label, r.Focus, snap)
	}),
	Lock: targetLock,
	Run:  runTargetOp,
}
