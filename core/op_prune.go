package core

import "context"

// OpPrune removes idle worktrees with nothing to lose and forgets vanished ones.
const OpPrune Operation = "prune"

type PruneRequest struct {
	DryRun             bool    `json:"dry_run,omitempty" doc:"list what would be removed and what is kept, and why; change nothing"`
	OlderThan          *string `json:"older_than,omitempty" doc:"idle time before a worktree may go, e.g. 72h or 3d (default git config copse.pruneAfter, else 72h)"`
	DeleteBranch       bool    `json:"delete_branch,omitempty" doc:"also delete the branches of removed worktrees (they hold no unique commits)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (PruneRequest) Op() Operation                 { return OpPrune }
func (PruneRequest) isRequest()                    {}
func (r PruneRequest) expectedStateToken() *string { return r.ExpectedStateToken }

var PruneOp = &operation{
	name:     OpPrune,
	doc:      "remove idle, clean, unclaimed worktrees with nothing unique, and forget those whose directory is gone; asks unless dry_run",
	approval: ApprovalDestructive,
	request:  PruneRequest{},
	// A person sees the list of what goes; a dry run only shows it.
	confirms: ruleOf(func(r PruneRequest) bool { return !r.DryRun }),
	// A dry run takes no lock and makes no lock file: it only reads.
	changes: ruleOf(func(r PruneRequest) bool { return !r.DryRun }),
	prepare: prepareAs((*service).preparePrune),
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		return s.runPrune(ctx, x.plan.cmd.(*pruneCmd), x)
	},
}
