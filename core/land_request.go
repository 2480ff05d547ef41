package core

// The land variants of the request union (issue 9). They live apart from request.go so
// the union's other variants can change without touching land.

const (
	OpLand       Operation = "land"
	OpLandStatus Operation = "land_status"
)

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

// LandStatusRequest reads land job records: one job, or every job of the repository.
type LandStatusRequest struct {
	Job *string `json:"job,omitempty" doc:"job id (e.g. land-7); all jobs when absent"`
}

func (LandRequest) Op() Operation       { return OpLand }
func (LandStatusRequest) Op() Operation { return OpLandStatus }
func (LandRequest) isRequest()          {}
func (LandStatusRequest) isRequest()    {}

// expectedStateToken lets prepare check the token like every other mutation's.
func (r LandRequest) expectedStateToken() *string { return r.ExpectedStateToken }
