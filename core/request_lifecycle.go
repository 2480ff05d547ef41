package core

// The lifecycle requests (issue 9): claims and prune. Targets are named like remove's:
// exactly one of path, branch or id.

const (
	OpClaim   Operation = "claim"
	OpRelease Operation = "release"
	OpPrune   Operation = "prune"
)

type ClaimRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to claim"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to claim"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to claim (copse list --json)"`
	Session            *string `json:"session,omitempty" doc:"claiming session (default COPSE_SESSION, else the Herdr workspace)"`
	Force              bool    `json:"force,omitempty" doc:"take over another session's claim or a lock copse did not write; needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type ReleaseRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to release"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to release"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to release (copse list --json)"`
	Session            *string `json:"session,omitempty" doc:"releasing session, which must hold the claim (default COPSE_SESSION, else the Herdr workspace)"`
	Force              bool    `json:"force,omitempty" doc:"release a claim another session holds, or a lock copse did not write; needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type PruneRequest struct {
	DryRun             bool    `json:"dry_run,omitempty" doc:"list what would be removed and what is kept, and why; change nothing"`
	OlderThan          *string `json:"older_than,omitempty" doc:"idle time before a worktree may go, e.g. 72h or 3d (default git config copse.pruneAfter, else 72h)"`
	DeleteBranch       bool    `json:"delete_branch,omitempty" doc:"also delete the branches of removed worktrees (they hold no unique commits)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (ClaimRequest) Op() Operation   { return OpClaim }
func (ReleaseRequest) Op() Operation { return OpRelease }
func (PruneRequest) Op() Operation   { return OpPrune }

func (ClaimRequest) isRequest()   {}
func (ReleaseRequest) isRequest() {}
func (PruneRequest) isRequest()   {}

func (r ClaimRequest) expectedStateToken() *string   { return r.ExpectedStateToken }
func (r ReleaseRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r PruneRequest) expectedStateToken() *string   { return r.ExpectedStateToken }
