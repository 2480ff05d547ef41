package core

import "context"

// OpCreate makes a worktree, and its branch unless it exists.
const OpCreate Operation = "create"

type CreateRequest struct {
	Branch             string  `json:"branch" copse:"required" doc:"branch to create, or an existing local branch no worktree holds"`
	Base               *string `json:"base,omitempty" doc:"commit-ish to start a new branch from (default: git config copse.base, else the main checkout's branch)"`
	Path               *string `json:"path,omitempty" doc:"absolute checkout path (default <parent>/<repo>.worktrees/<branch-slug>); needs confirmation"`
	Label              *string `json:"label,omitempty" doc:"workspace label (Herdr only)"`
	Focus              bool    `json:"focus,omitempty" doc:"focus the new workspace (Herdr only)"`
	Claim              bool    `json:"claim,omitempty" doc:"claim the new worktree for the session in the same locked step"`
	Session            *string `json:"session,omitempty" doc:"session for claim (default COPSE_SESSION, else the Herdr workspace)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (CreateRequest) Op() Operation                 { return OpCreate }
func (CreateRequest) isRequest()                    {}
func (r CreateRequest) expectedStateToken() *string { return r.ExpectedStateToken }

var createOp = &operation{
	name:     OpCreate,
	doc:      "create a worktree (and its branch unless it exists)",
	approval: ApprovalExecute,
	request:  CreateRequest{},
	// A path the caller chose is a place on disk a person should see first.
	confirms: ruleOf(func(r CreateRequest) bool { return r.Path != nil }),
	prepare:  prepareAs((*service).prepareCreate),
	// The base is resolved to a commit when prepared; a branch that moved since is a
	// different create than the one asked for.
	recheck: func(asked, fresh command) error {
		old, okOld := asked.(*createCmd)
		c, ok := fresh.(*createCmd)
		if okOld && ok && old.base.OID != c.base.OID {
			return refused(CodeBaseMoved, "run the create again to start from the new commit",
				"%s moved from %s to %s after it was checked; nothing ran", Escape(c.base.Ref), short(old.base.OID), short(c.base.OID))
		}
		return nil
	},
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		return s.runCreateClaim(ctx, x.plan.cmd.(*createCmd), x)
	},
}

// createdEvents are the events of a create that happened (and of its claim, if taken).
func createdEvents(x *execution, out *Outcome) {
	ev := Event{Event: EventCreated, Commit: out.Worktree.Head}
	if out.Claim != nil {
		ev.Session = out.Claim.Session
	}
	x.emit(ev, out.Worktree)
	if out.Claim != nil {
		x.emit(Event{Event: EventClaimed, Session: out.Claim.Session}, out.Worktree)
	}
}
