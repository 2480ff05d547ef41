package core

import "context"

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

func (OpenRequest) Op() Operation                 { return OpOpen }
func (OpenRequest) isRequest()                    {}
func (r OpenRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r OpenRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch}
}
func (r OpenRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

var OpenOp = &operation{
	name:     OpOpen,
	doc:      "open an existing worktree (a Herdr workspace; without Herdr, same as switch)",
	approval: ApprovalExecute,
	request:  OpenRequest{},
	prepare: prepareAs(func(s *service, ctx context.Context, r OpenRequest, snap snapshot) (*Plan, error) {
		return s.prepareTarget(ctx, r, OpOpen, r.Path, r.Branch, r.Label, r.Focus, snap)
	}),
	lock: targetLock,
	run:  runTargetOp,
}
