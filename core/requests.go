package core

// The request variants, one per operation, in the registry order of core/ops. Each is the
// wire shape of its operation (decoder, schema, CLI, MCP); the operation that serves it
// lives in its family under core/op/.

// OpList reads every worktree, branch first.
const OpList Operation = "list"

type ListRequest struct {
	Status bool `json:"status,omitempty" doc:"compute uncommitted/ahead/behind status for every worktree"`
}

func (ListRequest) Op() Operation { return OpList }

func (ListRequest) isRequest() {}

// OpCreate makes a worktree, and its branch unless it exists.
const OpCreate Operation = "create"

type CreateRequest struct {
	Branch             string  `json:"branch" copse:"required" doc:"branch to create, or an existing local branch no worktree holds"`
	Base               *string `json:"base,omitempty" doc:"commit-ish to start a new branch from (default: git config copse.base, else the main checkout's branch)"`
	Path               *string `json:"path,omitempty" doc:"absolute checkout path (default <parent>/<repo>.worktrees/<branch-slug>); needs confirmation"`
	Label              *string `json:"label,omitempty" doc:"workspace label (Herdr; tmux: the window name)"`
	Focus              bool    `json:"focus,omitempty" doc:"focus the new workspace (Herdr workspace or tmux window)"`
	Claim              bool    `json:"claim,omitempty" doc:"claim the new worktree for the session in the same locked step"`
	Session            *string `json:"session,omitempty" doc:"session for claim (default COPSE_SESSION, else the Herdr workspace)"`
	Run                *string `json:"run,omitempty" doc:"shell command to start in the new worktree's tmux window ({branch}, {path}, {prompt} are passed as quoted variables); needs approval; implies claim"`
	Prompt             *string `json:"prompt,omitempty" doc:"text for run's {prompt} (appended as its last argument when the command has no {prompt})"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (CreateRequest) Op() Operation { return OpCreate }

func (CreateRequest) isRequest() {}

func (r CreateRequest) expectedStateToken() *string { return r.ExpectedStateToken }

// OpOpen opens an existing worktree: its Herdr workspace, or, without workspaces, the
// same as switch.
const OpOpen Operation = "open"

type OpenRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of an existing worktree"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of an existing worktree"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of an existing worktree (copse list --json)"`
	Label              *string `json:"label,omitempty" doc:"workspace label (Herdr; tmux: the window name)"`
	Focus              bool    `json:"focus,omitempty" doc:"focus the workspace (Herdr workspace or tmux window)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (OpenRequest) Op() Operation { return OpOpen }

func (OpenRequest) isRequest() {}

func (r OpenRequest) expectedStateToken() *string { return r.ExpectedStateToken }

func (r OpenRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}

func (r OpenRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

// OpSwitch moves the session to an existing worktree.
const OpSwitch Operation = "switch"

type SwitchRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of an existing worktree"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of an existing worktree"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of an existing worktree (copse list --json)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (SwitchRequest) Op() Operation { return OpSwitch }

func (SwitchRequest) isRequest() {}

func (r SwitchRequest) expectedStateToken() *string { return r.ExpectedStateToken }

func (r SwitchRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}

func (r SwitchRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

// OpRemove removes a worktree; a person always confirms it.
const OpRemove Operation = "remove"

type RemoveRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to remove"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to remove"`
	WorkspaceID        *string `json:"workspace_id,omitempty" copse:"oneof=target" doc:"Herdr workspace id of the worktree to remove"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to remove (copse list --json)"`
	Force              bool    `json:"force,omitempty" doc:"remove even if dirty or locked; delete an unmerged branch"`
	DeleteBranch       bool    `json:"delete_branch,omitempty" doc:"also delete the worktree's branch"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (RemoveRequest) Op() Operation { return OpRemove }

func (RemoveRequest) isRequest() {}

func (r RemoveRequest) expectedStateToken() *string { return r.ExpectedStateToken }

func (r RemoveRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch, r.WorkspaceID}
}

func (r RemoveRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

// OpBack returns the session to the worktree it was in before.
const OpBack Operation = "back"

type BackRequest struct {
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (BackRequest) Op() Operation { return OpBack }

func (BackRequest) isRequest() {}

func (r BackRequest) expectedStateToken() *string { return r.ExpectedStateToken }

// OpRestore brings back a worktree a forced remove recorded (or lists them).
const OpRestore Operation = "restore"

type RestoreRequest struct {
	ID                 *string `json:"id,omitempty" doc:"id of a removed worktree (restore with list shows them); default: the most recent"`
	List               bool    `json:"list,omitempty" doc:"list what can be restored, with age and size, instead of restoring"`
	Path               *string `json:"path,omitempty" doc:"absolute path to restore to (default: where it was); needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (RestoreRequest) Op() Operation { return OpRestore }

func (RestoreRequest) isRequest() {}

func (r RestoreRequest) expectedStateToken() *string { return r.ExpectedStateToken }

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

func (ClaimRequest) Op() Operation { return OpClaim }

func (ClaimRequest) isRequest() {}

func (r ClaimRequest) expectedStateToken() *string { return r.ExpectedStateToken }

func (r ClaimRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}

func (r ClaimRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

// OpRelease releases a session's claim.
const OpRelease Operation = "release"

type ReleaseRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to release"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to release"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to release (copse list --json)"`
	Session            *string `json:"session,omitempty" doc:"releasing session, which must hold the claim (default COPSE_SESSION, else the Herdr workspace)"`
	Force              bool    `json:"force,omitempty" doc:"release a claim another session holds, or a lock copse did not write; needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (ReleaseRequest) Op() Operation { return OpRelease }

func (ReleaseRequest) isRequest() {}

func (r ReleaseRequest) expectedStateToken() *string { return r.ExpectedStateToken }

func (r ReleaseRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}

func (r ReleaseRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

// OpPrune removes idle worktrees with nothing to lose and forgets vanished ones.
const OpPrune Operation = "prune"

type PruneRequest struct {
	DryRun             bool    `json:"dry_run,omitempty" doc:"list what would be removed and what is kept, and why; change nothing"`
	OlderThan          *string `json:"older_than,omitempty" doc:"idle time before a worktree may go, e.g. 72h or 3d (default git config copse.pruneAfter, else 72h)"`
	DeleteBranch       bool    `json:"delete_branch,omitempty" doc:"also delete the branches of removed worktrees (they hold no unique commits)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (PruneRequest) Op() Operation { return OpPrune }

func (PruneRequest) isRequest() {}

func (r PruneRequest) expectedStateToken() *string { return r.ExpectedStateToken }

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

func (LandRequest) Op() Operation { return OpLand }

func (LandRequest) isRequest() {}

func (r LandRequest) expectedStateToken() *string { return r.ExpectedStateToken }

// OpLandStatus reads land job records.
const OpLandStatus Operation = "land_status"

// LandStatusRequest reads land job records: one job, or every job of the repository.
type LandStatusRequest struct {
	Job *string `json:"job,omitempty" doc:"job id (e.g. land-7); all jobs when absent"`
}

func (LandStatusRequest) Op() Operation { return OpLandStatus }

func (LandStatusRequest) isRequest() {}

// OpLandDrain runs the land jobs nobody is waiting for. It is the smallest operation that
// changes something, and the worked example in docs/dev/operations.md.
const OpLandDrain Operation = "land_drain"

// LandDrainRequest runs every queued land job that no live process waits for, in queue
// order (each was checked, and approved where it had to be, when it was queued).
type LandDrainRequest struct{}

func (LandDrainRequest) Op() Operation { return OpLandDrain }

func (LandDrainRequest) isRequest() {}
