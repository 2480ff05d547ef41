package core

import "context"

var PruneOp = &Op{
	Name:     OpPrune,
	Doc:      "remove idle, clean, unclaimed worktrees with nothing unique, and forget those whose directory is gone; asks unless dry_run",
	Approval: ApprovalDestructive,
	Request:  PruneRequest{},
	// A person sees the list of what goes; a dry run only shows it.
	Confirms: RuleOf(func(r PruneRequest) bool { return !r.DryRun }),
	// A dry run takes no lock and makes no lock file: it only reads.
	Changes: RuleOf(func(r PruneRequest) bool { return !r.DryRun }),
	Prepare: PrepareAs((*Env).preparePrune),
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		return s.runPrune(ctx, x.Plan.Cmd.(*pruneCmd), x)
	},
}
