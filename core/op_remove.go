package core

import "context"

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

func (RemoveRequest) Op() Operation                 { return OpRemove }
func (RemoveRequest) isRequest()                    {}
func (r RemoveRequest) expectedStateToken() *string { return r.ExpectedStateToken }
func (r RemoveRequest) idTarget() (*string, []*string) {
	return r.ID, []*string{r.Path, r.Branch, r.WorkspaceID}
}
func (r RemoveRequest) atPath(p *string) Request { r.Path, r.ID = p, nil; return r }

var removeOp = &operation{
	name:     OpRemove,
	doc:      "remove a worktree (always needs a human's confirmation)",
	approval: ApprovalDestructive,
	request:  RemoveRequest{},
	confirms: always,
	prepare:  prepareAs((*service).prepareRemove),
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		out, err := s.runRemove(ctx, x.plan.cmd.(*removeCmd), x.before, x.warnings())
		if err != nil {
			return out, err
		}
		if x.plan.Confirm != nil {
			// What the confirmation told (the branch stays, with its commits); the plan's
			// own notice about recording is answered by the outcome's restore id.
			out.Notices = x.plan.Confirm.Notices
		}
		x.emit(Event{Event: EventRemoved, Commit: out.Worktree.Head}, out.Worktree)
		return out, nil
	},
}
