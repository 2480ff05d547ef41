package core

import "context"

type listCmd struct{ withStatus bool }

func (listCmd) op() Operation { return OpList }

var ListOp = &Op{
	Name:     OpList,
	Doc:      "list every worktree, branch first",
	Approval: ApprovalRead,
	Request:  ListRequest{},
	Changes:  No,
	Prepare: PrepareAs(func(_ *Env, _ context.Context, r ListRequest, _ Snapshot) (*Plan, error) {
		return &Plan{Cmd: listCmd{withStatus: r.Status}}, nil
	}),
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		l, err := s.list(ctx, x.Plan.Cmd.(listCmd).withStatus)
		if err != nil {
			return nil, err
		}
		return &Outcome{Operation: OpList, Listing: l}, nil
	},
}
