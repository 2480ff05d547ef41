package land

import (
	"context"

	"github.com/copse-dev/copse/core"
)

// 0 = every job

var LandStatusOp = &core.Op{
	Name:     core.OpLandStatus,
	Doc:      "read land jobs: one by id, or all of the repository's jobs",
	Approval: core.ApprovalRead,
	Request:  core.LandStatusRequest{},
	Changes:  core.No,
	Prepare: core.PrepareAs(func(_ *core.Env, _ context.Context, r core.LandStatusRequest, _ core.Snapshot) (*core.Plan, error) {
		c := core.LandStatusSpec{}
		if r.Job != nil {
			t, err := core.ParseJobID(*r.Job)
			if err != nil {
				return nil, err
			}
			c.Ticket = t
		}
		return &core.Plan{Cmd: c}, nil
	}),
	Run: func(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
		return s.LandStatus(ctx, x.Plan.Cmd.(core.LandStatusSpec))
	},
}
