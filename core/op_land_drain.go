package core

import "context"

// OpLandDrain runs the land jobs nobody is waiting for. It is the smallest operation that
// changes something, and the worked example in docs/dev/operations.md.
const OpLandDrain Operation = "land_drain"

// LandDrainRequest runs every queued land job that no live process waits for, in queue
// order (each was checked, and approved where it had to be, when it was queued).
type LandDrainRequest struct{}

func (LandDrainRequest) Op() Operation { return OpLandDrain }
func (LandDrainRequest) isRequest()    {}

type landDrainCmd struct{}

func (landDrainCmd) op() Operation { return OpLandDrain }

var LandDrainOp = &operation{
	name:     OpLandDrain,
	doc:      "run the queued land jobs nobody waits for, in queue order; the reply lists the jobs it ran",
	approval: ApprovalExecute,
	request:  LandDrainRequest{},
	// Each job takes the repository lock for its own short steps, in queue order.
	lock: func(*service, command) lockKind { return lockQueue },
	prepare: prepareAs(func(*service, context.Context, LandDrainRequest, snapshot) (*Plan, error) {
		return &Plan{cmd: landDrainCmd{}}, nil
	}),
	run: func(s *service, ctx context.Context, _ *execution) (*Outcome, error) {
		return s.drainLand(ctx)
	},
}
