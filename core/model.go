package core

import "time"

// Worktree is one row of `copse list --json`, the picker and every mutation's reply.
type Worktree struct {
	Branch      string  `json:"branch,omitempty"` // absent when detached or bare
	Path        string  `json:"path"`
	Head        string  `json:"head"`
	Main        bool    `json:"main"`
	Current     bool    `json:"current"`
	Detached    bool    `json:"detached"`
	Rebasing    bool    `json:"rebasing,omitempty"`  // detached by a rebase of Branch (git lists it detached)
	Bisecting   bool    `json:"bisecting,omitempty"` // detached by a bisect started on Branch
	Bare        bool    `json:"bare,omitempty"`
	Locked      *string `json:"locked"`       // nil, or the lock reason ("" when none given)
	Prunable    *string `json:"prunable"`     // nil, or git's prunable reason
	WorkspaceID *string `json:"workspace_id"` // the open Herdr workspace, if any
	Status      *Status `json:"status"`       // nil unless asked for
	ID          string  `json:"id,omitempty"` // admin directory name under <common>/worktrees (linked worktrees only)
	Claim       *Claim  `json:"claim"`        // the session holding it (a lock copse wrote, or a live agent's), or nil
	// LockStale: the lock is an agent's whose session has ended (its pid is gone, or is
	// another program's now): no claim, a lock left over.
	LockStale bool `json:"lock_stale,omitempty"`
	// Processes is how many processes work in it (their directory or an open file is
	// inside; copse and its ancestors, the shell it was started from among them, do not
	// count: remove's live-process rule still does). Read with the status
	// (list --status, the picker); absent when not asked, or when copse cannot tell.
	Processes *int `json:"processes,omitempty"`
	// Agents is what copse sees working there, read with the status: the workspace's
	// agent (Herdr's agent_status), the commands in the panes of its tmux window, and the
	// other programs working inside it. Absent when nothing runs or nothing was asked.
	Agents []Agent `json:"agents,omitempty"`
	// Land is the newest land job of this worktree (queued, running, blocked, landed…),
	// read from the job records under <common>/copse/land; nil when it has none.
	Land *LandJob `json:"land"`
}

// Agent is one thing working in a worktree, as copse can see it (docs/agents.md).
type Agent struct {
	PID       int    `json:"pid,omitempty"`       // absent for a Herdr workspace (Herdr names no process)
	Command   string `json:"command,omitempty"`   // its command name (untrusted text: escape to show)
	State     string `json:"state"`               // one of the Agent* states
	Workspace string `json:"workspace,omitempty"` // the Herdr workspace or tmux window it runs in
	// Source says where State came from: hook, extension, wrapper, herdr, registry,
	// process or screen (agentstate.Source*), the first-hand ones first.
	Source string `json:"source,omitempty"`
	// Since is when the agent entered State, where its source says (zero: unknown).
	Since time.Time `json:"since,omitzero"`
	// ExitCode is always present for a done agent (0 included): its command's exit status.
	ExitCode *int `json:"exit_code,omitempty"`
	// Unread is true for a done agent until its row is opened or its worktree switched to.
	Unread bool `json:"unread,omitempty"`
	// Session is the agent's own session id, where it names one (hooks, registries).
	Session string `json:"session,omitempty"`
	// namedByArgv: Command is the running program's own argv's name (a screen or process
	// reading), which a --run wrapper's guess from its command line does not replace.
	NamedByArgv bool
}

// The states of an Agent. Herdr reports the first five for its workspaces; under tmux copse
// tells working (printed in the last AgentQuietAfter), blocked (a process of the pane is
// waiting to read its terminal), idle (quiet) and done (the pane's command ended);
// elsewhere a process is only known to be running.
const (
	AgentWorking = "working"
	AgentBlocked = "blocked" // needs you: waiting for input
	AgentIdle    = "idle"
	AgentDone    = "done"
	AgentUnknown = "unknown"
	AgentRunning = "running"
)

// AgentQuietAfter is how long a tmux window prints nothing before its agent counts as idle.
const AgentQuietAfter = 10 * time.Second

// NeedsYou reports whether an agent of the row waits for a person.
func (w Worktree) NeedsYou() bool {
	for _, a := range w.Agents {
		if a.State == AgentBlocked {
			return true
		}
	}
	return false
}

// Status is a worktree's state as the picker badges and `list --status` show it.
// A row whose status could not be computed carries Error; it is never shown as clean.
type Status struct {
	Staged     int    `json:"staged"`
	Unstaged   int    `json:"unstaged"`
	Untracked  int    `json:"untracked"`
	Conflicted int    `json:"conflicted"`
	Upstream   string `json:"upstream,omitempty"`
	Ahead      int    `json:"ahead"`
	Behind     int    `json:"behind"`
	Rebasing   bool   `json:"rebasing,omitempty"`
	Merging    bool   `json:"merging,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Dirty reports uncommitted work of any kind.
func (s Status) Dirty() bool {
	return s.Staged+s.Unstaged+s.Untracked+s.Conflicted > 0
}

// Changes is the number of uncommitted entries (the picker's ✚N badge).
func (s Status) Changes() int { return s.Staged + s.Unstaged + s.Untracked + s.Conflicted }

// Listing is the reply to `list`.
type Listing struct {
	RepoRoot  string     `json:"repo_root"`
	Backend   string     `json:"backend"`
	Worktrees []Worktree `json:"worktrees"`
	Warnings  []string   `json:"warnings,omitempty"` // e.g. Herdr's list failed: rows show no workspaces
	Token     StateToken `json:"state_token"`        // digest of git's worktree list when this was read
}

// StatusResult is one row's status from Service.Statuses (the picker fills rows progressively).
type StatusResult struct {
	Path   string
	Status Status // Status.Error set when it could not be computed
}

// StateToken is a digest of `git worktree list --porcelain -z` (list replies), or of that
// list and everything a confirmation showed (plans that need a yes: the losses, the
// fields, the warnings). A mutation sent with expected_state_token runs only while the
// state still has that token; a confirmed plan runs only if it would show exactly the same.
type StateToken string

// Outcome is what a request did (or, with DryRun, would do), in list's vocabulary.
type Outcome struct {
	Operation   Operation `json:"operation"`
	DryRun      bool      `json:"dry_run,omitempty"`
	Commands    []string  `json:"commands,omitempty"` // dry run: the exact commands, as the builders made them
	Worktree    *Worktree `json:"worktree,omitempty"` // created, opened, switched to, removed
	Path        string    `json:"path,omitempty"`     // where to cd (switch, back) or what was removed
	WorkspaceID string    `json:"workspace_id,omitempty"`
	// Base is where a created branch started: the ref and commit (absent for an
	// existing branch, which is checked out where it is).
	Base          *CreateBase `json:"base,omitempty"`
	BranchDeleted bool        `json:"branch_deleted,omitempty"`
	// RestoreID names the record a forced remove made of what it deleted: copse restore <id>.
	RestoreID string        `json:"restore_id,omitempty"`
	Restored  *RemovedEntry `json:"restored,omitempty"` // restore: the record it brought back
	Warnings  []string      `json:"warnings,omitempty"`
	// Notices are information, not trouble: what copse did on the side (a branch now
	// tracks its remote). Callers show them plainly, never in warning style.
	Notices     []string        `json:"notices,omitempty"`
	Land        *LandJob        `json:"land,omitempty"`      // land, land_status JOB: the job's record
	LandJobs    []LandJob       `json:"land_jobs,omitempty"` // land_status without a job: every record
	Listing     *Listing        `json:"-"`                   // for list
	RemovedList *RemovedListing `json:"-"`                   // for restore --list

	Claim    *Claim       `json:"claim,omitempty"`    // claim, create --claim: the claim now held
	Previous string       `json:"previous,omitempty"` // claim --force: the session that held it before
	Prune    *PruneReport `json:"prune,omitempty"`    // prune: what went (or would go) and what stayed, and why
	// Setup is what create --dry-run's setup would copy and run (absent with --no-setup,
	// and when there is nothing to set up).
	Setup *SetupPlan `json:"setup,omitempty"`
}

// Result is the JSON value a reply carries: the Listing for list, the Outcome otherwise.
func (o *Outcome) Result() any {
	if o.Listing != nil {
		return o.Listing
	}
	if o.RemovedList != nil {
		return o.RemovedList
	}
	if o.Operation == OpLandStatus && o.Land == nil {
		// Every job, as a list that is [] rather than absent when the queue is empty.
		jobs := o.LandJobs
		if jobs == nil {
			jobs = []LandJob{}
		}
		return struct {
			Operation Operation `json:"operation"`
			LandJobs  []LandJob `json:"land_jobs"`
		}{o.Operation, jobs}
	}
	if o.Operation == OpLandDrain {
		// The jobs it ran, as a list that is [] rather than absent when there were none.
		ran := o.LandJobs
		if ran == nil {
			ran = []LandJob{}
		}
		return struct {
			Operation Operation `json:"operation"`
			Ran       []LandJob `json:"ran"`
		}{o.Operation, ran}
	}
	return o
}
