package core

import "context"

var LandOp = &Op{
	Name: OpLand,
	Doc: "land a worktree's branch onto a target through the repository's FIFO queue: rebase, test gate, " +
		"fast-forward with compare-and-swap, then remove the worktree and branch (unless keep)",
	Approval: ApprovalExecute,
	Request:  LandRequest{},
	// A test command in a request is a shell command an agent chose: a person sees it
	// first (a command typed at the CLI or in the picker is not asked again; see
	// WithTypedByPerson). Taking over another session's claim is a person's call too. A
	// dry run runs neither.
	Confirms: RuleOf(func(r LandRequest) bool { return !r.DryRun && (r.ForceClaim || r.Test != nil) }),
	Changes:  RuleOf(func(r LandRequest) bool { return !r.DryRun }),
	Prepare:  PrepareAs((*Env).prepareLand),
	// Under the lock the job is only queued; the land itself runs in queue order after
	// it, taking the lock for its short critical steps, never while it waits.
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		c := x.Plan.Cmd.(*landCmd)
		if c.dryRun {
			return s.landDryRun(ctx, c)
		}
		return s.enqueueLand(ctx, c)
	},
	Settle: func(s *Env, ctx context.Context, x *Execution, out *Outcome) (*Outcome, error) {
		return s.awaitLand(ctx, x.Plan.Cmd.(*landCmd), out)
	},
}
