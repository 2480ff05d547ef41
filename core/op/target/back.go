package target

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var BackOp = &core.Op{
	Name:     core.OpBack,
	Doc:      "return to the previous worktree of this session",
	Approval: core.ApprovalExecute,
	Request:  core.BackRequest{},
	Prepare:  core.PrepareAs(prepareBack),
	Lock:     targetLock,
	Run:      runTargetOp,
}

func prepareBack(s *core.Env, ctx context.Context, r core.BackRequest, snap core.Snapshot) (*core.Plan, error) {
	prev, ok := s.History.Lookup(s.Session, s.ExistsIn(snap))
	if e := core.RuleHasPrevious(ok); e != nil {
		return nil, e
	}
	p, err := prepareTarget(s, ctx, r, core.OpBack, &prev, nil, nil, true, snap)
	if err != nil {
		return nil, err
	}
	return p, nil
}
