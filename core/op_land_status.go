package core

import "context"

type landStatusCmd struct{ ticket int64 } // 0 = every job

var LandStatusOp = &Op{
	Name:     OpLandStatus,
	Doc:      "read land jobs: one by id, or all of the repository's jobs",
	Approval: ApprovalRead,
	Request:  LandStatusRequest{},
	Changes:  No,
	Prepare: PrepareAs(func(_ *Env, _ context.Context, r LandStatusRequest, _ Snapshot) (*Plan, error) {
		c := landStatusCmd{}
		if r.Job != nil {
			t, err := ParseJobID(*r.Job)
			if err != nil {
				return nil, err
			}
			c.ticket = t
		}
		return &Plan{Cmd: c}, nil
	}),
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		return s.landStatus(ctx, x.Plan.Cmd.(landStatusCmd))
	},
}
