package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/herdr"
)

// The Herdr backend: inside a Herdr pane, worktrees are made, opened and removed through
// `herdr worktree …`, so each one gets (and loses) its workspace. The engine still owns
// parsing, preconditions, locking and git's postconditions; this file only runs Herdr,
// checks that Herdr's reply is about what was asked, and turns Herdr's failures into
// copse's error kinds.
//
// How a failed run is reported depends on whether Herdr may have acted:
//   - Herdr said no (JSON error envelope), or never started: a *Error of kind refused or
//     failed. The engine re-reads git and returns it only if nothing changed.
//   - Herdr may have acted (killed at the timeout, reply lost, unreadable or of the wrong
//     type): also a *Error of kind failed, never uncertain, because for create and remove
//     the engine decides by re-reading git: nothing changed → this failure; changed →
//     uncertain. open changes no git state, so open reconciles here with Herdr's list.
//   - Herdr's success reply names another checkout or branch than asked: a *Error of kind
//     uncertain, whatever git says (Herdr acted on something; never retry).

type herdrBackend struct {
	s      *core.Env
	git    *gitBackend // worktrees without an open workspace are removed by git
	client *herdr.Client
	det    herdr.Detection
	sess   string
}

// notInHerdr is a detection that found no usable Herdr for this repository: pickBackend
// falls back to git under --backend auto, and --backend herdr is a usage error naming why.
type notInHerdr struct {
	why string
	err error
}

func (e *notInHerdr) Error() string        { return e.why }
func (e *notInHerdr) Unwrap() error        { return e.err }
func (e *notInHerdr) Is(target error) bool { return target == errNotInHerdr }

// newHerdrBackend detects Herdr (HERDR_ENV=1, HERDR_BIN_PATH or herdr on PATH, version at
// least herdr.MinVersion; herdr.Detect caches the answer in memory for ten minutes) and
// checks that the repository has a main work tree to scope every call with.
func newHerdrBackend(ctx context.Context, s *core.Env) (core.Backend, error) {
	getenv := s.Opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("HERDR_ENV") != "1" {
		// Decided here, before Detect, so nothing is started outside Herdr.
		return nil, &notInHerdr{why: "HERDR_ENV is not 1: copse is not running in a Herdr pane", err: herdr.ErrNotInHerdr}
	}
	if why := herdrRepoProblem(s); why != "" {
		return nil, &notInHerdr{why: why}
	}
	det, err := herdr.Detect(ctx, getenv)
	switch {
	case errors.Is(err, herdr.ErrNotInHerdr):
		return nil, &notInHerdr{why: "HERDR_ENV is not 1: copse is not running in a Herdr pane", err: err}
	case errors.Is(err, herdr.ErrVersionTooOld):
		return nil, &core.Error{Kind: core.KindFailed, Code: core.CodeHerdrTooOld, Err: err,
			Message: core.Escape(err.Error()),
			Hint:    "upgrade herdr to " + herdr.MinVersion.String() + " or newer, or run copse with --backend git"}
	case err != nil && ctx.Err() != nil:
		return nil, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err, Message: "cancelled while detecting herdr"}
	case err != nil:
		return nil, &core.Error{Kind: core.KindFailed, Code: core.CodeHerdrUnusable, Err: err,
			Message: "HERDR_ENV=1 but herdr cannot be used: " + core.Escape(err.Error()),
			Hint:    "check HERDR_BIN_PATH and that `herdr --version` works, or run copse with --backend git"}
	}
	env := os.Environ()
	if len(s.Opts.Env) > 0 {
		env = append(env, s.Opts.Env...)
	}
	b := &herdrBackend{
		s:      s,
		git:    &gitBackend{s: s},
		client: &herdr.Client{Bin: det.Bin, Timeout: s.Opts.Timeout, Env: env},
		det:    det,
		sess:   "herdr",
	}
	if id, err := core.ParseWorkspaceID(getenv("HERDR_WORKSPACE_ID")); err == nil {
		b.sess = id.String()
	}
	return b, nil
}

// herdrRepoProblem says why this repository cannot be driven through Herdr: every call is
// scoped with --cwd <main checkout>, so there must be a main work tree at an absolute path.
func herdrRepoProblem(s *core.Env) string {
	root := s.Root()
	if root == "" || !filepath.IsAbs(root) {
		return "the repository has no main checkout at an absolute path to scope herdr worktree commands with"
	}
	s.FirstMu.Lock()
	first := s.First
	s.FirstMu.Unlock()
	if first != nil && len(first.Trees) > 0 && first.Trees[0].Bare {
		return "the repository is bare: herdr worktree commands need a main work tree (" + core.Escape(root) + " has none)"
	}
	return ""
}

func (b *herdrBackend) Name() string        { return "herdr" }
func (b *herdrBackend) HasWorkspaces() bool { return true }
func (b *herdrBackend) Session() string     { return b.sess }

// Annotate sets each row's open workspace from `herdr worktree list --cwd <main>`,
// matching checkouts by canonical path. A failed list is an error: showing no workspaces
// would make remove go through git and leave a workspace on a deleted checkout.
func (b *herdrBackend) Annotate(ctx context.Context, rows []core.Worktree) error {
	l, err := b.client.List(ctx, b.s.Root())
	if err != nil {
		return herdrFailure("list", err)
	}
	return annotateRows(rows, l)
}

// AgentStatus reads the workspace's agent_status from `herdr workspace list` (Herdr's
// worktree list does not carry it). It only adds to a refusal or a confirmation that
// processes already decide, so a failed call is said ("agent status unknown") and refuses
// nothing more. A workspace that Herdr says shows another checkout is not believed.
func (b *herdrBackend) AgentStatus(ctx context.Context, ws, path string) string {
	head := "its Herdr workspace " + ws + ": "
	list, err := b.client.Workspaces(ctx)
	if err != nil {
		return head + "agent status unknown (" + core.HerdrText(err.Error(), 200) + ")"
	}
	for _, w := range list {
		if w.WorkspaceID != ws {
			continue
		}
		if w.Worktree != nil && core.Canonical(w.Worktree.CheckoutPath) != core.Canonical(path) {
			return head + "agent status unknown (herdr workspace list says it shows " + core.HerdrText(w.Worktree.CheckoutPath, 200) + ")"
		}
		return head + agentPhrase(w.AgentStatus)
	}
	return head + "agent status unknown (herdr workspace list does not list it)"
}

// WorkspaceLive: the idle shells of the workspace's panes carry its id in their
// environment (HERDR_WORKSPACE_ID).
func (b *herdrBackend) WorkspaceLive(_ context.Context, path, ws string) core.LiveSet {
	return core.LiveIn(path, ws)
}

func (b *herdrBackend) ClosesWorkspace(ws string) string {
	return "Herdr closes workspace " + ws + " and ends the processes running in it"
}

// Agents gives each row with a workspace its agent_status, from one `herdr workspace list`.
func (b *herdrBackend) Agents(ctx context.Context, rows []core.Worktree) {
	var list []herdr.WorkspaceInfo
	var err error
	for i := range rows {
		ws := rows[i].WorkspaceID
		if ws == nil || *ws == "" {
			continue
		}
		if list == nil && err == nil {
			if list, err = b.client.Workspaces(ctx); err == nil && list == nil {
				list = []herdr.WorkspaceInfo{}
			}
		}
		state := core.AgentUnknown
		for _, w := range list {
			if w.WorkspaceID == *ws && (w.Worktree == nil || core.Canonical(w.Worktree.CheckoutPath) == core.Canonical(rows[i].Path)) {
				state = herdrAgentState(w.AgentStatus)
			}
		}
		a := core.Agent{State: state, Workspace: *ws}
		if state != core.AgentUnknown {
			a.Source = agentstate.SourceHerdr
		}
		rows[i].Agents = append(rows[i].Agents, a)
	}
}

// herdrAgentState keeps Herdr's five states; anything else is unknown.
func herdrAgentState(s string) string {
	switch s {
	case herdr.AgentWorking, herdr.AgentBlocked, herdr.AgentIdle, herdr.AgentDone:
		return s
	}
	return core.AgentUnknown
}

// agentPhrase says one agent_status in words; Herdr's own "unknown" is a workspace whose
// panes run no agent it recognises, not a failure to ask.
func agentPhrase(status string) string {
	switch status {
	case herdr.AgentWorking:
		return "agent working"
	case herdr.AgentBlocked:
		return "agent blocked (waiting for input)"
	case herdr.AgentDone:
		return "agent done (finished, not yet looked at)"
	case herdr.AgentIdle:
		return "agent idle"
	case herdr.AgentUnknown:
		return "no agent Herdr recognises"
	}
	return "agent " + core.HerdrText(status, 40)
}

func annotateRows(rows []core.Worktree, l herdr.ListResult) error {
	idx := make(map[string]int, len(rows))
	for i, r := range rows {
		idx[core.Canonical(r.Path)] = i
	}
	for _, w := range l.Worktrees {
		if w.OpenWorkspaceID == "" {
			continue
		}
		id, err := core.ParseWorkspaceID(w.OpenWorkspaceID)
		if err != nil {
			return &core.Error{Kind: core.KindFailed, Code: core.CodeHerdrBadReply, Err: err,
				Message: fmt.Sprintf("herdr worktree list reported workspace %s for %s, which is not a Herdr workspace id",
					core.HerdrText(w.OpenWorkspaceID, 40), core.HerdrText(w.Path, 200)),
				Hint: "run copse with --backend git; please report this"}
		}
		if i, ok := idx[core.Canonical(w.Path)]; ok {
			ws := id.String()
			rows[i].WorkspaceID = &ws
		}
	}
	return nil
}

// ---- create

func (b *herdrBackend) createArgs(c *core.CreateSpec) herdr.CreateArgs {
	// --path and --base always: git and copse then agree on where and from what. For an
	// existing branch Herdr ignores --base; c.base is the branch tip, checked afterwards.
	return herdr.CreateArgs{Cwd: c.Cwd, Branch: c.Branch.String(), Base: c.Base.OID, Path: c.Path.String(), Label: c.Label.String(), Focus: c.Focus}
}

func (b *herdrBackend) CreateCommands(c *core.CreateSpec) ([]string, error) {
	cmd, err := herdr.CreateCmd(b.createArgs(c))
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return []string{cmd.String()}, nil
}

func (b *herdrBackend) Create(ctx context.Context, c *core.CreateSpec) (string, error) {
	r, err := b.client.Create(ctx, b.createArgs(c))
	if err != nil {
		return "", herdrFailure("create", err)
	}
	var why []string
	if core.Canonical(r.Worktree.Path) != core.Canonical(c.Path.String()) {
		why = append(why, "it names checkout "+core.HerdrText(r.Worktree.Path, 200)+", not "+core.Escape(c.Path.String()))
	}
	if ww := r.Workspace.Worktree; ww != nil && ww.CheckoutPath != "" && core.Canonical(ww.CheckoutPath) != core.Canonical(c.Path.String()) {
		why = append(why, "its workspace shows checkout "+core.HerdrText(ww.CheckoutPath, 200)+", not "+core.Escape(c.Path.String()))
	}
	if r.Worktree.Branch != c.Branch.String() {
		why = append(why, "it names branch "+core.HerdrText(r.Worktree.Branch, 100)+", not "+core.Escape(c.Branch.String()))
	}
	if !r.Worktree.IsLinkedWorktree {
		why = append(why, "it says the checkout is not a linked worktree")
	}
	ws, err := core.ParseWorkspaceID(r.Workspace.WorkspaceID)
	if err != nil {
		why = append(why, "its workspace id "+core.HerdrText(r.Workspace.WorkspaceID, 40)+" is not a Herdr workspace id")
	}
	if len(why) > 0 {
		return "", replyMismatch("create", why)
	}
	return ws.String(), nil
}

// ---- open, switch, back

func (b *herdrBackend) openArgs(c *core.TargetSpec, focus bool, label core.Label) herdr.OpenArgs {
	// Always the path git listed, also when the request named a branch: Herdr then opens
	// exactly the checkout the engine checked.
	return herdr.OpenArgs{Cwd: c.Cwd, Path: c.Target.Path, Label: label.String(), Focus: focus}
}

func (b *herdrBackend) OpenCommands(c *core.TargetSpec) ([]string, error) {
	return b.commands(b.openArgs(c, c.Focus, c.Label))
}

// switch (and back) is open with focus: the workspace showing the worktree comes forward.
func (b *herdrBackend) SwitchCommands(c *core.TargetSpec) ([]string, error) {
	return b.commands(b.openArgs(c, true, core.Label{}))
}

func (b *herdrBackend) commands(a herdr.OpenArgs) ([]string, error) {
	cmd, err := herdr.OpenCmd(a)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return []string{cmd.String()}, nil
}

func (b *herdrBackend) Open(ctx context.Context, c *core.TargetSpec) (string, error) {
	return b.openWith(ctx, c, b.openArgs(c, c.Focus, c.Label))
}

func (b *herdrBackend) SwitchTo(ctx context.Context, c *core.TargetSpec) (string, error) {
	return b.openWith(ctx, c, b.openArgs(c, true, core.Label{}))
}

func (b *herdrBackend) openWith(ctx context.Context, c *core.TargetSpec, args herdr.OpenArgs) (string, error) {
	r, err := b.client.Open(ctx, args) // a builder refusal comes back as *herdr.ArgError
	if err != nil {
		return "", b.reconcileOpen(ctx, c, err)
	}
	var why []string
	if core.Canonical(r.Worktree.Path) != core.Canonical(c.Target.Path) {
		why = append(why, "it names checkout "+core.HerdrText(r.Worktree.Path, 200)+", not "+core.Escape(c.Target.Path))
	}
	if ww := r.Workspace.Worktree; ww != nil && ww.CheckoutPath != "" && core.Canonical(ww.CheckoutPath) != core.Canonical(c.Target.Path) {
		why = append(why, "its workspace shows checkout "+core.HerdrText(ww.CheckoutPath, 200)+", not "+core.Escape(c.Target.Path))
	}
	// A worktree mid-rebase or mid-bisect is detached to git (and so to Herdr), though copse
	// lists it under the branch it holds: Herdr naming no branch there is no mismatch.
	heldOnly := c.Target.Detached && r.Worktree.Branch == ""
	if c.Target.Branch != "" && r.Worktree.Branch != c.Target.Branch && !heldOnly {
		why = append(why, "it names branch "+core.HerdrText(r.Worktree.Branch, 100)+", not "+core.Escape(c.Target.Branch))
	}
	ws, err := core.ParseWorkspaceID(r.Workspace.WorkspaceID)
	if err != nil {
		why = append(why, "its workspace id "+core.HerdrText(r.Workspace.WorkspaceID, 40)+" is not a Herdr workspace id")
	}
	if len(why) > 0 {
		return "", replyMismatch("open", why)
	}
	return ws.String(), nil
}

// reconcileOpen: open changes no git state, so when Herdr may have acted (timeout, lost
// or unreadable reply) the engine's token comparison cannot tell; Herdr's own list can.
// The same workspace (or none) shows the target as before: nothing was opened or closed, a
// plain failure. A workspace appeared, changed or went away: uncertain.
func (b *herdrBackend) reconcileOpen(ctx context.Context, c *core.TargetSpec, runErr error) error {
	e := herdrFailure("open", runErr)
	if !mayHaveActed(runErr) {
		return e
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
	defer cancel()
	l, err := b.client.List(rctx, c.Cwd)
	if err != nil {
		return &core.Error{Kind: uncertainOr(e), Code: core.CodeOpenUnverified, Err: runErr,
			Message: e.Message + "; Herdr's workspaces could not be read back: " + core.HerdrText(err.Error(), 300),
			Hint:    "look at Herdr's sidebar, or run `copse list`"}
	}
	now := ""
	for _, w := range l.Worktrees {
		if core.Canonical(w.Path) == core.Canonical(c.Target.Path) {
			now = w.OpenWorkspaceID
		}
	}
	switch {
	case now == "" && c.WsID == "":
		e.Message += "; no workspace shows " + core.Escape(c.Target.Path) + ", so nothing was opened"
		return e
	case now == c.WsID:
		// The same workspace shows it as before: nothing was opened or closed. Only its
		// focus or label may have changed, which is harmless to ask for again.
		e.Message += "; " + core.Escape(c.Target.Path) + " is still open in workspace " + core.Escape(c.WsID) +
			" and nothing else was opened (whether its focus or label changed is unknown)"
		return e
	case now == "":
		return &core.Error{Kind: uncertainOr(e), Code: core.CodeOpenUncertain, Err: runErr,
			Message: e.Message + "; workspace " + core.Escape(c.WsID) + " no longer shows " + core.Escape(c.Target.Path),
			Hint:    "look at Herdr's sidebar before trying again"}
	default:
		return &core.Error{Kind: uncertainOr(e), Code: core.CodeOpenUncertain, Err: runErr,
			Message: e.Message + "; workspace " + core.HerdrText(now, 40) + " now shows " + core.Escape(c.Target.Path),
			Hint:    "look at Herdr's sidebar before trying again"}
	}
}

// uncertainOr keeps a cancellation a cancellation; anything else becomes uncertain.
func uncertainOr(e *core.Error) core.Kind {
	if e.Kind == core.KindCancelled {
		return core.KindCancelled
	}
	return core.KindUncertain
}

// ---- remove

func (b *herdrBackend) RemoveCommands(c *core.RemoveSpec) ([]string, error) {
	if c.WsID == "" {
		return b.git.RemoveCommands(c)
	}
	cmd, err := b.removeCmd(c)
	if err != nil {
		return nil, err
	}
	return []string{cmd.String()}, nil
}

func (b *herdrBackend) removeCmd(c *core.RemoveSpec) (herdr.Cmd, error) {
	if e := core.RuleNotOwnWorkspace(c, b.sess); e != nil {
		return herdr.Cmd{}, e
	}
	if e := core.RuleHerdrNotLocked(c); e != nil {
		return herdr.Cmd{}, e
	}
	cmd, err := herdr.RemoveCmd(c.WsID, c.Force)
	if err != nil {
		return herdr.Cmd{}, core.BuilderErr(err)
	}
	return cmd, nil
}

// Remove goes through Herdr when a workspace shows the worktree (Herdr closes it and, with
// --force, ends its processes), and through git, exactly as the git backend, otherwise.
func (b *herdrBackend) Remove(ctx context.Context, c *core.RemoveSpec) error {
	if c.WsID == "" {
		return b.git.Remove(ctx, c)
	}
	if _, err := b.removeCmd(c); err != nil {
		return err
	}
	r, err := b.client.Remove(ctx, c.WsID, c.Force)
	if err != nil {
		return herdrFailure("remove", err)
	}
	if core.Canonical(r.Path) != core.Canonical(c.Target.Path) {
		return replyMismatch("remove", []string{"it names checkout " + core.HerdrText(r.Path, 200) + ", not " + core.Escape(c.Target.Path)})
	}
	return nil
}

// ---- errors

// herdrFailure turns a failed herdr run into copse's vocabulary. It never returns
// KindUncertain: whether a mutation happened is decided from git by the engine (create,
// remove) or from Herdr's list (open).
func herdrFailure(action string, err error) *core.Error {
	var ae *herdr.ArgError
	if errors.As(err, &ae) {
		return core.BuilderErr(err)
	}
	var he *herdr.Error
	if !errors.As(err, &he) {
		return core.Failed(herdrActionFailed(action), err, "", "herdr worktree %s failed: %s", action, core.HerdrText(err.Error(), 300))
	}
	what := "herdr worktree " + action
	mk := func(kind core.Kind, code, hint, msg string) *core.Error {
		return &core.Error{Kind: kind, Code: code, Err: err, Hint: hint, Message: msg}
	}
	switch he.Kind {
	case herdr.ErrReply:
		msg := what + " failed: " + core.HerdrText(he.Code, 80) + ": " + core.HerdrText(he.Message, 300)
		switch he.Code {
		case "server_not_running":
			return mk(core.KindFailed, core.CodeHerdrNotRunning, "start herdr, or use --backend git",
				what+": no Herdr server is running ("+core.HerdrText(he.Message, 300)+")")
		case "protocol_mismatch":
			return mk(core.KindFailed, core.CodeHerdrProtocolMismatch,
				"restart herdr: its binary was upgraded while the old server kept running; or use --backend git", msg)
		case "dirty_worktree_requires_force":
			return core.ForceHelps(mk(core.KindRefused, core.CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
				"the worktree has uncommitted changes; Herdr refused to remove it: "+core.HerdrText(he.Message, 300)))
		case "worktree_operation_in_progress":
			return mk(core.KindFailed, core.CodeHerdrBusy, "wait until Herdr has finished, look at `copse list`, then try again", msg)
		case "not_linked_worktree":
			return mk(core.KindFailed, core.CodeHerdrNotLinked,
				"close that workspace in Herdr, then remove the worktree again (copse then removes it with git)", msg)
		case "linked_worktree_source", "not_git_worktree", "workspace_not_found":
			return mk(core.KindFailed, herdrActionFailed(action),
				"copse scopes every call with --cwd <main checkout>; if this persists, use --backend git and please report it", msg)
		}
		return mk(core.KindFailed, herdrActionFailed(action), "", msg)
	case herdr.ErrUsage:
		return mk(core.KindFailed, core.CodeHerdrUsageBug, "please report this bug in copse; meanwhile use --backend git",
			what+" rejected copse's arguments (exit 2): this is a bug in copse, or a Herdr whose command line changed: "+core.HerdrText(he.Message, 300))
	case herdr.ErrTimeout:
		return mk(core.KindFailed, core.CodeHerdrTimeout,
			"Herdr's server may still finish it: run `copse list` before trying again",
			what+" "+core.HerdrText(he.Message, 100)+" and was stopped")
	case herdr.ErrCanceled:
		return mk(core.KindCancelled, core.CodeCancelled, "run `copse list` to see what exists", what+" cancelled")
	case herdr.ErrWrongReply:
		return mk(core.KindFailed, core.CodeHerdrBadReply, "run `copse list` before trying again",
			what+" gave a reply copse cannot trust: "+core.HerdrText(he.Message, 300))
	case herdr.ErrOutputLimit:
		return mk(core.KindFailed, core.CodeHerdrOutputLimit, "run `copse list` before trying again",
			what+" printed more than the output limit; its reply is lost")
	default: // herdr.ErrExec
		hint := "check that herdr works (herdr --version), or use --backend git"
		if !he.Started {
			hint = "check HERDR_BIN_PATH and that herdr is installed, or use --backend git"
		}
		return mk(core.KindFailed, core.CodeHerdrFailed, hint, what+" failed: "+core.HerdrText(he.Message, 300))
	}
}

// herdrActionFailed is the code of a failed herdr worktree ACTION.
func herdrActionFailed(action string) string {
	switch action {
	case "list":
		return core.CodeHerdrListFailed
	case "create":
		return core.CodeHerdrCreateFailed
	case "open":
		return core.CodeHerdrOpenFailed
	}
	return core.CodeHerdrRemoveFailed
}

// mayHaveActed reports a run after which Herdr's server may have done the work: the
// process started and was stopped, died, or answered with a reply that cannot be read.
func mayHaveActed(err error) bool {
	var he *herdr.Error
	if !errors.As(err, &he) {
		return false
	}
	return he.Uncertain() || (he.Kind == herdr.ErrExec && he.Started && he.ExitCode == -1)
}

// replyMismatch is a success reply about something other than what was asked: Herdr did
// something, to somewhere else, or lies. Uncertain, never retried.
func replyMismatch(action string, why []string) *core.Error {
	msg := "herdr worktree " + action + " replied with success, but "
	for i, w := range why {
		if i > 0 {
			msg += "; "
		}
		msg += w
	}
	return &core.Error{Kind: core.KindUncertain, Code: core.CodeHerdrReplyMismatch, Message: msg,
		Hint: "run `copse list` and look at Herdr's sidebar; do not retry blindly"}
}

// Runs: Herdr's worktree commands open a workspace but start nothing in its pane.
func (b *herdrBackend) Runs() (bool, string) {
	return false, "Herdr gives copse no way to start a program in a pane, and copse does not run it in the foreground"
}

// RemovesLocked: Herdr refuses to remove a locked worktree, whatever --force says.
func (b *herdrBackend) RemovesLocked() bool { return false }
