package core

import "context"

// OpBack returns the session to the worktree it was in before.
const OpBack Operation = "back"

type BackRequest struct {
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (BackRequest) Op() Operation                 { return OpBack }
func (BackRequest) isRequest()                    {}
func (r BackRequest) expectedStateToken() *string { return r.ExpectedStateToken }

var BackOp = &operation{
	name:     OpBack,
	doc:      "return to the previous worktree of this session",
	approval: ApprovalExecute,
	request:  BackRequest{},
	prepare:  prepareAs((*service).prepareBack),
	lock:     targetLock,
	run:      runTargetOp,
}

func (s *service) prepareBack(ctx context.Context, r BackRequest, snap snapshot) (*Plan, error) {
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
