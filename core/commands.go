package core

import (
	"time"

	"github.com/copse-dev/copse/gitx"
)

// The typed commands Prepare makes from a Request. Every field is a parsed value or git's
// own record; nothing here is a raw caller string.

// CreateSpec is a create as the create family prepared it (the backends take it).
type CreateSpec struct {
	Branch   BranchName
	Existing bool               // check out an existing local branch instead of creating one
	Base     BaseCommit         // the commit the checkout must be at (branch tip when existing, remote tip when remote)
	Remote   *gitx.RemoteBranch // non-nil: create branch from this remote-tracking branch, tracking it
	// baseFrom says where base came from (BaseFrom*); baseBranch is the local branch it
	// names, if any, which the worktree's metadata keeps as land's default target.
	BaseFrom   string
	BaseBranch string
	Path       AbsPath
	Explicit   bool // the caller chose the path (needs confirmation)
	Label      Label
	Focus      bool
	Cwd        string    // main checkout: where git and Herdr run
	Claim      bool      // create --claim: lock it for session in the same locked step
	Session    SessionID // the session named by the request (claim, events)
	Run        *RunSpec  // create --run: the command to start in the new worktree's window
}

// TargetSpec names an existing worktree for open, switch and back (the backends take it).
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

type RemoveSpec struct {
	Target       gitx.Worktree
	WsID         string
	Force        bool
	DeleteBranch bool
	Losses       Losses  // what the remove deletes that git cannot give back
	Live         LiveSet // the processes working in it
	Cwd          string
	// unlockFirst: the lock is a claim whose --run command ended (Claim.Ended); a remove
	// without --force unlocks it first, as git removes no locked worktree.
	UnlockFirst bool
}

// RunSpec is a command to start in a new window.
type RunSpec struct {
	Display string    // the command as given (confirmations, messages)
	Argv    []string  // what the window runs: /bin/sh -c SCRIPT copse-run
	Env     []string  // COPSE_BRANCH, COPSE_PATH, COPSE_PROMPT, COPSE_SESSION (and the wrapper's)
	Session string    // the session the command claims the worktree as
	Wrapped bool      // the wrapper reports the command's start and end (Options.Self)
	Started time.Time // when the window was made (create's run)
}

// RunSession is the session that claims a worktree created with --run when the request
// names none: derived from the worktree, so each started agent has its own.
func RunSession(branch BranchName) string { return "agent:" + BranchSlug(branch.s) }
