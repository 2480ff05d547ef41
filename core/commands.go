package core

import "github.com/copse-dev/copse/gitx"

// The typed commands Prepare makes from a Request. Every field is a parsed value or git's
// own record; nothing here is a raw caller string.

type createCmd struct {
	branch   BranchName
	existing bool               // check out an existing local branch instead of creating one
	base     BaseCommit         // the commit the checkout must be at (branch tip when existing, remote tip when remote)
	remote   *gitx.RemoteBranch // non-nil: create branch from this remote-tracking branch, tracking it
	// baseFrom says where base came from (BaseFrom*); baseBranch is the local branch it
	// names, if any, which the worktree's metadata keeps as land's default target.
	baseFrom   string
	baseBranch string
	path       AbsPath
	explicit   bool // the caller chose the path (needs confirmation)
	label      Label
	focus      bool
	cwd        string    // main checkout: where git and Herdr run
	claim      bool      // create --claim: lock it for session in the same locked step
	session    SessionID // the session named by the request (claim, events)
	run        *runSpec  // create --run: the command to start in the new worktree's window
}

// targetCmd names an existing worktree for open, switch and back.
type TargetSpec struct {
	Target    gitx.Worktree
	From      string // the worktree the session leaves ("" when none)
	Label     Label
	Focus     bool
	Cwd       string
	Operation Operation // OpOpen, OpSwitch or OpBack
	WsID      string    // open workspace of the target, if known
	Leaving   *Status
}

type removeCmd struct {
	target       gitx.Worktree
	wsID         string
	force        bool
	deleteBranch bool
	losses       Losses  // what the remove deletes that git cannot give back
	live         liveSet // the processes working in it
	cwd          string
	// unlockFirst: the lock is a claim whose --run command ended (Claim.Ended); a remove
	// without --force unlocks it first, as git removes no locked worktree.
	unlockFirst bool
}
