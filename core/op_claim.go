package core

import "context"

var ClaimOp = &Op{
	Name:     OpClaim,
	Doc:      "claim a worktree for a session (a git worktree lock copse writes); force takes over and needs confirmation",
	Approval: ApprovalExecute,
	Request:  ClaimRequest{},
	// Taking over another session's claim (or a person's lock) is a person's call.
	Confirms: RuleOf(func(r ClaimRequest) bool { return r.Force }),
	Prepare:  PrepareAs((*Env).prepareClaim),
	Run:      runClaimOp,
}

// runClaimOp runs a claim or a release.
func runClaimOp(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
	return s.runClaim(ctx, x.Plan.Cmd.(*claimCmd), x)
}
