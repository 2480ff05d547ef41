package core

import "context"

type landDrainCmd struct{}

var LandDrainOp = &Op{
	Name:     OpLandDrain,
	Doc:      "run the queued land jobs nobody waits for, in queue order; the reply lists the jobs it ran",
	Approval: ApprovalExecute,
	Request:  LandDrainRequest{},
	// Each job takes the repository lock for its own short steps, in queue order.
	Lock: func(*Env, Command) LockKind { return LockQueue },
	Prepare: PrepareAs(func(*Env, context.Context, LandDrainRequest, Snapshot) (*Plan, error) {
		return &Plan{Cmd: landDrainCmd{}}, nil
	}),
	Run: func(s *Env, ctx context.Context, _ *Execution) (*Outcome, error) {
		return s.drainLand(ctx)
	},
}
