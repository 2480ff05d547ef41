package claim

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var ClaimOp = &core.Op{
	Name:     core.OpClaim,
	Doc:      "claim a worktree for a session (a git worktree lock copse writes); force takes over and needs confirmation",
	Approval: core.ApprovalExecute,
	Request:  core.ClaimRequest{},
	// Taking over another session's claim (or a person's lock) is a person's call.
	Confirms: core.RuleOf(func(r core.ClaimRequest) bool { return r.Force }),
	Prepare:  core.PrepareAs(prepareClaim),
	Run:      runClaimOp,
}

// runClaimOp runs a claim or a release.
func runClaimOp(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
	return runClaim(s, ctx, x.Plan.Cmd.(*core.ClaimSpec), x)
}
