package remove

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var PruneOp = &core.Op{
	Name:     core.OpPrune,
	Doc:      "remove idle, clean, unclaimed worktrees with nothing unique, and forget those whose directory is gone; asks unless dry_run",
	Approval: core.ApprovalDestructive,
	Request:  core.PruneRequest{},
	// A person sees the list of what goes; a dry run only shows it.
	Confirms: core.RuleOf(func(r core.PruneRequest) bool { return !r.DryRun }),
	// A dry run takes no lock and makes no lock file: it only reads.
	Changes: core.RuleOf(func(r core.PruneRequest) bool { return !r.DryRun }),
	Prepare: core.PrepareAs(preparePrune),
	Run: func(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
		return runPrune(s, ctx, x.Plan.Cmd.(*pruneCmd), x)
	},
}
