package core

import "context"

var RestoreOp = &Op{
	Name:     OpRestore,
	Doc:      "bring back a worktree that a forced remove recorded (list: show what can be restored)",
	Approval: ApprovalExecute,
	Request:  RestoreRequest{},
	// Also asked at run time when the original path is an existing empty directory.
	Confirms: RuleOf(func(r RestoreRequest) bool { return r.Path != nil }),
	Changes:  RuleOf(func(r RestoreRequest) bool { return !r.List }),
	Prepare:  PrepareAs((*Env).prepareRestore),
	// "The most recent" is resolved when prepared; a newer record since is another restore.
	Recheck: func(asked, fresh Command) error {
		old, okOld := asked.(*restoreCmd)
		c, ok := fresh.(*restoreCmd)
		if okOld && ok && old.entry.ID != c.entry.ID {
			return Refused(CodeStaleState, "look at `copse restore --list` and ask again",
				"the most recent removed worktree changed after it was checked (%s, now %s); nothing ran", old.entry.ID, c.entry.ID)
		}
		return nil
	},
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		c, ok := x.Plan.Cmd.(*restoreCmd)
		if !ok {
			return s.restoreList(ctx)
		}
		out, err := s.runRestore(ctx, c, x.Before, x.Warnings())
		if err != nil || out.Worktree == nil {
			return out, err
		}
		ev := Event{Event: EventRestored, Commit: out.Worktree.Head}
		if out.Restored != nil {
			ev.Reason = "restored " + out.Restored.ID
		}
		x.Emit(ev, out.Worktree)
		return out, nil
	},
}
