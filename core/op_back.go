package core

import "context"

var BackOp = &Op{
	Name:     OpBack,
	Doc:      "return to the previous worktree of this session",
	Approval: ApprovalExecute,
	Request:  BackRequest{},
	Prepare:  PrepareAs((*Env).prepareBack),
	Lock:     targetLock,
	Run:      runTargetOp,
}

func (s *Env) prepareBack(ctx context.Context, r BackRequest, snap Snapshot) (*Plan, error) {
	prev, ok := s.history.lookup(s.session, s.existsIn(snap))
	if e := ruleHasPrevious(ok); e != nil {
		return nil, e
	}
	p, err := s.prepareTarget(ctx, r, OpBack, &prev, nil, nil, true, snap)
	if err != nil {
		return nil, err
	}
	return p, nil
}
