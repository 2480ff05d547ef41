package core

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

func (ReleaseRequest) Op() Operation                 { return OpRelease }
func (ReleaseRequest) isRequest()                    {}
func (r ReleaseRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r ReleaseRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}
func (r ReleaseRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

var ReleaseOp = &operation{
	name:     OpRelease,
	doc:      "release a session's claim; force releases another session's claim or a human's lock and needs confirmation",
	approval: ApprovalExecute,
	request:  ReleaseRequest{},
	// Releasing what another session (or a person) holds is a person's call.
	confirms: ruleOf(func(r ReleaseRequest) bool { return r.Force }),
	prepare:  prepareAs((*service).prepareClaim),
	run:      runClaimOp,
}
