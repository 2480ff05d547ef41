package remove

import (
	"context"

	"github.com/copse-dev/copse/core"
)

var RestoreOp = &core.Op{
	Name:     core.OpRestore,
	Doc:      "bring back a worktree that a forced remove recorded (list: show what can be restored)",
	Approval: core.ApprovalExecute,
	Request:  core.RestoreRequest{},
	// Also asked at run time when the original path is an existing empty directory.
	Confirms: core.RuleOf(func(r core.RestoreRequest) bool { return r.Path != nil }),
	Changes:  core.RuleOf(func(r core.RestoreRequest) bool { return !r.List }),
	Prepare:  core.PrepareAs(prepareRestore),
	// "The most recent" is resolved when prepared; a newer record since is another restore.
	Recheck: func(asked, fresh core.Command) error {
		old, okOld := asked.(*restoreCmd)
		c, ok := fresh.(*restoreCmd)
		if okOld && ok && old.entry.ID != c.entry.ID {
			return core.Refused(core.CodeStaleState, "look at `copse restore --list` and ask again",
				"the most recent removed worktree changed after it was checked (%s, now %s); nothing ran", old.entry.ID, c.entry.ID)
		}
		return nil
	},
	Run: func(s *core.Env, ctx context.Context, x *core.Execution) (*core.Outcome, error) {
		c, ok := x.Plan.Cmd.(*restoreCmd)
		if !ok {
			return restoreList(s, ctx)
		}
		out, err := runRestore(s, ctx, c, x.Before, x.Warnings())
		if err != nil || out.Worktree == nil {
			return out, err
		}
		ev := core.Event{Event: core.EventRestored, Commit: out.Worktree.Head}
		if out.Restored != nil {
			ev.Reason = "restored " + out.Restored.ID
		}
		x.Emit(ev, out.Worktree)
		return out, nil
	},
}
