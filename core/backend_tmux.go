package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/copse-dev/copse/tmux"
)

// The tmux backend: inside tmux (TMUX set, not inside Herdr), or with --backend tmux, each
// worktree gets a window of the current tmux session. git makes and removes worktrees
// exactly as the git backend; this file opens, finds, selects and closes the windows.
//
// copse marks the windows it makes with the window option tmux.MarkOption holding the
// worktree's path, and only such a window counts as the worktree's: a window the person
// made, or one named like the branch, is never taken. Windows are addressed by tmux's ids
// (@N), read from a listing of the session, never by name.

type tmuxBackend struct {
	s      *service
	git    *gitBackend
	client *tmux.Client
	tsess  string // $N: the session of the pane copse runs in
	window string // @N: the window of that pane
	// previous is what the session's last switch recorded (@copse-previous), read with
	// the session in one tmux run at start; seedHistory uses it.
	previous string
	// first holds the panes read by that run, for the first listing (takeFirst).
	firstMu sync.Mutex
	first   []tmux.Pane
	firstAt time.Time
}

// errNotInTmux is returned by newTmuxBackend when TMUX is not set.
var errNotInTmux = errors.New("not running inside tmux")

// tmuxClient is the client for the tmux server copse runs under and the pane it runs in,
// or errNotInTmux, or an error saying why that tmux cannot be used.
func tmuxClient(s *service) (*tmux.Client, string, error) {
	sock := tmux.SocketFromEnv(s.opts.Getenv("TMUX"))
	if sock == "" {
		return nil, "", errNotInTmux
	}
	pane := s.opts.Getenv("TMUX_PANE")
	if !tmux.IsPaneID(pane) {
		return nil, "", &Error{Kind: KindFailed, Code: CodeTmuxUnusable,
			Message: "TMUX is set but TMUX_PANE is " + quote(pane) + ", not a tmux pane id: copse cannot tell which tmux session it runs in",
			Hint:    "run copse from a shell inside a tmux pane, or use --backend git"}
	}
	env := os.Environ()
	if len(s.opts.Env) > 0 {
		env = append(env, s.opts.Env...)
	}
	return &tmux.Client{Bin: s.opts.TmuxBin, Socket: sock, Timeout: s.opts.Timeout, Env: env}, pane, nil
}

// tmuxSurvey is the one tmux run copse makes at start (tmux.Client.Survey), begun beside
// git's list when the backend may be tmux, so that inside tmux a command waits for the
// slower of the two, not for both one after the other.
type tmuxSurvey struct {
	done   chan struct{}
	client *tmux.Client
	pane   string
	at     tmux.Place
	panes  []tmux.Pane
	err    error
	took   time.Time // when the panes were read
}

// startTmuxSurvey begins the survey, or returns nil when copse is not inside a usable tmux
// (newTmuxBackend then says why, if tmux is the backend).
func startTmuxSurvey(ctx context.Context, s *service) *tmuxSurvey {
	c, pane, err := tmuxClient(s)
	if err != nil {
		return nil
	}
	sv := &tmuxSurvey{done: make(chan struct{}), client: c, pane: pane}
	go func() {
		defer close(sv.done)
		sv.at, sv.panes, sv.err = c.Survey(ctx, pane)
		sv.took = time.Now()
	}()
	return sv
}

func newTmuxBackend(ctx context.Context, s *service, sv *tmuxSurvey) (backend, error) {
	if sv == nil {
		c, pane, err := tmuxClient(s)
		if err != nil {
			return nil, err
		}
		sv = &tmuxSurvey{client: c, pane: pane}
		sv.at, sv.panes, sv.err = c.Survey(ctx, pane)
		sv.took = time.Now()
	} else {
		<-sv.done
	}
	if err := sv.err; err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: err, Message: "cancelled while asking tmux for its session"}
		}
		return nil, &Error{Kind: KindFailed, Code: CodeTmuxUnusable, Err: err,
			Message: "TMUX is set but tmux does not answer for pane " + sv.pane + ": " + tmuxText(err.Error(), 300),
			Hint:    "check that the tmux server of " + Escape(sv.client.Socket) + " runs, or use --backend git"}
	}
	b := &tmuxBackend{s: s, git: &gitBackend{s: s}, client: sv.client, tsess: sv.at.Session, window: sv.at.Window, previous: sv.at.Previous}
	b.first, b.firstAt = sv.panes, sv.took
	return b, nil
}

// takeFirst returns the panes the start-up survey read, once, while they are as fresh as
// Open's snapshot of git may be (firstTTL); later listings ask tmux again.
func (b *tmuxBackend) takeFirst() []tmux.Pane {
	b.firstMu.Lock()
	defer b.firstMu.Unlock()
	first := b.first
	b.first = nil
	if first == nil || time.Since(b.firstAt) > firstTTL {
		return nil
	}
	return first
}

// dropFirst forgets the survey's panes: a newer reading of git supersedes them too.
func (b *tmuxBackend) dropFirst() {
	b.firstMu.Lock()
	b.first = nil
	b.firstMu.Unlock()
}

func (b *tmuxBackend) name() string        { return "tmux" }
func (b *tmuxBackend) hasWorkspaces() bool { return true }

// session is the window copse runs in: remove refuses to close it (ruleNotOwnWorkspace).
func (b *tmuxBackend) session() string { return b.window }

// windows lists the session's panes grouped by copse's windows: canonical worktree path →
// the first window marked for it (the lowest index), with its panes.
func (b *tmuxBackend) windows(ctx context.Context) (map[string][]tmux.Pane, error) {
	panes := b.takeFirst()
	if panes == nil {
		var err error
		if panes, err = b.client.Panes(ctx, b.tsess); err != nil {
			return nil, tmuxFailure("list-panes", err)
		}
	}
	sort.SliceStable(panes, func(i, j int) bool { return panes[i].WindowIndex < panes[j].WindowIndex })
	out := map[string][]tmux.Pane{}
	for _, p := range panes {
		if p.Mark == "" {
			continue
		}
		k := canonical(p.Mark)
		if have := out[k]; len(have) > 0 && have[0].Window != p.Window {
			continue // a second window marked for the same worktree: the first is its window
		}
		out[k] = append(out[k], p)
	}
	return out, nil
}

// annotate sets each row's workspace to the id (@N) of its copse window. A failed listing
// is an error: showing no windows would make remove leave one on a deleted checkout.
func (b *tmuxBackend) annotate(ctx context.Context, rows []Worktree) error {
	ws, err := b.windows(ctx)
	if err != nil {
		return err
	}
	// Keys are canonical; git's paths usually are already, so a row is looked up as it is
	// first, and resolved (a system call per path component) only while some window is
	// still unmatched: with no copse window, or all of them found, the rest cost nothing.
	// At 300 worktrees that was 900 stats for every list inside tmux.
	left := len(ws)
	for i := 0; i < len(rows) && left > 0; i++ {
		ps, ok := ws[rows[i].Path]
		if !ok {
			ps, ok = ws[canonical(rows[i].Path)]
		}
		if ok && len(ps) > 0 {
			id := ps[0].Window
			rows[i].WorkspaceID = &id
			left--
		}
	}
	return nil
}

// panesOf are the panes of window ws, which must be copse's window of path.
func (b *tmuxBackend) panesOf(ctx context.Context, ws, path string) ([]tmux.Pane, error) {
	all, err := b.windows(ctx)
	if err != nil {
		return nil, err
	}
	ps := all[canonical(path)]
	if len(ps) == 0 || ps[0].Window != ws {
		return nil, nil
	}
	return ps, nil
}

// agentStatus says what runs in the panes of the worktree's window: each pane's
// foreground command, and how long ago the window last printed.
func (b *tmuxBackend) agentStatus(ctx context.Context, ws, path string) string {
	head := "its tmux window " + ws + ": "
	ps, err := b.panesOf(ctx, ws, path)
	if err != nil {
		return head + "what runs there is unknown (" + tmuxText(err.Error(), 200) + ")"
	}
	if len(ps) == 0 {
		return head + "no longer listed by tmux"
	}
	var parts []string
	for _, p := range ps {
		switch {
		case p.Dead:
			parts = append(parts, "pane "+p.ID+": its command ended")
		case liveproc.IsShell(p.Command):
			parts = append(parts, "pane "+p.ID+": shell "+tmuxText(p.Command, 40))
		default:
			parts = append(parts, "pane "+p.ID+" runs "+tmuxText(p.Command, 40))
		}
	}
	return head + strings.Join(parts, "; ") + "; last output " + ago(ps[0].WindowActivity)
}

func ago(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	if d < time.Second {
		return "just now"
	}
	return d.String() + " ago"
}

// workspaceLive is the live-process scan of a remove: processes inside the worktree, plus
// what runs in the panes of its window wherever its directory is (closing the window ends
// it). The shells tmux started for the window's panes, idle (no child), do not count.
func (b *tmuxBackend) workspaceLive(ctx context.Context, path, ws string) liveSet {
	if ws == "" {
		return liveIn(path, "")
	}
	ps, err := b.panesOf(ctx, ws, path)
	if err != nil {
		return liveSet{unknown: "the panes of tmux window " + ws + " could not be listed: " + tmuxText(err.Error(), 200)}
	}
	panePID := map[int]tmux.Pane{}
	for _, p := range ps {
		if !p.Dead {
			panePID[p.PID] = p
		}
	}
	sc, err := liveproc.Read([]string{path})
	if err != nil {
		return liveSet{unknown: liveUnknown(err)}
	}
	var l liveSet
	seen := map[string]bool{}
	for _, p := range sc.Roots[0] {
		if _, pane := panePID[p.PID]; pane && p.Shell && p.Children == 0 {
			l.idle = append(l.idle, p)
			continue
		}
		l.procs = append(l.procs, p)
		if len(p.Cmdline) > 0 {
			seen[baseName(p.Cmdline[0])] = true
		}
	}
	// A pane whose foreground command is not its shell runs something, maybe outside the
	// worktree (the person cd'd away): closing the window would end it too.
	for _, p := range ps {
		if p.Dead || liveproc.IsShell(p.Command) || seen[p.Command] {
			continue
		}
		l.procs = append(l.procs, liveproc.Proc{PID: p.PID, Cmdline: []string{p.Command}, Inside: "tmux pane " + p.ID + " of window " + ws})
	}
	return l
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// agents describes the panes of each row's window: an idle shell is nothing; a pane
// whose program waits to read the terminal is blocked (needs you); one whose window
// printed lately is working; else idle; a pane whose command ended is done.
func (b *tmuxBackend) agents(ctx context.Context, rows []Worktree) {
	var all map[string][]tmux.Pane
	var err error
	listed := false
	for i := range rows {
		ws := rows[i].WorkspaceID
		if ws == nil || *ws == "" {
			continue
		}
		if !listed {
			all, err = b.windows(ctx)
			listed = true
		}
		ps := all[canonical(rows[i].Path)]
		if err != nil || len(ps) == 0 || ps[0].Window != *ws {
			rows[i].Agents = append(rows[i].Agents, Agent{State: AgentUnknown, Workspace: *ws})
			continue
		}
		for _, p := range ps {
			rows[i].Agents = append(rows[i].Agents, paneAgent(p)...)
		}
	}
}

// isCopse reports a pane's program that is copse: this process, or another copse's.
func isCopse(fg liveproc.Foreground) bool {
	return fg.PID == os.Getpid() || fg.Name == "copse" || fg.Name == "copse-mcp"
}

func paneAgent(p tmux.Pane) []Agent {
	if p.Dead {
		return []Agent{{Command: p.Command, State: AgentDone, Workspace: p.Window}}
	}
	fg := liveproc.ForegroundOf(p.PID)
	if fg.Children == 0 && liveproc.IsShell(fg.Name) {
		return nil // a shell at its prompt: nothing runs there
	}
	if isCopse(fg) {
		return nil // copse itself (the picker, list --watch) is never an agent
	}
	name := fg.Name
	if name == "" {
		name = p.Command
	}
	a := Agent{PID: p.PID, Command: name, State: AgentIdle, Workspace: p.Window}
	switch {
	case fg.Reading:
		a.State = AgentBlocked
	case time.Since(p.WindowActivity) < AgentQuietAfter:
		a.State = AgentWorking
	}
	return []Agent{a}
}

// closesWorkspace is the confirmation's line about the window a remove closes.
func (b *tmuxBackend) closesWorkspace(ws string) string {
	return "copse closes tmux window " + ws + " (tmux ends the processes of its panes)"
}

// ---- create

func (b *tmuxBackend) windowArgs(dir, branch string, label Label, focus bool, run *runSpec) tmux.NewWindowArgs {
	name := label.s
	if name == "" {
		name = branch
	}
	if name == "" {
		name = baseName(dir)
	}
	a := tmux.NewWindowArgs{Session: b.tsess, Dir: dir, Name: name, Focus: focus}
	if run != nil {
		a.Env, a.Argv = run.env, run.argv
	}
	return a
}

func (b *tmuxBackend) createCommands(c *createCmd) ([]string, error) {
	cmds, err := b.git.createCommands(c)
	if err != nil {
		return nil, err
	}
	w, err := b.newWindowCommands(b.windowArgs(c.path.s, c.branch.s, c.label, c.focus, c.run))
	if err != nil {
		return nil, err
	}
	return append(cmds, w...), nil
}

func (b *tmuxBackend) newWindowCommands(a tmux.NewWindowArgs) ([]string, error) {
	nw, err := tmux.NewWindow(a)
	if err != nil {
		return nil, builderErr(err)
	}
	mark, err := tmux.SetWindowMark("@0", a.Dir)
	if err != nil {
		return nil, builderErr(err)
	}
	// The mark's target is the id new-window prints; shown as a placeholder.
	return []string{nw.String(), strings.Replace(mark.String(), "@0", "<new window>", 1)}, nil
}

// create makes the worktree with git, then its window. A window that cannot be opened
// leaves a good worktree: that is said precisely (and `copse open` opens it), not undone.
func (b *tmuxBackend) create(ctx context.Context, c *createCmd) (string, error) {
	if _, err := b.git.create(ctx, c); err != nil {
		return "", err
	}
	id, err := b.client.NewWindow(ctx, b.windowArgs(c.path.s, c.branch.s, c.label, c.focus, c.run))
	if err != nil {
		e := tmuxFailure("new-window", err)
		what := "its tmux window could not be opened"
		if c.run != nil {
			what += ", so " + quote(c.run.display) + " was not started"
		}
		return "", &Error{Kind: KindUncertain, Code: CodeTmuxWindowFailed, Err: err,
			Message: "the worktree " + Escape(c.path.s) + " was created, but " + what + ": " + e.Message,
			Hint:    "open it with `copse open " + quoteDisplay(c.path.s) + "`"}
	}
	return id, nil
}

// ---- open, switch, back

func (b *tmuxBackend) openCommands(c *targetCmd) ([]string, error) {
	return b.targetCommands(c, c.focus)
}

func (b *tmuxBackend) switchCommands(c *targetCmd) ([]string, error) {
	return b.targetCommands(c, true)
}

func (b *tmuxBackend) targetCommands(c *targetCmd, focus bool) ([]string, error) {
	if c.wsID != "" {
		if !focus {
			return nil, nil // already open, left where it is
		}
		cmd, err := tmux.SelectWindow(c.wsID)
		if err != nil {
			return nil, builderErr(err)
		}
		return []string{cmd.String()}, nil
	}
	return b.newWindowCommands(b.windowArgs(c.target.Path, c.target.Branch, c.label, focus, nil))
}

func (b *tmuxBackend) open(ctx context.Context, c *targetCmd) (string, error) {
	return b.openWindow(ctx, c, c.focus)
}

// switchTo (switch and back) brings the window forward, opening it when it has none, and
// records the worktree it leaves in the tmux session, so that a later `copse back` (its
// own process) returns there.
func (b *tmuxBackend) switchTo(ctx context.Context, c *targetCmd) (string, error) {
	ws, err := b.openWindow(ctx, c, true)
	if err != nil {
		return "", err
	}
	if c.from != "" && canonical(c.from) != canonical(c.target.Path) {
		// Only back's memory is lost when this fails; the switch itself happened.
		_ = b.client.SetPrevious(context.WithoutCancel(ctx), b.tsess, c.from)
	}
	return ws, nil
}

func (b *tmuxBackend) openWindow(ctx context.Context, c *targetCmd, focus bool) (string, error) {
	if c.wsID != "" {
		if focus {
			if err := b.client.SelectWindow(ctx, c.wsID); err != nil {
				return "", tmuxFailure("select-window", err)
			}
		}
		return c.wsID, nil
	}
	id, err := b.client.NewWindow(ctx, b.windowArgs(c.target.Path, c.target.Branch, c.label, focus, nil))
	if err != nil {
		return "", tmuxFailure("new-window", err)
	}
	return id, nil
}

// seedHistory gives back, in a new process, the worktree the last switch in this tmux
// session left (see switchTo).
func (b *tmuxBackend) seedHistory(_ context.Context, snap snapshot) {
	prev := b.previous
	if prev == "" {
		return
	}
	if b.s.existsIn(snap)(prev) {
		b.s.history.Visit(b.s.session, prev)
	}
}

// ---- remove

func (b *tmuxBackend) removeCommands(c *removeCmd) ([]string, error) {
	cmds, err := b.git.removeCommands(c)
	if err != nil || c.wsID == "" {
		return cmds, err
	}
	kill, err := tmux.KillWindow(c.wsID)
	if err != nil {
		return nil, builderErr(err)
	}
	return append(cmds, kill.String()), nil
}

// remove removes the worktree with git first (a refusal then leaves the window as it was),
// then closes its window.
func (b *tmuxBackend) remove(ctx context.Context, c *removeCmd) error {
	if e := ruleNotOwnWorkspace(c, b.window); e != nil {
		return e
	}
	if err := b.git.remove(ctx, c); err != nil {
		return err
	}
	if c.wsID == "" {
		return nil
	}
	if err := b.client.KillWindow(context.WithoutCancel(ctx), c.wsID); err != nil {
		var te *tmux.Error
		if errors.As(err, &te) && te.Kind == tmux.ErrExit {
			return nil // the window was closed meanwhile: what was asked is done
		}
		return &Error{Kind: KindUncertain, Code: CodeTmuxWindowFailed, Err: err,
			Message: "the worktree " + Escape(c.target.Path) + " was removed, but its tmux window " + c.wsID + " could not be closed: " + tmuxText(err.Error(), 300),
			Hint:    "close it by hand (tmux kill-window -t " + c.wsID + ")"}
	}
	return nil
}

// ---- errors

func tmuxFailure(verb string, err error) *Error {
	var ae *tmux.ArgError
	if errors.As(err, &ae) {
		return builderErr(err)
	}
	var te *tmux.Error
	if errors.As(err, &te) && te.Kind == tmux.ErrCanceled {
		return &Error{Kind: KindCancelled, Code: CodeCancelled, Err: err, Message: "tmux " + verb + " cancelled"}
	}
	hint := "check that tmux works (tmux -V), or use --backend git"
	if te != nil && te.Uncertain() {
		hint = "look at your tmux windows before trying again"
	}
	return &Error{Kind: KindFailed, Code: CodeTmuxFailed, Err: err, Hint: hint,
		Message: fmt.Sprintf("tmux %s failed: %s", verb, tmuxText(err.Error(), 300))}
}

func tmuxText(s string, max int) string { return herdrText(s, max) }
