package core

// Request is the closed union of everything copse can be asked to do. Every entry point
// (CLI flags, the picker, `copse tool` JSON, MCP) builds one of these values and hands it to
// Service.Prepare; nothing else reaches git or Herdr.
//
// Fields hold the caller's raw values: optional strings are pointers so that "absent" and
// "empty" stay distinct (an empty value is rejected, an absent one takes the default).
// Struct tags drive both the strict JSON decoder and the generated JSON Schema:
//
//	json:"name"            the wire name
//	copse:"required"       must be present
//	copse:"oneof=GROUP"    exactly one field of GROUP must be present
type Request interface {
	Op() Operation
	isRequest()
}

// Operation names a Request variant; it is the `operation` field on the wire.
type Operation string

const (
	OpList   Operation = "list"
	OpCreate Operation = "create"
	OpOpen   Operation = "open"
	OpSwitch Operation = "switch"
	OpRemove Operation = "remove"
	OpBack   Operation = "back"
	// OpRestore brings back a worktree a forced remove recorded (or lists them).
	OpRestore Operation = "restore"
)

// Operations lists every variant in a stable order (schema generation, docs, tests); each
// call returns a new slice, so no caller can change another's.
func Operations() []Operation {
	return []Operation{OpList, OpCreate, OpOpen, OpSwitch, OpRemove, OpBack, OpRestore, OpClaim, OpRelease, OpPrune, OpLand, OpLandStatus}
}

// Approval classes tell agent hosts which operations need a human's yes.
type Approval string

const (
	ApprovalRead        Approval = "read"
	ApprovalExecute     Approval = "execute"
	ApprovalDestructive Approval = "destructive"
)

type ListRequest struct {
	Status bool `json:"status,omitempty" doc:"compute uncommitted/ahead/behind status for every worktree"`
}

type CreateRequest struct {
	Branch             string  `json:"branch" copse:"required" doc:"branch to create, or an existing local branch no worktree holds"`
	Base               *string `json:"base,omitempty" doc:"commit-ish to start a new branch from (default: git config copse.base, else the main checkout's branch)"`
	Path               *string `json:"path,omitempty" doc:"absolute checkout path (default <parent>/<repo>.worktrees/<branch-slug>); needs confirmation"`
	Label              *string `json:"label,omitempty" doc:"workspace label (Herdr; tmux: the window name)"`
	Focus              bool    `json:"focus,omitempty" doc:"focus the new workspace (Herdr workspace or tmux window)"`
	Claim              bool    `json:"claim,omitempty" doc:"claim the new worktree for the session in the same locked step"`
	Session            *string `json:"session,omitempty" doc:"session for claim (default COPSE_SESSION, else the Herdr workspace)"`
	Run                *string `json:"run,omitempty" doc:"shell command to start in the new worktree's tmux window ({branch}, {path}, {prompt} are passed as quoted variables); needs approval; implies claim"`
	Prompt             *string `json:"prompt,omitempty" doc:"text for run's {prompt} (appended as its last argument when the command has no {prompt})"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type OpenRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of an existing worktree"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of an existing worktree"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of an existing worktree (copse list --json)"`
	Label              *string `json:"label,omitempty" doc:"workspace label (Herdr; tmux: the window name)"`
	Focus              bool    `json:"focus,omitempty" doc:"focus the workspace (Herdr workspace or tmux window)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type SwitchRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of an existing worktree"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of an existing worktree"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of an existing worktree (copse list --json)"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type RemoveRequest struct {
	Path               *string `json:"path,omitempty" copse:"oneof=target" doc:"absolute path of the worktree to remove"`
	Branch             *string `json:"branch,omitempty" copse:"oneof=target" doc:"branch of the worktree to remove"`
	WorkspaceID        *string `json:"workspace_id,omitempty" copse:"oneof=target" doc:"Herdr workspace id of the worktree to remove"`
	ID                 *string `json:"id,omitempty" copse:"oneof=target" doc:"id of the worktree to remove (copse list --json)"`
	Force              bool    `json:"force,omitempty" doc:"remove even if dirty or locked; delete an unmerged branch"`
	DeleteBranch       bool    `json:"delete_branch,omitempty" doc:"also delete the worktree's branch"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type BackRequest struct {
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

type RestoreRequest struct {
	ID                 *string `json:"id,omitempty" doc:"id of a removed worktree (restore with list shows them); default: the most recent"`
	List               bool    `json:"list,omitempty" doc:"list what can be restored, with age and size, instead of restoring"`
	Path               *string `json:"path,omitempty" doc:"absolute path to restore to (default: where it was); needs confirmation"`
	ExpectedStateToken *string `json:"expected_state_token,omitempty" doc:"state_token from list or needs_approval; if the state changed since, nothing runs (stale_state)"`
}

func (ListRequest) Op() Operation    { return OpList }
func (CreateRequest) Op() Operation  { return OpCreate }
func (OpenRequest) Op() Operation    { return OpOpen }
func (SwitchRequest) Op() Operation  { return OpSwitch }
func (RemoveRequest) Op() Operation  { return OpRemove }
func (BackRequest) Op() Operation    { return OpBack }
func (RestoreRequest) Op() Operation { return OpRestore }

func (ListRequest) isRequest()    {}
func (CreateRequest) isRequest()  {}
func (OpenRequest) isRequest()    {}
func (SwitchRequest) isRequest()  {}
func (RemoveRequest) isRequest()  {}
func (BackRequest) isRequest()    {}
func (RestoreRequest) isRequest() {}

// ApprovalOf is the operation's approval class for agent hosts.
func ApprovalOf(op Operation) Approval {
	switch op {
	case OpList, OpLandStatus:
		return ApprovalRead
	case OpRemove, OpPrune:
		return ApprovalDestructive
	default:
		return ApprovalExecute
	}
}

// NeedsConfirmation reports whether a human must say yes before req runs:
// remove always; create with an explicit path; a forced claim or release; prune unless a dry run;
// land with force_claim or with a test command (unless a dry run, which runs neither).
func NeedsConfirmation(req Request) bool {
	switch r := req.(type) {
	case RemoveRequest:
		return true
	case CreateRequest:
		// A command to run is a shell command an agent may have chosen, as land's test
		// (one a person typed, or git config copse.run, is not asked again).
		return r.Path != nil || r.Run != nil
	case ClaimRequest:
		return r.Force
	case ReleaseRequest:
		return r.Force
	case PruneRequest:
		return !r.DryRun
	case LandRequest:
		// A test command in a request is a shell command an agent chose: a person sees it
		// first (a command typed at the CLI or in the picker is not asked again; see
		// WithTypedByPerson).
		return !r.DryRun && (r.ForceClaim || r.Test != nil)
	case RestoreRequest:
		// Also asked at run time when the original path is an existing empty directory.
		return r.Path != nil
	}
	return false
}

// readOnly reports requests that change nothing: they take no repository lock.
func readOnly(req Request) bool {
	switch r := req.(type) {
	case ListRequest:
		return true
	case RestoreRequest:
		return r.List
	case LandStatusRequest:
		return true
	case LandRequest:
		return r.DryRun
	}
	return false
}

// NewRequest returns a zero value of the variant named op (decoder and schema use it).
func NewRequest(op Operation) (Request, bool) {
	switch op {
	case OpList:
		return ListRequest{}, true
	case OpCreate:
		return CreateRequest{}, true
	case OpOpen:
		return OpenRequest{}, true
	case OpSwitch:
		return SwitchRequest{}, true
	case OpRemove:
		return RemoveRequest{}, true
	case OpBack:
		return BackRequest{}, true
	case OpLand:
		return LandRequest{}, true
	case OpLandStatus:
		return LandStatusRequest{}, true
	case OpRestore:
		return RestoreRequest{}, true
	case OpClaim:
		return ClaimRequest{}, true
	case OpRelease:
		return ReleaseRequest{}, true
	case OpPrune:
		return PruneRequest{}, true
	}
	return nil, false
}

// expectedToken is the state_token a mutation was sent with, if any.
func expectedToken(req Request) *string {
	switch r := req.(type) {
	case CreateRequest:
		return r.ExpectedStateToken
	case OpenRequest:
		return r.ExpectedStateToken
	case SwitchRequest:
		return r.ExpectedStateToken
	case RemoveRequest:
		return r.ExpectedStateToken
	case BackRequest:
		return r.ExpectedStateToken
	}
	if t, ok := req.(interface{ expectedStateToken() *string }); ok {
		return t.expectedStateToken()
	}
	return nil
}

// Str is a helper for building optional request fields.
func Str(s string) *string { return &s }
