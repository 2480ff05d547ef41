package core

import "context"

// OpClaim claims a worktree for a session: a git worktree lock copse writes.
const OpClaim Operation = "claim"

type ClaimRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to claim"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to claim"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to claim (copse list --json)"`
	Session            *string `json:"session,omitempty" doc:"claiming session (default COPSE_SESSION, else the Herdr workspace)"`
	Force              bool    `json:"force,omitempty" doc:"take over another session's claim or a lock copse did not write; needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (ClaimRequest) Op() Operation                 { return OpClaim }
func (ClaimRequest) isRequest()                    {}
func (r ClaimRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r ClaimRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}
func (r ClaimRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

var ClaimOp = &operation{
	name:     OpClaim,
	doc:      "claim a worktree for a session (a git worktree lock copse writes); force takes over and needs confirmation",
	approval: ApprovalExecute,
	request:  ClaimRequest{},
	// Taking over another session's claim (or a person's lock) is a person's call.
	confirms: ruleOf(func(r ClaimRequest) bool { return r.Force }),
	prepare:  prepareAs((*service).prepareClaim),
	run:      runClaimOp,
}

// runClaimOp runs a claim or a release.
func runClaimOp(s *service, ctx context.Context, x *execution) (*Outcome, error) {
	return s.runClaim(ctx, x.plan.cmd.(*claimCmd), x)
}
