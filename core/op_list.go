package core

import "context"

// OpList reads every worktree, branch first.
const OpList Operation = "list"

type ListRequest struct {
	Status bool `json:"status,omitempty" doc:"compute uncommitted/ahead/behind status for every worktree"`
}

func (ListRequest) Op() Operation { return OpList }
func (ListRequest) isRequest()    {}

type listCmd struct{ withStatus bool }

func (listCmd) op() Operation { return OpList }

var ListOp = &operation{
	name:     OpList,
	doc:      "list every worktree, branch first",
	approval: ApprovalRead,
	request:  ListRequest{},
	changes:  never,
	prepare: prepareAs(func(_ *service, _ context.Context, r ListRequest, _ snapshot) (*Plan, error) {
		return &Plan{cmd: listCmd{withStatus: r.Status}}, nil
	}),
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		l, err := s.list(ctx, x.plan.cmd.(listCmd).withStatus)
		if err != nil {
			return nil, err
		}
		return &Outcome{Operation: OpList, Listing: l}, nil
	},
}
