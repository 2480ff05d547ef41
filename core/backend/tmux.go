package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/notify"
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
	s      *core.Env
	git    *gitBackend
	client *tmux.Client
	tsess  string // $N: the session of the pane copse runs in
	window string // @N: the window of that pane
	// previous is what the session's last switch recorded (@copse-previous), read with
	// the session in one tmux run at start; seedHistory uses it. prevWindow is the window
	// that switch left (@copse-previous-window; "" when none, or marked for another
	// worktree since), which back selects again. sessionOf is each window's session, as
	// the last listing read it. prevMu guards the three.
	prevMu     sync.Mutex
	previous   string
	prevWindow string
	sessionOf  map[string]string
	active     string // the session's current window, as the last listing read it
	// first holds the panes read by that run, for the first listing (takeFirst).
	firstMu sync.Mutex
	first   []tmux.Pane
	firstAt time.Time
}

// errNotInTmux is returned by newTmuxBackend when TMUX is not set.
var errNotInTmux = errors.New("not running inside tmux")

// tmuxClient is the client for the tmux server copse runs under and the pane it runs in,
// or errNotInTmux, or an error saying why that tmux cannot be used.
func tmuxClient(s *core.Env) (*tmux.Client, string, error) {
	sock := tmux.SocketFromEnv(s.Opts.Getenv("TMUX"))
	if sock == "" {
		return nil, "", errNotInTmux
	}
	pane := s.Opts.Getenv("TMUX_PANE")
	if !tmux.IsPaneID(pane) {
		return nil, "", &core.Error{Kind: core.KindFailed, Code: core.CodeTmuxUnusable,
			Message: "TMUX is set but TMUX_PANE is " + core.Quote(pane) + ", not a tmux pane id: copse cannot tell which tmux session it runs in",
			Hint:    "run copse from a shell inside a tmux pane, or use --backend git"}
	}
	env := os.Environ()
	if len(s.Opts.Env) > 0 {
		env = append(env, s.Opts.Env...)
	}
	return &tmux.Client{Bin: s.Opts.TmuxBin, Socket: sock, Timeout: s.Opts.Timeout, Env: env}, pane, nil
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
func startTmuxSurvey(ctx context.Context, s *core.Env) *tmuxSurvey {
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

func newTmuxBackend(ctx context.Context, s *core.Env, sv *tmuxSurvey) (core.Backend, error) {
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
			return nil, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err, Message: "cancelled while asking tmux for its session"}
		}
		return nil, &core.Error{Kind: core.KindFailed, Code: core.CodeTmuxUnusable, Err: err,
			Message: "TMUX is set but tmux does not answer for pane " + sv.pane + ": " + core.TmuxText(err.Error(), 300),
			Hint:    "check that the tmux server of " + core.Escape(sv.client.Socket) + " runs, or use --backend git"}
	}
	b := &tmuxBackend{s: s, git: &gitBackend{s: s}, client: sv.client, tsess: sv.at.Session, window: sv.at.Window, previous: sv.at.Previous}
	b.prevWindow = previousWindow(sv.at, sv.panes)
	b.first, b.firstAt = sv.panes, sv.took
	b.active = sv.at.Window
	b.learnSessions(sv.panes)
	return b, nil
}

// previousWindow is the window the session's last switch left, while it still exists in
// that session and is marked for no other worktree than the one recorded ("" otherwise).
func previousWindow(at tmux.Place, panes []tmux.Pane) string {
	if at.PreviousWindow == "" || at.Previous == "" {
		return ""
	}
	for _, p := range panes {
		if p.Window == at.PreviousWindow && p.Session == at.Session {
			if p.Mark == "" || core.Canonical(p.Mark) == core.Canonical(at.Previous) {
				return p.Window
			}
			return ""
		}
	}
	return ""
}

// learnSessions keeps the session of each window listed, and copse's session's current
// window.
func (b *tmuxBackend) learnSessions(panes []tmux.Pane) {
	m := make(map[string]string, len(panes))
	active := ""
	for _, p := range panes {
		m[p.Window] = p.Session
		if p.Session == b.tsess && p.WindowActive {
			active = p.Window
		}
	}
	b.prevMu.Lock()
	b.sessionOf = m
	if active != "" {
		b.active = active
	}
	b.prevMu.Unlock()
}

// takeFirst returns the panes the start-up survey read, once, while they are as fresh as
// Open's snapshot of git may be (firstTTL); later listings ask tmux again.
func (b *tmuxBackend) takeFirst() []tmux.Pane {
	b.firstMu.Lock()
	defer b.firstMu.Unlock()
	first := b.first
	b.first = nil
	if first == nil || time.Since(b.firstAt) > core.FirstTTL {
		return nil
	}
	return first
}

// dropFirst forgets the survey's panes: a newer reading of git supersedes them too.
func (b *tmuxBackend) DropFirst() {
	b.firstMu.Lock()
	b.first = nil
	b.firstMu.Unlock()
}

func (b *tmuxBackend) Name() string        { return "tmux" }
func (b *tmuxBackend) HasWorkspaces() bool { return true }

// Session is the window copse runs in: remove refuses to close it (ruleNotOwnWorkspace).
func (b *tmuxBackend) Session() string { return b.window }

// tmuxWindow is one window copse marked for a worktree, with its own panes.
type tmuxWindow struct {
	id, session string
	panes       []tmux.Pane
}

// windows lists the server's panes grouped by copse's windows: canonical worktree path →
// every window marked for it, those of copse's own session first (by index), then those of
// the other sessions; each window holds its own panes, so a pane is attributed to the
// window and session it is in, whichever window is the worktree's first.
func (b *tmuxBackend) windows(ctx context.Context) (map[string][]tmuxWindow, error) {
	panes := b.takeFirst()
	if panes == nil {
		var err error
		if panes, err = b.client.AllPanes(ctx); err != nil {
			return nil, tmuxFailure("list-panes", err)
		}
		b.learnSessions(panes)
	}
	sort.SliceStable(panes, func(i, j int) bool {
		a, c := panes[i], panes[j]
		if (a.Session == b.tsess) != (c.Session == b.tsess) {
			return a.Session == b.tsess
		}
		if a.Session != c.Session {
			return idNumber(a.Session) < idNumber(c.Session)
		}
		return a.WindowIndex < c.WindowIndex
	})
	out := map[string][]tmuxWindow{}
	for _, p := range panes {
		if p.Mark == "" {
			continue
		}
		k := core.Canonical(p.Mark)
		ws := out[k]
		if n := len(ws); n > 0 && ws[n-1].id == p.Window {
			ws[n-1].panes = append(ws[n-1].panes, p)
			continue
		}
		out[k] = append(ws, tmuxWindow{id: p.Window, session: p.Session, panes: []tmux.Pane{p}})
	}
	return out, nil
}

// idNumber is the number of a tmux id ($3 → 3).
func idNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(id, "$@%"))
	return n
}

// window is the window id of path's windows (nil when it is not one of them).
func windowIn(ws []tmuxWindow, id string) *tmuxWindow {
	for i := range ws {
		if ws[i].id == id {
			return &ws[i]
		}
	}
	return nil
}

// Annotate sets each row's workspace to the id (@N) of its copse window. A failed listing
// is an error: showing no windows would make remove leave one on a deleted checkout. A
// window marked for a worktree that is gone — git lists no worktree there and the
// directory no longer exists (removed by copse, or by hand) — loses its mark: it is no
// worktree's window any more, and a worktree made there later gets a window of its own. A
// worktree git still lists keeps its window even while its directory is missing
// (prunable: moved by hand, or on a drive not mounted now), so a remove still closes it.
func (b *tmuxBackend) Annotate(ctx context.Context, rows []core.Worktree) error {
	ws, err := b.windows(ctx)
	if err != nil {
		return err
	}
	// Keys are canonical; git's paths usually are already, so a row is looked up as it is
	// first, and resolved (a system call per path component) only while some window is
	// still unmatched: with no copse window, or all of them found, the rest cost nothing.
	// At 300 worktrees that was 900 stats for every list inside tmux.
	matched := map[string]bool{}
	for i := 0; i < len(rows) && len(matched) < len(ws); i++ {
		k := rows[i].Path
		w, ok := ws[k]
		if !ok {
			k = core.Canonical(rows[i].Path)
			w, ok = ws[k]
		}
		if ok && len(w) > 0 {
			id := w[0].id
			rows[i].WorkspaceID = &id
			matched[k] = true
		}
	}
	if len(matched) < len(ws) {
		b.unmarkGone(ctx, ws, matched)
	}
	return nil
}

// unmarkGone takes the mark off every window whose marked directory is gone. It only
// touches tmux's options; a failure leaves the mark, to be tried at the next listing.
func (b *tmuxBackend) unmarkGone(ctx context.Context, ws map[string][]tmuxWindow, matched map[string]bool) {
	for k, wins := range ws {
		if matched[k] {
			continue
		}
		if _, err := os.Lstat(wins[0].panes[0].Mark); !errors.Is(err, fs.ErrNotExist) {
			continue // there (another repository's worktree), or cannot tell
		}
		for _, w := range wins {
			_ = b.client.UnsetMark(context.WithoutCancel(ctx), w.id)
		}
	}
}

// panesOf are the panes of window ws, which must be one of copse's windows of path.
func (b *tmuxBackend) panesOf(ctx context.Context, ws, path string) ([]tmux.Pane, error) {
	all, err := b.windows(ctx)
	if err != nil {
		return nil, err
	}
	if w := windowIn(all[core.Canonical(path)], ws); w != nil {
		return w.panes, nil
	}
	return nil, nil
}

// AgentStatus says what runs in the panes of the worktree's window: each pane's
// foreground command, and how long ago the window last printed.
func (b *tmuxBackend) AgentStatus(ctx context.Context, ws, path string) string {
	head := "its tmux window " + ws + ": "
	ps, err := b.panesOf(ctx, ws, path)
	if err != nil {
		return head + "what runs there is unknown (" + core.TmuxText(err.Error(), 200) + ")"
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
			parts = append(parts, "pane "+p.ID+": shell "+core.TmuxText(p.Command, 40))
		default:
			parts = append(parts, "pane "+p.ID+" runs "+core.TmuxText(p.Command, 40))
		}
	}
	return head + strings.Join(parts, "; ") + core.AgentAge + ago(ps[0].WindowActivity)
}

func ago(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	if d < time.Second {
		return "just now"
	}
	return d.String() + " ago"
}

// ownChain is copse's own process tree as far as it runs in one of panes: copse and its
// ancestors up to the pane's first process (the shell that started copse, and
// whatever ran copse from it), or nil when copse does not run in these panes. Closing the
// window ends them, but they are copse, not work a remove or a land would take away.
func ownChain(panes map[int]tmux.Pane) map[int]bool {
	// copse itself first: it is the pane's process when the pane was started with it.
	chain := append([]int{os.Getpid()}, liveproc.Ancestors()...)
	for i, pid := range chain {
		if _, ok := panes[pid]; ok {
			own := map[int]bool{}
			for _, p := range chain[:i+1] {
				own[p] = true
			}
			return own
		}
	}
	return nil
}

// WorkspaceLive is the live-process scan of a remove: processes inside the worktree, plus
// what runs in the panes of its window wherever its directory is (closing the window ends
// it). The shells tmux started for the window's panes, idle (no child), do not count, nor
// does copse itself with the shell that started it.
func (b *tmuxBackend) WorkspaceLive(ctx context.Context, path, ws string) core.LiveSet {
	if ws == "" {
		return core.LiveIn(path, "")
	}
	ps, err := b.panesOf(ctx, ws, path)
	if err != nil {
		return core.LiveSet{Unknown: "the panes of tmux window " + ws + " could not be listed: " + core.TmuxText(err.Error(), 200)}
	}
	panePID := map[int]tmux.Pane{}
	tops := map[int]bool{}
	for _, p := range ps {
		if !p.Dead {
			panePID[p.PID] = p
			tops[p.PID] = true
		}
	}
	sc, err := liveproc.Read([]string{path})
	if err != nil {
		return core.LiveSet{Unknown: core.LiveUnknown(err)}
	}
	own := ownChain(panePID)
	inRoot := core.PidSet(sc.Roots[0])
	var l core.LiveSet
	seen := map[string]bool{}
	busy := map[int]bool{} // pane pids with something of theirs in l.procs
	for _, p := range sc.Roots[0] {
		if own[p.PID] {
			continue
		}
		if _, pane := panePID[p.PID]; pane && p.Shell && p.Children == 0 {
			l.Idle = append(l.Idle, p)
			continue
		}
		l.Procs = append(l.Procs, p)
		if len(p.Cmdline) > 0 {
			seen[core.BaseName(p.Cmdline[0])] = true
		}
		if top := sc.Below(p.PID, tops); top != 0 {
			busy[top] = true
		} else if k := core.ProcKey(sc, p, inRoot); k != "" {
			l.Key = append(l.Key, k)
		}
	}
	// A pane whose foreground command is not its shell runs something, maybe outside the
	// worktree (the person cd'd away): closing the window would end it too.
	for _, p := range ps {
		if p.Dead || own[p.PID] || liveproc.IsShell(p.Command) || seen[p.Command] {
			continue
		}
		busy[p.PID] = true
		l.Procs = append(l.Procs, liveproc.Proc{PID: p.PID, Cmdline: []string{p.Command}, Inside: "tmux pane " + p.ID + " of window " + ws})
	}
	l.Key = append(l.Key, paneKeys(ps, own, busy)...)
	sort.Strings(l.Key)
	l.Key = slices.Compact(l.Key)
	return l
}

// paneKeys are what a forced remove ends, for the confirmation's token: each pane of the
// window by its id and first process, and whether something runs there (busy), never the
// pids of what that program starts and ends meanwhile. copse's own panes (own) are not.
func paneKeys(ps []tmux.Pane, own, busy map[int]bool) []string {
	var out []string
	for _, p := range ps {
		switch {
		case p.Dead || own[p.PID]:
		case busy[p.PID]:
			out = append(out, fmt.Sprintf("pane %s pid %d runs", p.ID, p.PID))
		default:
			out = append(out, fmt.Sprintf("pane %s pid %d idle", p.ID, p.PID))
		}
	}
	return out
}

// Agents describes the panes of each row's windows, each pane as an agent of its own
// window: an idle shell is nothing; a pane whose program waits to read the terminal is
// blocked (needs you); one whose window printed lately is working; else idle; a pane whose
// command ended is done.
func (b *tmuxBackend) Agents(ctx context.Context, rows []core.Worktree) {
	var all map[string][]tmuxWindow
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
		wins := all[core.Canonical(rows[i].Path)]
		if err != nil || windowIn(wins, *ws) == nil {
			rows[i].Agents = append(rows[i].Agents, core.Agent{State: core.AgentUnknown, Workspace: *ws})
			continue
		}
		for _, w := range wins {
			for _, p := range w.panes {
				rows[i].Agents = append(rows[i].Agents, paneAgent(p)...)
			}
		}
	}
}

func paneAgent(p tmux.Pane) []core.Agent {
	if p.Dead {
		// A done agent always carries its exit code; tmux keeps it with the dead pane.
		a := core.Agent{Command: p.Command, State: core.AgentDone, Workspace: p.Window, Source: agentstate.SourceProcess, Since: p.DeadSince}
		if p.ExitCode >= 0 {
			code := p.ExitCode
			a.ExitCode = &code
		}
		return []core.Agent{a}
	}
	fg := liveproc.ForegroundOf(p.PID)
	if fg.Children == 0 && liveproc.IsShell(fg.Name) {
		return nil // a shell at its prompt: nothing runs there
	}
	if core.IsCopse(fg) {
		return nil // copse itself (the picker, list --watch) is never an agent
	}
	name, fromArgv := fg.Name, false
	if id, ok := liveproc.AgentBelow(p.PID); ok {
		name = liveproc.ProgramName(id.Argv) // argv, not the kernel's 15-character comm
		fromArgv = name != ""
	}
	if name == "" {
		name = p.Command
	}
	a := core.Agent{PID: p.PID, Command: name, State: core.AgentIdle, Workspace: p.Window, Source: agentstate.SourceScreen, NamedByArgv: fromArgv}
	switch {
	case fg.Reading:
		a.State = core.AgentBlocked
	case time.Since(p.WindowActivity) < core.AgentQuietAfter:
		a.State = core.AgentWorking
	default:
		a.Since = p.WindowActivity // quiet since its window last printed
	}
	return []core.Agent{a}
}

// ClosesWorkspace is the confirmation's line about the window a remove closes.
func (b *tmuxBackend) ClosesWorkspace(ws string) string {
	return "copse closes tmux window " + ws + " (tmux ends the processes of its panes)"
}

// ---- create

func (b *tmuxBackend) windowArgs(dir, branch string, label core.Label, focus bool, run *core.RunSpec) tmux.NewWindowArgs {
	name := label.String()
	if name == "" {
		name = branch
	}
	if name == "" {
		name = core.BaseName(dir)
	}
	a := tmux.NewWindowArgs{Session: b.tsess, Dir: dir, Name: name, Focus: focus}
	if run != nil {
		a.Env, a.Argv = run.Env, run.Argv
	}
	return a
}

func (b *tmuxBackend) CreateCommands(c *core.CreateSpec) ([]string, error) {
	cmds, err := b.git.CreateCommands(c)
	if err != nil {
		return nil, err
	}
	w, err := b.newWindowCommands(b.windowArgs(c.Path.String(), c.Branch.String(), c.Label, c.Focus, c.Run))
	if err != nil {
		return nil, err
	}
	return append(cmds, w...), nil
}

func (b *tmuxBackend) newWindowCommands(a tmux.NewWindowArgs) ([]string, error) {
	nw, err := tmux.NewWindow(a)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	mark, err := tmux.SetWindowMark("@0", a.Dir)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	// The mark's target is the id new-window prints; shown as a placeholder.
	return []string{nw.String(), strings.Replace(mark.String(), "@0", "<new window>", 1)}, nil
}

// Create makes the worktree with git, then its window. A window that cannot be opened
// leaves a good worktree: that is said precisely (and `copse open` opens it), not undone.
func (b *tmuxBackend) Create(ctx context.Context, c *core.CreateSpec) (string, error) {
	if _, err := b.git.Create(ctx, c); err != nil {
		return "", err
	}
	a := b.windowArgs(c.Path.String(), c.Branch.String(), c.Label, c.Focus, c.Run)
	if c.Run != nil {
		// The shell left in the window when the command ends is what tmux starts in the
		// windows copse opens without a command (create_run.go); unknown, $SHELL.
		if sh, cmd, err := b.client.DefaultShell(ctx); err == nil && sh != "" {
			a.Env = append(slices.Clone(a.Env), "COPSE_SHELL="+sh, "COPSE_SHELL_COMMAND="+cmd)
		}
	}
	id, err := b.client.NewWindow(ctx, a)
	if err != nil {
		e := tmuxFailure("new-window", err)
		what := "its tmux window could not be opened"
		if c.Run != nil {
			what += ", so " + core.Quote(c.Run.Display) + " was not started"
		}
		return "", &core.Error{Kind: core.KindUncertain, Code: core.CodeTmuxWindowFailed, Err: err,
			Message: "the worktree " + core.Escape(c.Path.String()) + " was created, but " + what + ": " + e.Message,
			Hint:    "open it with `copse open " + core.QuoteDisplay(c.Path.String()) + "`"}
	}
	return id, nil
}

// ---- open, switch, back

func (b *tmuxBackend) OpenCommands(c *core.TargetSpec) ([]string, error) {
	return b.targetCommands(c, c.Focus)
}

func (b *tmuxBackend) SwitchCommands(c *core.TargetSpec) ([]string, error) {
	return b.targetCommands(c, true)
}

func (b *tmuxBackend) targetCommands(c *core.TargetSpec, focus bool) ([]string, error) {
	if ws := b.targetWindow(c); ws != "" {
		if !focus {
			return nil, nil // already open, left where it is
		}
		cmd, err := tmux.SelectWindow(ws)
		if b.elsewhere(ws) {
			cmd, err = tmux.SwitchClient(ws)
		}
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		return []string{cmd.String()}, nil
	}
	return b.newWindowCommands(b.windowArgs(c.Target.Path, c.Target.Branch, c.Label, focus, nil))
}

// targetWindow is the window an open, switch or back goes to ("" when it opens one): for
// back, the window the last switch left, as tmux's last-window (even one copse did not
// make: the session's first window, in the main checkout), while it is marked for no other
// worktree; else the worktree's own window.
func (b *tmuxBackend) targetWindow(c *core.TargetSpec) string {
	if c.Operation == core.OpBack {
		b.prevMu.Lock()
		w, p := b.prevWindow, b.previous
		b.prevMu.Unlock()
		if w != "" && p != "" && core.Canonical(p) == core.Canonical(c.Target.Path) {
			return w
		}
	}
	return c.WsID
}

// elsewhere: window ws is in another session than copse's, as the last listing saw it.
func (b *tmuxBackend) elsewhere(ws string) bool {
	b.prevMu.Lock()
	defer b.prevMu.Unlock()
	sess, ok := b.sessionOf[ws]
	return ok && sess != b.tsess
}

func (b *tmuxBackend) Open(ctx context.Context, c *core.TargetSpec) (string, error) {
	return b.openWindow(ctx, c, c.Focus)
}

// SwitchTo (switch and back) brings the window forward, opening it when it has none, and
// records the worktree and the window it leaves in the tmux session, so that a later
// `copse back` (its own process) returns there.
func (b *tmuxBackend) SwitchTo(ctx context.Context, c *core.TargetSpec) (string, error) {
	// The window the person is looking at as they leave: copse's session's current one (the
	// picker's window is not it once a switch from the picker moved on).
	b.prevMu.Lock()
	left := b.active
	b.prevMu.Unlock()
	ws, err := b.openWindow(ctx, c, true)
	if err != nil {
		return "", err
	}
	if !b.elsewhere(ws) {
		b.prevMu.Lock()
		b.active = ws
		b.prevMu.Unlock()
	}
	if left == ws {
		left = ""
	}
	if c.From != "" && core.Canonical(c.From) != core.Canonical(c.Target.Path) {
		// Only back's memory is lost when this fails; the switch itself happened.
		_ = b.client.SetPrevious(context.WithoutCancel(ctx), b.tsess, c.From, left)
		b.prevMu.Lock()
		b.previous, b.prevWindow = c.From, left
		b.prevMu.Unlock()
	}
	return ws, nil
}

func (b *tmuxBackend) openWindow(ctx context.Context, c *core.TargetSpec, focus bool) (string, error) {
	if ws := b.targetWindow(c); ws != "" {
		if !focus {
			return ws, nil
		}
		err := b.focus(ctx, ws)
		if err == nil {
			return ws, nil
		}
		if ws == c.WsID {
			return "", err
		}
		// The window back would return to was closed since: the worktree's own window, or
		// a new one, as for a switch.
		b.prevMu.Lock()
		b.prevWindow = ""
		b.prevMu.Unlock()
		return b.openWindow(ctx, c, focus)
	}
	id, err := b.client.NewWindow(ctx, b.windowArgs(c.Target.Path, c.Target.Branch, c.Label, focus, nil))
	if err != nil {
		return "", tmuxFailure("new-window", err)
	}
	return id, nil
}

// focus shows window ws: select-window in copse's session; in another session, the
// client is switched there (select-window alone would change a session nobody looks at),
// and when no client can be switched (none attached) the window is at least made current
// in its session.
func (b *tmuxBackend) focus(ctx context.Context, ws string) error {
	if b.elsewhere(ws) {
		if err := b.client.SwitchClient(ctx, ws); err == nil {
			return nil
		}
	}
	if err := b.client.SelectWindow(ctx, ws); err != nil {
		return tmuxFailure("select-window", err)
	}
	return nil
}

// seedHistory gives back, in a new process, the worktree the last switch in this tmux
// session left (see switchTo).
func (b *tmuxBackend) SeedHistory(_ context.Context, snap core.Snapshot) {
	b.prevMu.Lock()
	prev := b.previous
	b.prevMu.Unlock()
	if prev == "" {
		return
	}
	if b.s.ExistsIn(snap)(prev) {
		b.s.History.Visit(b.s.Session, prev)
	}
}

// ---- copse's own window

// ownWindow is copse's own window when it is copse's window of the worktree at path ("" when
// copse runs elsewhere, or tmux cannot say).
func (b *tmuxBackend) OwnWindow(ctx context.Context, path string) string {
	all, err := b.windows(ctx)
	if err != nil || windowIn(all[core.Canonical(path)], b.window) == nil {
		return ""
	}
	return b.window
}

// ownWindowGrace bounds how long the window waits for copse to end before it closes anyway.
const ownWindowGrace = 60

// closeAfterExit has tmux close window ws once this process has ended: copse's reply is
// written by then, to the window's own pane.
func (b *tmuxBackend) CloseAfterExit(ctx context.Context, ws string) error {
	return b.client.KillWindowAfter(context.WithoutCancel(ctx), ws, os.Getpid(), ownWindowGrace)
}

// ---- remove

func (b *tmuxBackend) RemoveCommands(c *core.RemoveSpec) ([]string, error) {
	cmds, err := b.git.RemoveCommands(c)
	if err != nil || c.WsID == "" {
		return cmds, err
	}
	kill, err := tmux.KillWindow(c.WsID)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return append(cmds, kill.String()), nil
}

// Remove removes the worktree with git first (a refusal then leaves the window as it was),
// then closes its window.
func (b *tmuxBackend) Remove(ctx context.Context, c *core.RemoveSpec) error {
	if e := core.RuleNotOwnWorkspace(c, b.window); e != nil {
		return e
	}
	if err := b.git.Remove(ctx, c); err != nil {
		return err
	}
	if c.WsID == "" {
		return nil
	}
	if err := b.client.KillWindow(context.WithoutCancel(ctx), c.WsID); err != nil {
		var te *tmux.Error
		if errors.As(err, &te) && te.Kind == tmux.ErrExit {
			return nil // the window was closed meanwhile: what was asked is done
		}
		return &core.Error{Kind: core.KindUncertain, Code: core.CodeTmuxWindowFailed, Err: err,
			Message: "the worktree " + core.Escape(c.Target.Path) + " was removed, but its tmux window " + c.WsID + " could not be closed: " + core.TmuxText(err.Error(), 300),
			Hint:    "close it by hand (tmux kill-window -t " + c.WsID + ")"}
	}
	return nil
}

// ---- errors

func tmuxFailure(verb string, err error) *core.Error {
	var ae *tmux.ArgError
	if errors.As(err, &ae) {
		return core.BuilderErr(err)
	}
	var te *tmux.Error
	if errors.As(err, &te) && te.Kind == tmux.ErrCanceled {
		return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err, Message: "tmux " + verb + " cancelled"}
	}
	hint := "check that tmux works (tmux -V), or use --backend git"
	if te != nil && te.Uncertain() {
		hint = "look at your tmux windows before trying again"
	}
	return &core.Error{Kind: core.KindFailed, Code: core.CodeTmuxFailed, Err: err, Hint: hint,
		Message: fmt.Sprintf("tmux %s failed: %s", verb, core.TmuxText(err.Error(), 300))}
}

// Pane is the tmux window copse runs in ("" outside one of copse's session).
func (b *tmuxBackend) Pane() string { return b.window }

// NotifyTarget is where core/notify rings for the agent in window pane.
func (b *tmuxBackend) NotifyTarget(pane string, mode notify.Mode) notify.Target {
	return notify.Target{Client: b.client, Pane: pane, Mode: mode}
}

// IsWorkspaceID: a tmux workspace is a window, named by tmux's own id (@N).
func (b *tmuxBackend) IsWorkspaceID(raw string) bool { return tmux.IsWindowID(raw) }

// Runs: a create --run command starts in the new worktree's window.
func (b *tmuxBackend) Runs() (bool, string) { return true, "" }

// RemovesLocked: git removes a locked worktree in one step, and the window closes after.
func (b *tmuxBackend) RemovesLocked() bool { return true }
