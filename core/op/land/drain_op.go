package land

import (
	"context"

	"github.com/copse-dev/copse/core"
)

type landDrainCmd struct{}

var LandDrainOp = &core.Op{
	Name:     core.OpLandDrain,
	Doc:      "run the queued land jobs nobody waits for, in queue order; the reply lists the jobs it ran",
	Approval: core.ApprovalExecute,
	Request:  core.LandDrainRequest{},
	// Each job takes the repository lock for its own short steps, in queue order.
	Lock: func(*core.Env, core.Command) core.LockKind { return core.LockQueue },
	Prepare: core.PrepareAs(func(*core.Env, context.Context, core.LandDrainRequest, core.Snapshot) (*core.Plan, error) {
		return &core.Plan{Cmd: landDrainCmd{}}, nil
	}),
	Run: func(s *core.Env, ctx context.Context, _ *core.Execution) (*core.Outcome, error) {
		return drainLand(s, ctx)
	},
}
