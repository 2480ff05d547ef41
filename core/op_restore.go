package core

import "context"

// OpRestore brings back a worktree a forced remove recorded (or lists them).
const OpRestore Operation = "restore"

type RestoreRequest struct {
	ID                 *string `json:"id,omitempty" doc:"id of a removed worktree (restore with list shows them); default: the most recent"`
	List               bool    `json:"list,omitempty" doc:"list what can be restored, with age and size, instead of restoring"`
	Path               *string `json:"path,omitempty" doc:"absolute path to restore to (default: where it was); needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (RestoreRequest) Op() Operation                 { return OpRestore }
func (RestoreRequest) isRequest()                    {}
func (r RestoreRequest) expectedStateToken() *string { return r.ExpectedStateToken }

var RestoreOp = &operation{
	name:     OpRestore,
	doc:      "bring back a worktree that a forced remove recorded (list: show what can be restored)",
	approval: ApprovalExecute,
	request:  RestoreRequest{},
	// Also asked at run time when the original path is an existing empty directory.
	confirms: ruleOf(func(r RestoreRequest) bool { return r.Path != nil }),
	changes:  ruleOf(func(r RestoreRequest) bool { return !r.List }),
	prepare:  prepareAs((*service).prepareRestore),
	// "The most recent" is resolved when prepared; a newer record since is another restore.
	recheck: func(asked, fresh command) error {
		old, okOld := asked.(*restoreCmd)
		c, ok := fresh.(*restoreCmd)
		if okOld && ok && old.entry.ID != c.entry.ID {
			return refused(CodeStaleState, "look at `copse restore --list` and ask again",
				"the most recent removed worktree changed after it was checked (%s, now %s); nothing ran", old.entry.ID, c.entry.ID)
		}
		return nil
	},
	run: func(s *service, ctx context.Context, x *execution) (*Outcome, error) {
		c, ok := x.plan.cmd.(*restoreCmd)
		if !ok {
			return s.restoreList(ctx)
		}
		out, err := s.runRestore(ctx, c, x.before, x.warnings())
		if err != nil || out.Worktree == nil {
			return out, err
		}
		ev := Event{Event: EventRestored, Commit: out.Worktree.Head}
		if out.Restored != nil {
			ev.Reason = "restored " + out.Restored.ID
		}
		x.emit(ev, out.Worktree)
		return out, nil
	},
}
