package core

import "context"

// OpLandStatus reads land job records.
const OpLandStatus Operation = "land_status"

// LandStatusRequest reads land job records: one job, or every job of the repository.
type LandStatusRequest struct {
	Job *string `json:"job,omitempty" doc:"job id (e.g. land-7); all jobs when absent"`
}

func (LandStatusRequest) Op() Operation { return OpLandStatus }
func (LandStatusRequest) isRequest()    {}

type landStatusCmd struct{ ticket int64 } // 0 = every job

func (landStatusCmd) op() Operation { return OpLandStatus }

var LandStatusOp = &operation{
	name:     OpLandStatus,
	doc:      "read land jobs: one by id, or all of the repository's jobs",
	approval: ApprovalRead,
	request:  LandStatusRequest{},
	changes:  never,
	prepare: prepareAs(func(_ *service, _ context.Context, r LandStatusRequest, _ snapshot) (*Plan, error) {
		c := landStatusCmd{}
		if r.Job != nil {
			t, err := ParseJobID(*r.Job)
			if err != nil {
				return nil, err
			}
			c.ticket = t
		}
		return &Plan{cmd: c}, nil
	}),
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		return s.landStatus(ctx, x.plan.cmd.(landStatusCmd))
	},
}
