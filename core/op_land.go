package core

import "context"

// OpLand lands a worktree's branch onto a target branch through the land queue.
const OpLand Operation = "land"

// LandRequest lands a worktree's branch onto a target branch through the repository's
// FIFO land queue: preflight, rebase, test gate, compare-and-swap advance, clean-up.
type LandRequest struct {
	Path         *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to land"`
	Branch       *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to land"`
	ID           *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to land (list reports it)"`
	Into         *string `json:"into,omitempty" doc:"branch to land onto (default: the branch the worktree was created from, else the main checkout's branch)"`
	Test         *string `json:"test,omitempty" doc:"test gate: a shell command run with sh -c in the worktree (default: git config copse.test); sent in a request, it needs approval"`
	Keep         bool    `json:"keep,omitempty" doc:"keep the worktree and branch after landing"`
	ForceRestart bool    `json:"force_restart,omitempty" doc:"abort a rebase an earlier land of this worktree left open, then start over"`
	Session      *string `json:"session,omitempty" doc:"landing session (default COPSE_SESSION, else the Herdr workspace); a worktree another session claimed is refused unless force_claim"`
	ForceClaim   bool    `json:"force_claim,omitempty" doc:"land a worktree another session claimed, taking over its claim; needs confirmation"`
	Wait         bool    `json:"wait,omitempty" doc:"run the land in this call and reply when it ends; without it the job is queued and its id returned"`
	DryRun       bool    `json:"dry_run,omitempty" doc:"check what the land would refuse on, block on and keep, and list its steps; queue nothing, run nothing (no test gate)"`
	// ExpectedStateToken: when given and the worktree list no longer matches, nothing is queued.
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list; when the worktree list changed since, nothing runs (stale_state)"`
}

func (LandRequest) Op() Operation                 { return OpLand }
func (LandRequest) isRequest()                    {}
func (r LandRequest) expectedStateToken() *string { return r.ExpectedStateToken }

var LandOp = &operation{
	name: OpLand,
	doc: "land a worktree's branch onto a target through the repository's FIFO queue: rebase, test gate, " +
		"fast-forward with compare-and-swap, then remove the worktree and branch (unless keep)",
	approval: ApprovalExecute,
	request:  LandRequest{},
	// A test command in a request is a shell command an agent chose: a person sees it
	// first (a command typed at the CLI or in the picker is not asked again; see
	// WithTypedByPerson). Taking over another session's claim is a person's call too. A
	// dry run runs neither.
	confirms: ruleOf(func(r LandRequest) bool { return !r.DryRun && (r.ForceClaim || r.Test != nil) }),
	changes:  ruleOf(func(r LandRequest) bool { return !r.DryRun }),
	prepare:  prepareAs((*service).prepareLand),
	// Under the lock the job is only queued; the land itself runs in queue order after
	// it, taking the lock for its short critical steps, never while it waits.
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		c := x.plan.cmd.(*landCmd)
		if c.dryRun {
			return s.landDryRun(ctx, c)
		}
		return s.enqueueLand(ctx, c)
	},
	settle: func(s *service, ctx context.Context, x *execution, out *Outcome) (*Outcome, error) {
		return s.awaitLand(ctx, x.plan.cmd.(*landCmd), out)
	},
}
