package land

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var LandOp = &core.Op{
	Name: core.OpLand,
	Doc: "land a worktree's branch onto a target through the repository's FIFO queue: rebase, test gate, " +
		"fast-forward with compare-and-swap, then remove the worktree and branch (unless keep)",
	Approval: core.ApprovalExecute,
	Request:  core.LandRequest{},
	// A test command in a request is a shell command an agent chose: a person sees it
	// first (a command typed at the CLI or in the picker is not asked again; see
	// WithTypedByPerson). Taking over another session's claim is a person's call too. A
	// dry run runs neither.
	Confirms: core.RuleOf(func(r core.LandRequest) bool { return !r.DryRun && (r.ForceClaim || r.Test != nil) }),
	Changes:  core.RuleOf(func(r core.LandRequest) bool { return !r.DryRun }),
	Prepare:  core.PrepareAs(prepareLand),
	// Under the lock the job is only queued; the land itself runs in queue order after
	// it, with no lock held while it waits, each of the job's own locked steps through
	// Critical.
	Phases: []core.Phase{
		{Name: "enqueue", Locked: true, Run: func(s *core.Env, ctx context.Context, x *core.Execution, _ *core.Outcome) (*core.Outcome, error) {
			c := x.Plan.Cmd.(*landCmd)
			if c.dryRun {
				return landDryRun(s, ctx, c)
			}
			return enqueueLand(s, ctx, c)
		}},
		{Name: "turn", Run: func(s *core.Env, ctx context.Context, x *core.Execution, out *core.Outcome) (*core.Outcome, error) {
			c := x.Plan.Cmd.(*landCmd)
			if c.dryRun {
				return out, nil
			}
			return awaitLand(s, ctx, c, out)
		}},
	},
}
