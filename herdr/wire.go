package herdr

// Reply types of Herdr v0.8.2 (protocol reference §4.2), with its exact JSON field names.
// Decoding is lenient: unknown fields are ignored, optional fields may be absent, key order
// does not matter. Only the fields copse reads are declared.

// WorktreeInfo is one checkout as Herdr reports it.
type WorktreeInfo struct {
	Path             string `json:"path"`
	Branch           string `json:"branch,omitempty"` // "" when detached; no refs/heads/ prefix
	IsBare           bool   `json:"is_bare"`
	IsDetached       bool   `json:"is_detached"`
	IsPrunable       bool   `json:"is_prunable"`
	IsLinkedWorktree bool   `json:"is_linked_worktree"` // false for the main checkout
	OpenWorkspaceID  string `json:"open_workspace_id,omitempty"`
	Label            string `json:"label"` // the repository name, not the branch
}

// Source is the repository a list was resolved to.
type Source struct {
	RepoKey            string `json:"repo_key"`  // git common dir
	RepoName           string `json:"repo_name"` // directory name of the main checkout
	RepoRoot           string `json:"repo_root"` // main checkout
	SourceCheckoutPath string `json:"source_checkout_path"`
	SourceWorkspaceID  string `json:"source_workspace_id,omitempty"` // parent workspace, if open
}

// WorkspaceInfo is a Herdr workspace.
type WorkspaceInfo struct {
	WorkspaceID string             `json:"workspace_id"`
	Number      int                `json:"number"` // 1-based sidebar position, not an id
	Label       string             `json:"label"`
	Focused     bool               `json:"focused"`
	PaneCount   int                `json:"pane_count"`
	TabCount    int                `json:"tab_count"`
	ActiveTabID string             `json:"active_tab_id"`
	AgentStatus string             `json:"agent_status"`
	Worktree    *WorkspaceWorktree `json:"worktree,omitempty"` // nil without worktree membership
}

// WorkspaceWorktree is a workspace's worktree membership.
type WorkspaceWorktree struct {
	RepoKey          string `json:"repo_key"`
	RepoName         string `json:"repo_name"`
	RepoRoot         string `json:"repo_root"`
	CheckoutPath     string `json:"checkout_path"`
	IsLinkedWorktree bool   `json:"is_linked_worktree"`
}

// TabInfo is the first tab of a created or opened workspace.
type TabInfo struct {
	TabID       string `json:"tab_id"`
	WorkspaceID string `json:"workspace_id"`
	Number      int    `json:"number"`
	Label       string `json:"label"`
	Focused     bool   `json:"focused"`
}

// PaneInfo is the shell pane of a created or opened workspace (no agent is started).
type PaneInfo struct {
	PaneID      string `json:"pane_id"`
	TerminalID  string `json:"terminal_id"`
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	Focused     bool   `json:"focused"`
	Cwd         string `json:"cwd,omitempty"`
}

// ListResult is the reply of `worktree list` (type worktree_list).
type ListResult struct {
	Source    Source         `json:"source"`
	Worktrees []WorktreeInfo `json:"worktrees"`
}

// OpenResult is the reply of `worktree create` (worktree_created) and `worktree open`
// (worktree_opened). AlreadyOpen is only ever true for open.
type OpenResult struct {
	Workspace   WorkspaceInfo `json:"workspace"`
	Worktree    WorktreeInfo  `json:"worktree"`
	AlreadyOpen bool          `json:"already_open"`
	Tab         TabInfo       `json:"tab"`
	RootPane    PaneInfo      `json:"root_pane"`
}

// RemoveResult is the reply of `worktree remove` (worktree_removed).
type RemoveResult struct {
	WorkspaceID string `json:"workspace_id"`
	Path        string `json:"path"` // the checkout that was removed
	Forced      bool   `json:"forced"`
}

// WorkspaceListResult is the reply of `workspace list` (type workspace_list): every
// workspace of the session, in sidebar order (PROTOCOL-workspaces.md).
type WorkspaceListResult struct {
	Workspaces []WorkspaceInfo `json:"workspaces"`
}

// The values of WorkspaceInfo.AgentStatus in Herdr 0.8.2: the most urgent of the
// workspace's panes. AgentDone is an agent that finished while nobody looked; AgentUnknown
// is no agent Herdr recognises in any pane. A later Herdr may add others.
const (
	AgentIdle    = "idle"
	AgentWorking = "working"
	AgentBlocked = "blocked"
	AgentDone    = "done"
	AgentUnknown = "unknown"
)

// Reply types copse requires for each action.
const (
	TypeWorkspaceList = "workspace_list"
	TypeList          = "worktree_list"
	TypeCreated       = "worktree_created"
	TypeOpened        = "worktree_opened"
	TypeRemoved       = "worktree_removed"
)
