// Package list is the list operation: every worktree, branch first, with its status when
// asked. It changes nothing, so it runs on its plan as made, without a lock.
package list

import (
	"context"

	"github.com/copse-dev/copse/core"
)

type listCmd struct{ withStatus bool }

// Op is the list operation.
var Op = &core.Op{
	Name:     core.OpList,
	Doc:      "list every worktree, branch first",
	Approval: core.ApprovalRead,
	Request:  core.ListRequest{},
	Changes:  core.No,
	Prepare: core.PrepareAs(func(_ *core.Env, _ context.Context, r core.ListRequest, _ core.Snapshot) (*core.Plan, error) {
		return &core.Plan{Cmd: listCmd{withStatus: r.Status}}, nil
	}),
	Run: func(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
		l, err := s.List(ctx, x.Plan.Cmd.(listCmd).withStatus)
		if err != nil {
			return nil, err
		}
		return &core.Outcome{Operation: core.OpList, Listing: l}, nil
	},
}
