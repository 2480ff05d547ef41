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
	Prepare: core.PrepareAs(func(*core.Env, context.Context, core.LandDrainRequest, core.Snapshot) (*core.Plan, error) {
		return &core.Plan{Cmd: landDrainCmd{}}, nil
	}),
	// No locked phase: the engine takes no lock and prepares nothing again; each job
	// takes the repository lock for its own short steps (Critical), in queue order.
	Phases: []core.Phase{{Name: "drain", Run: func(s *core.Env, ctx context.Context, _ *core.Execution, _ *core.Outcome) (*core.Outcome, error) {
		return drainLand(s, ctx)
	}}},
}
