package core

import (
	"context"
	"time"
)

// Options configure a Service. Zero values mean: current directory, auto backend,
// os.Getenv, git on PATH.
type Options struct {
	// Registry is the operations the Service serves (cmd hands core/ops.All); Open
	// refuses to start without one.
	Registry *Registry
	Dir      string              // any directory inside the repository
	Backend  string              // "auto" (default), "git", "herdr" or "tmux"
	Getenv   func(string) string // environment (tests inject); os.Getenv when nil
	GitBin   string              // git executable; "git" when empty
	TmuxBin  string              // tmux executable; "tmux" when empty (tests count its runs)
	Env      []string            // extra environment for child processes (tests)
	Timeout  time.Duration       // per child process; 60s when zero
	Session  string              // history session key; derived from the backend when empty
	Previous string              // the shell's previous directory (COPSE_PREVIOUS; git backend): back returns there
	// OnLockWait is told who holds the repository lock once a request has waited
	// LockNoticeAfter for it (the CLI prints it on stderr). It runs on the waiting
	// goroutine and must not block; core.WithLockWait overrides it for one request.
	OnLockWait func(holder LockHolder)
	// ListFirst says the caller's first request is a List (copse list, the picker): the
	// worktree ids list needs are then read on another CPU while git lists. Other callers
	// would read them for nothing.
	ListFirst bool
	// Refreshes, when set, makes copse refresh the index of each worktree it checks out
	// (create, restore, a land's sync) in the background, and tracks those refreshes so
	// the caller can wait for them before it exits (refresh.go).
	Refreshes *Refreshes
	// Self is the copse executable (an absolute path). The wrapper a create --run window
	// starts its command in calls it when the command starts and ends (copse agent-run),
	// so the agent's end is recorded, logged and its claim released with no watcher;
	// empty: the wrapper only runs the command, as before.
	Self string
}

// Plan is a prepared request: parsed into typed values, preconditions checked, the exact
// commands known. It runs with Service.Execute. A Plan that needs confirmation carries it;
// Execute re-checks the state token under the repository lock before running anything.
type Plan struct {
	Request  Request
	Confirm  *Confirmation // nil when no human confirmation is needed
	Commands []string      // the exact commands Execute would run (dry run shows these)
	Warnings []string
	Notices  []string // information about what Execute will do (it records the worktree first)
	// Token is what a confirmation approves: the worktree list plus everything the
	// confirmation shows; for plans without one, the list's token (ListToken).
	Token     StateToken
	ListToken StateToken

	Cmd Command // the typed command; unexported so only Prepare can make one
}

// A Command is the typed command an operation's prepare makes (createCmd, removeCmd, …)
// and its run reads back; only the operation that made it knows its type.
type Command any

// Service is the safety core for one repository. It is safe for concurrent use; mutations
// are serialised by an in-process mutex plus an advisory file lock in the git common dir.
type Service struct {
	impl *Env
}

// Open finds the repository holding opts.Dir, detects the backend and returns the Service.
// Not being inside a git work tree is a KindUsage error with code "not_a_repository".
func Open(ctx context.Context, opts Options) (*Service, error) { return openService(ctx, opts) }

// BackendName is "git" or "herdr".
func (s *Service) BackendName() string { return s.impl.Backend.Name() }

// HasWorkspaces reports a workspace backend (Herdr): `open` differs from `switch` and the
// picker shows its `o` key.
func (s *Service) HasWorkspaces() bool { return s.impl.Backend.HasWorkspaces() }

// RunsCommands reports a backend that starts a create's --run command in the new
// worktree's workspace (tmux): the picker's form asks for one.
func (s *Service) RunsCommands() bool {
	ok, _ := s.impl.Backend.Runs()
	return ok
}

// RepoRoot is the main checkout's path.
func (s *Service) RepoRoot() string { return s.impl.Root() }

// CurrentPath is the worktree this process runs in ("" when outside any).
func (s *Service) CurrentPath() string { return s.impl.Current() }

// List reads every worktree, branch first. With status, every row gets a Status computed
// on a bounded worker pool (a row that failed carries Status.Error).
func (s *Service) List(ctx context.Context, withStatus bool) (*Listing, error) {
	return s.impl.List(ctx, withStatus)
}

// Statuses computes the status of each path on a pool of at most workers goroutines and
// calls emit for each result as it arrives (from several goroutines; emit must be safe).
// It returns when all are done or ctx is cancelled.
func (s *Service) Statuses(ctx context.Context, paths []string, workers int, emit func(StatusResult)) {
	s.impl.statuses(ctx, NewStatusQueue(paths), workers, emit)
}

// StatusesFrom is Statuses in the queue's order, which may change while it runs
// (StatusQueue.Prioritize): the picker moves the rows on screen to the front.
func (s *Service) StatusesFrom(ctx context.Context, q *StatusQueue, workers int, emit func(StatusResult)) {
	s.impl.statuses(ctx, q, workers, emit)
}

// Processes counts the processes working in each of paths from one scan (the picker's
// row marker); nil when copse cannot tell on this system.
func (s *Service) Processes(paths []string) map[string]int {
	counts := liveCounts(paths)
	if counts == nil {
		return nil
	}
	out := make(map[string]int, len(paths))
	for i, p := range paths {
		out[p] = counts[i]
	}
	return out
}

// Agents says what works in each of rows (listed rows, with their workspaces): the
// picker's counterpart of list --status's agents, from one scan of /proc and at most one
// call to the backend. Keyed by path; rows with nothing working are absent.
func (s *Service) Agents(ctx context.Context, rows []Worktree) map[string][]Agent {
	cp := make([]Worktree, len(rows))
	for i, r := range rows {
		r.Agents = nil
		cp[i] = r
	}
	found := setProcesses(cp)
	s.impl.Backend.Agents(ctx, cp)
	setRunning(cp, found)
	s.impl.applyAgentStates(cp)
	out := map[string][]Agent{}
	for _, r := range cp {
		if len(r.Agents) > 0 {
			out[r.Path] = r.Agents
		}
	}
	return out
}

// Branches lists local branch names (completion in the create form).
func (s *Service) Branches(ctx context.Context) ([]string, error) { return s.impl.branches(ctx) }

// AllBranches lists local branches, then remote-tracking ones as <remote>/<name>
// (completion of create's BRANCH).
func (s *Service) AllBranches(ctx context.Context) ([]string, error) {
	local, err := s.impl.branches(ctx)
	if err != nil {
		return nil, err
	}
	remotes, err := s.impl.Git.Remotes(ctx, s.impl.Root())
	if err != nil {
		return nil, GitFailure(CodeBranchesFailed, err, "cannot list remotes")
	}
	remote, err := s.impl.Git.RemoteTrackingBranches(ctx, s.impl.Root(), remotes)
	if err != nil {
		return nil, GitFailure(CodeBranchesFailed, err, "cannot list remote branches")
	}
	for _, b := range remote {
		local = append(local, b.String())
	}
	return local, nil
}

// CheckBranch runs the branch parser on raw (git check-ref-format included) and returns
// the name git resolves it to, or the same error Prepare would give.
func (s *Service) CheckBranch(ctx context.Context, raw string) (string, error) {
	b, err := s.impl.ParseBranch(ctx, "branch", raw)
	return b.String(), err
}

// Prepare parses req into typed values, checks its preconditions against git's current
// state and builds the exact commands, without changing anything.
func (s *Service) Prepare(ctx context.Context, req Request) (*Plan, error) {
	return s.impl.prepare(ctx, req)
}

// Execute runs a prepared plan under the repository lock. If the worktree list changed
// since Prepare (the state token differs), nothing runs: a KindRefused error with code
// "stale_state". Postconditions are checked after; a mismatch is KindUncertain.
func (s *Service) Execute(ctx context.Context, p *Plan) (*Outcome, error) {
	return s.impl.execute(ctx, p)
}

// PrepareDryRun is Prepare for a dry run (the plan goes to DryRun, never to Execute): it
// takes no lock and makes no lock file, so it answers at once even while another copse
// changes the repository, and leaves a repository nobody changed exactly as it was.
func (s *Service) PrepareDryRun(ctx context.Context, req Request) (*Plan, error) {
	return s.impl.prepareLocking(ctx, req, false)
}

// DryRun returns what Execute would do: the checks passed and the commands, changing nothing.
func (s *Service) DryRun(p *Plan) *Outcome {
	out := &Outcome{Operation: p.Request.Op(), DryRun: true, Commands: p.Commands, Warnings: p.Warnings, Notices: p.Notices}
	if c, ok := p.Cmd.(*CreateSpec); ok {
		out.Base = c.StartBase()
	}
	return out
}

// Do is Prepare then Execute. A request that needs confirmation and is not approved is
// refused with code "needs_approval" (the error carries the confirmation line as Hint).
func (s *Service) Do(ctx context.Context, req Request, approved bool) (*Outcome, error) {
	p, err := s.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	if p.Confirm != nil && !approved {
		return nil, p.NeedsApproval("ask the user, then run again with approval (--yes, --approved)")
	}
	return s.Execute(ctx, p)
}

// NeedsApproval is the refusal for a plan that needs a human's yes and has none: the
// confirmation on one line (escaped, so a host can show it verbatim) and the token a
// host sends back as expected_state_token once the human agreed.
func (p *Plan) NeedsApproval(hint string) *Error {
	return &Error{Kind: KindRefused, Code: CodeNeedsApproval, Message: p.Confirm.Line(), Hint: hint, StateToken: p.Token}
}

// CheckApproval is what a host's approval must carry: for a plan that needs a yes, the
// expected_state_token of the confirmation the human saw. Without it the approval is
// refused as bad input (state_token_required); with another token, the state changed
// (stale_state). Either way nothing runs. Plans without a confirmation pass.
func (p *Plan) CheckApproval() error {
	if p.Confirm == nil {
		return nil
	}
	exp := expectedToken(p.Request)
	if exp == nil {
		return Usage(CodeStateTokenRequired, "expected_state_token",
			"send the request without approval first, show its needs_approval message to the user, then resend it approved with expected_state_token set to the state_token it returned",
			"an approved %s must carry the expected_state_token of the confirmation the user saw", p.Request.Op())
	}
	if *exp != string(p.Token) {
		return staleToken(*exp)
	}
	return nil
}

// Registry is the operations this Service serves (decode, schema, confirmation rules).
func (s *Service) Registry() *Registry { return s.impl.reg }

// SessionPath is the worktree this session is in: where the last switch or back went,
// else the worktree copse started in ("" when outside any).
func (s *Service) SessionPath() string { return s.impl.SessionAt() }

// History is this process's in-memory session history (back-switching).
func (s *Service) History() *History { return s.impl.History }

// Session is the history key of this process (Herdr workspace id, or "shell").
func (s *Service) Session() string { return s.impl.Session }
