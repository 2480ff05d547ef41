package tui

import (
	"context"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// mode is what has the keyboard. A running operation is not a mode: it overlays any of
// them with a spinner and only lets ctrl+c (cancel it) and list movement through.
type mode int

const (
	modeList mode = iota
	modeFilter
	modeForm
	modeConfirm
	modeLand    // the land form (after L)
	modeSession // the session prompt (c or C with no session known)
)

// Model is the picker's one root model. It owns all state, focus, layout and routing;
// the form, dialog and rows are plain structs it draws. Every call into core happens in a
// tea.Cmd (commands.go); Update only applies the typed messages they return.
type Model struct {
	svc    *core.Service
	opts   Options
	keys   KeyMap
	styles Styles
	help   help.Model

	hasWorkspaces bool
	runsCommands  bool // the backend starts a create's --run command (tmux): the form asks for one
	// ops is core's registry: whether a request changes anything (a failed one refreshes
	// the list).
	ops    *core.Registry
	isDark bool
	home   string
	now    func() time.Time // injected so tests can pin the elapsed time

	// ctx lives as long as the picker; cancelling it (on quit) stops the status workers and
	// any operation still running.
	ctx    context.Context
	cancel context.CancelFunc

	width, height int
	mode          mode
	showHelp      bool
	quitting      bool
	// firstFrameDone: Options.AfterFirstFrame was called.
	firstFrameDone bool

	// The list.
	loaded     bool
	listFailed bool // the last load failed: say so instead of showing an empty list
	loadSeq    int  // bumps on every (re)load; stale listings and status batches are dropped
	repoRoot   string
	backend    string
	current    string // the worktree this session is in (the ● row)
	rows       []row
	visible    []int // indexes into rows after filtering
	cursor     int   // index into visible
	offset     int   // first visible row on screen
	selectPath string
	filter     textinput.Model

	maxBranch, maxPath, maxBadges, maxTags int

	statusCancel context.CancelFunc
	statusQueue  *core.StatusQueue // the running pool's order; nil when none runs
	// pools counts the status pools still running: Run waits for them after the program
	// ends (they are cancelled by then), so a pool's write of the status cache is never cut
	// short by the process exiting, nor left writing into a repository the caller removes.
	pools *poolTracker
	// early is the status cache's answer for the first frame's rows on screen, asked by Run
	// before Bubble Tea starts (startEarlyLookup); nil once taken or when not asked.
	early *earlyLookup
	// afterCached is what a fresh listing starts once the status cache has answered for
	// the rows on screen (statusesFirst); nil when nothing waits.
	afterCached tea.Cmd

	form    form
	confirm *confirmState
	op      *operation
	opSeq   int
	spinner spinner.Model
	status  statusLine

	views views // panels, sorting, last commits, divergence, the watch (views.go)

	// Landing (land.go): the form after L, and the newest land job per worktree path.
	landForm landForm
	lands    map[string]core.LandJob

	// The session claims and releases are for, once typed into the session prompt
	// ("" until then: core's default applies), and the prompt while it is open.
	session    string
	sessionAsk *sessionPrompt
	// hasPrevious: this session's history has a worktree for - to return to.
	hasPrevious bool

	result Result
}

// newModel returns the picker for svc, its work canceled with parent. svc may be nil only
// in tests that drive Update with messages and never run the returned commands.
func newModel(parent context.Context, svc *core.Service, opts Options) Model {
	ctx, cancel := context.WithCancel(parent)
	home, _ := os.UserHomeDir()
	m := Model{
		svc:     svc,
		opts:    opts,
		keys:    DefaultKeyMap(),
		help:    help.New(),
		isDark:  true,
		home:    home,
		now:     time.Now,
		ctx:     ctx,
		cancel:  cancel,
		width:   opts.Width,
		height:  opts.Height,
		loadSeq: 1,
		pools:   new(poolTracker),
		spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.attach(svc)
	m.filter = textinput.New()
	m.filter.Prompt = ""
	m.filter.Placeholder = "branch or path"
	m.startFilter()
	noClipboardTool(&m.filter)
	m.setStyles(NewStyles(m.isDark, opts.NoColor))
	if opts.Listing != nil {
		// The caller read the list already: the first frame shows rows, not "loading".
		m.showListing(opts.Listing)
	}
	m.applyKeyState() // the first frame's help already shows only the keys that work
	return m
}

// attach takes what the picker needs to know of svc (nil in tests that never run commands).
func (m *Model) attach(svc *core.Service) {
	m.svc = svc
	if svc != nil {
		m.hasWorkspaces = svc.HasWorkspaces()
		m.runsCommands = svc.RunsCommands()
		m.ops = svc.Registry()
		m.backend = svc.BackendName()
		m.repoRoot = svc.RepoRoot()
		m.current = svc.SessionPath()
	}
	m.applyKeyState()
}

// showListing shows the list core.Open read, before any status. Its rows carry their
// newest land job (core reads the records with the list), so a blocked land is on the
// first frame; the land jobs are read properly (and a running one followed) once that
// frame is out (startStatusesMsg).
func (m *Model) showListing(l *core.Listing) {
	m.setListing(l, m.current)
	m.hasPrevious = previousKnown(m.svc, l)
	m.lands = landsOfRows(l.Worktrees)
	m.applyLands()
	m.status.addWarnings(l.Warnings)
	m.clampCursor()
}

// landsOfRows is the newest land job of each listed worktree that has one.
func landsOfRows(rows []core.Worktree) map[string]core.LandJob {
	out := make(map[string]core.LandJob)
	for _, wt := range rows {
		if wt.Land != nil {
			out[wt.Path] = *wt.Land
		}
	}
	return out
}

// startStatusesMsg starts the status pool for a listing the model was built with.
type startStatusesMsg struct{ seq int }

// firstFrameLead is how long the status pool (and Options.AfterFirstFrame) waits after the
// picker starts: the terminal is still drawing the first frame (Run writes it before
// Bubble Tea starts, and Bubble Tea redraws it on its first tick, 120/s), and a pool of
// `git status` processes started at once would take the CPUs from that on a small machine.
const firstFrameLead = 10 * time.Millisecond

// afterFirstFrame starts the statuses and the caller's deferred work (startStatusesMsg)
// once the first frame has had firstFrameLead to show. When the rows on screen are to be
// asked of the status cache first (stat calls, no process) they are asked at once: the
// git processes that need the lead come after that answer.
func (m Model) afterFirstFrame() tea.Cmd {
	seq := m.loadSeq
	if m.svc != nil && len(m.onScreenPending()) > 0 {
		return func() tea.Msg { return startStatusesMsg{seq: seq} }
	}
	return tea.Tick(firstFrameLead, func(time.Time) tea.Msg { return startStatusesMsg{seq: seq} })
}

// runAfterFirstFrame calls Options.AfterFirstFrame once, after lead, in a command.
func (m *Model) runAfterFirstFrame(lead time.Duration) tea.Cmd {
	f := m.opts.AfterFirstFrame
	if f == nil || m.firstFrameDone {
		return nil
	}
	m.firstFrameDone = true
	if lead == 0 {
		return func() tea.Msg { f(); return nil }
	}
	return tea.Tick(lead, func(time.Time) tea.Msg { f(); return nil })
}

// Result is what the user chose; valid once the program has ended.
func (m Model) Result() Result { return m.result }

// Init asks the terminal for its background (light or dark styles) and loads the worktree
// list without status, so the first frame comes as fast as git can list; with a listing
// given in Options the rows are on the first frame already, and Init starts the statuses.
func (m Model) Init() tea.Cmd {
	if m.svc == nil {
		return tea.RequestBackgroundColor
	}
	if m.loaded {
		return tea.Batch(tea.RequestBackgroundColor, m.afterFirstFrame())
	}
	return tea.Batch(tea.RequestBackgroundColor, loadListCmd(m.ctx, m.svc, m.loadSeq))
}

func (m *Model) setStyles(s Styles) {
	m.styles = s
	m.help.Styles = s.Help
	m.filter.SetStyles(s.Input)
	m.form.setStyles(&m.styles)
	m.spinner.Style = s.Busy
}

// Update routes a message (update), then, when the rows on screen changed (a scroll, a
// jump, a filter, a resize) while statuses are still being computed, moves those rows to
// the front of the pool's queue.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.screenKey()
	next, cmd := m.update(msg)
	nm, ok := next.(Model)
	if !ok {
		return next, cmd
	}
	// The keys that can work follow the state every message leaves (selected row,
	// history, refusal on screen), for both matching and the help bar.
	nm.applyKeyState()
	if nm.statusQueue == nil || nm.screenKey() == before {
		return nm, cmd
	}
	if paths := nm.onScreenPending(); len(paths) > 0 {
		cmd = tea.Batch(cmd, prioritizeCmd(nm.statusQueue, paths))
	}
	return nm, cmd
}

// update routes a message. Results of core calls carry the id of what asked for them and
// are dropped when stale; keys are routed by mode.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if mm, cmd, ok := m.onViewMsg(msg); ok {
		return mm, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.form.setWidth(m.w())
		m.landForm.setWidth(m.w())
		if m.sessionAsk != nil {
			m.sessionAsk.input.SetWidth(max(4, m.w()-formIndent-2))
		}
		m.help.SetWidth(m.w())
		m.clampCursor()
		return m, nil
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.setStyles(NewStyles(m.isDark, m.opts.NoColor))
		return m, nil
	case listingMsg:
		return m.onListing(msg)
	case startStatusesMsg:
		deferred := m.runAfterFirstFrame(0)
		if msg.seq != m.loadSeq {
			return m, deferred // a refresh came first and started its own pool
		}
		// As onListing does for a list the picker read itself (the land jobs among the
		// rest: without them a land under way would never be followed, nor an abandoned
		// one marked, until `r`).
		return m, m.statusesFirst(deferred)
	case statusBatchMsg:
		if msg.seq != m.loadSeq {
			return m, nil // from a load that a refresh replaced; its pool is cancelled
		}
		m.applyStatuses(msg.results)
		if msg.done {
			m.statusQueue = nil
			m.finishStatuses()
			m.measure()
			return m, nil
		}
		return m, drainStatusCmd(msg.seq, msg.stream, statusWindow)
	case cachedStatusesMsg:
		if msg.seq != m.loadSeq {
			return m, nil // a newer load asked again
		}
		m.applyPendingStatuses(msg.results)
		if m.svc == nil {
			return m, nil // tests feed status batches themselves
		}
		rest := m.afterCached // what statusesFirst held back for this answer
		m.afterCached = nil
		paths := m.pendingPaths()
		if len(paths) == 0 {
			m.finishStatuses()
			return m, tea.Batch(rest, processesCmd(m.svc, m.loadSeq, m.statusPaths()))
		}
		return m, tea.Batch(rest, m.startPool(paths))
	case processesMsg:
		if msg.seq == m.loadSeq {
			m.applyProcesses(msg.counts)
		}
		return m, nil
	case agentsMsg:
		if msg.seq == m.loadSeq {
			m.applyAgents(msg.agents)
		}
		return m, nil
	case preparedMsg:
		return m.onPrepared(msg)
	case landDefaultsMsg:
		// Defaults for another worktree's form (closed and reopened meanwhile) are dropped.
		if m.mode == modeLand && msg.err == nil && (msg.path == "" || msg.path == m.landForm.target.wt.Path) {
			m.landForm.setDefaults(msg.into, msg.test, msg.gate, msg.gateKnown)
		}
		return m, nil
	case landJobsMsg:
		return m.onLandJobs(msg)
	case landTickMsg:
		return m.onLandTick(msg)
	case landProgressMsg:
		return m.onLandProgress(msg)
	case lockWaitMsg:
		return m.onLockWait(msg)
	case executedMsg:
		return m.onExecuted(msg)
	case branchesMsg:
		if m.mode == modeForm && msg.err == nil {
			m.form.setBranches(msg.names)
		}
		return m, nil
	case branchTickMsg:
		// No check while the create runs: its verdict would be stale, and core would be
		// asked two things at once for nothing.
		if m.mode != modeForm || msg.seq != m.form.checkSeq || m.svc == nil || m.op != nil {
			return m, nil
		}
		if raw := m.form.value(fieldBranch); raw != "" {
			return m, tea.Batch(checkBranchCmd(m.ctx, m.svc, msg.seq, raw, m.form.value(fieldBase) != ""), defaultPathCmd(m.ctx, m.svc, msg.seq, raw))
		}
		m.form.setDefaultPath("", m.home)
		return m, nil
	case branchCheckedMsg:
		if m.mode == modeForm {
			m.form.applyCheck(msg, m.heldBy(msg.name))
		}
		return m, nil
	case baseTickMsg:
		if m.mode != modeForm || msg.seq != m.form.baseSeq || m.svc == nil || m.op != nil {
			return m, nil
		}
		if raw := m.form.value(fieldBase); raw != "" {
			return m, checkBaseCmd(m.ctx, m.svc, msg.seq, raw)
		}
		return m, nil
	case baseCheckedMsg:
		if m.mode == modeForm {
			m.form.applyBaseCheck(msg)
		}
		return m, nil
	case spinner.TickMsg:
		if m.op == nil {
			return m, nil // stop ticking when nothing runs
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.PasteMsg:
		return m.onPaste(msg)
	case tea.MouseWheelMsg:
		return m.onWheel(msg)
	case tea.MouseClickMsg:
		return m.onClick(msg)
	}
	return m, nil
}

// onListing shows a fresh list and starts computing statuses for it.
func (m Model) onListing(msg listingMsg) (tea.Model, tea.Cmd) {
	if msg.seq != m.loadSeq {
		return m, nil
	}
	if m.status.untilLoad {
		m.status = statusLine{}
	}
	if msg.err != nil {
		m.loaded = true
		m.listFailed = true
		m.status = errorStatus(msg.err)
		return m, nil
	}
	m.listFailed = false
	m.setListing(msg.listing, msg.session)
	m.hasPrevious = msg.hasPrevious
	// git's rows are shown; what could not be added to them (Herdr's workspace ids) is
	// said in the status line, after whatever is there already.
	m.status.addWarnings(msg.listing.Warnings)
	m.applyLands()
	m.clampCursor()
	return m, m.statusesFirst(m.runAfterFirstFrame(firstFrameLead))
}

// statusesFirst starts a fresh listing's statuses and the rest it needs: its commits, the
// watch, the divergence, the land jobs, and what the caller passes (its deferred work).
// When the rows on screen are asked of the status cache, the rest waits for that answer
// (cachedStatusesMsg): on a small machine their git processes and reads would take the
// CPUs from the lookups, and the rows on screen would show their statuses later.
func (m *Model) statusesFirst(rest ...tea.Cmd) tea.Cmd {
	if m.afterCached != nil {
		// A new listing came before the last one's cache answer: what that answer held
		// back runs now (its reads are of the same repository, and the sort is read once).
		rest = append(rest, m.afterCached)
		m.afterCached = nil
	}
	cached := m.svc != nil && (len(m.onScreenPending()) > 0 || m.earlyDrawn())
	st := m.startStatuses()
	rest = append(rest, m.afterListing())
	if m.svc != nil {
		rest = append(rest, landJobsCmd(m.ctx, m.svc, m.loadSeq))
	}
	if cached {
		m.afterCached = tea.Batch(rest...)
		return st
	}
	return tea.Batch(append(rest, st)...)
}

// startStatuses cancels the previous status pool and starts one for the current rows. The
// rows on screen are first asked of the status cache alone (no git, all in one message,
// so they are drawn together); the pool starts once that answer is in, for the rows still
// pending, so the cache's answer does not share the CPUs with the pool's git processes.
func (m *Model) startStatuses() tea.Cmd {
	if m.statusCancel != nil {
		m.statusCancel()
		m.statusCancel = nil
	}
	m.statusQueue = nil
	if m.svc == nil {
		return nil // tests feed status batches themselves
	}
	paths := m.statusPaths()
	if len(paths) == 0 {
		m.finishStatuses()
		return nil
	}
	onScreen := m.onScreenPending()
	if e := m.early; e != nil && e.seq == m.loadSeq && (len(onScreen) > 0 || e.taken) {
		// Run asked already, before Bubble Tea started (and drew the first frame with the
		// answer, if it came in time); rows it did not ask for (the screen changed size
		// meanwhile) stay pending for the pool, which starts from the answer.
		m.early = nil
		return e.cmd()
	}
	if len(onScreen) > 0 {
		return cachedStatusesCmd(m.svc, m.loadSeq, onScreen)
	}
	return m.startPool(paths)
}

// earlyDrawn: Run drew the first frame with the early lookup's answer, which the picker has
// yet to take as its cachedStatusesMsg.
func (m *Model) earlyDrawn() bool {
	return m.early != nil && m.early.taken && m.early.seq == m.loadSeq
}

// startPool runs the status pool over paths, the rows on screen first.
func (m *Model) startPool(paths []string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.statusCancel = cancel
	m.statusQueue = core.NewStatusQueue(paths)
	m.statusQueue.Prioritize(m.onScreenPending())
	s := &statusStream{ch: make(chan core.StatusResult, len(paths)), done: make(chan struct{})}
	// The process counts come with the status, from one scan, off the first frame.
	wts := make([]core.Worktree, len(m.rows))
	for i, r := range m.rows {
		wts[i] = r.wt
	}
	return tea.Batch(startStatusCmd(ctx, m.svc, m.statusQueue, s, m.pools), drainStatusCmd(m.loadSeq, s, statusWindow),
		processesCmd(m.svc, m.loadSeq, m.statusPaths()), agentsCmd(ctx, m.svc, m.loadSeq, wts))
}

// pendingPaths are the rows still waiting for a status (what the pool has left to do once
// the cache has answered for the rows on screen).
func (m *Model) pendingPaths() []string {
	var ps []string
	for _, r := range m.rows {
		if r.pending {
			ps = append(ps, r.wt.Path)
		}
	}
	return ps
}

// reload re-reads the worktree list (after a mutation, a stale confirmation, or `r`).
func (m *Model) reload() tea.Cmd {
	m.loadSeq++
	if m.svc == nil {
		return nil
	}
	return loadListCmd(m.ctx, m.svc, m.loadSeq)
}

// quit ends the picker. Cancelling the picker's context stops the status workers; a user
// who leaves without choosing is reported as cancelled.
func (m Model) quit() (tea.Model, tea.Cmd) {
	if m.result.Outcome == nil && m.result.Selected == nil {
		m.result.Cancelled = true
	}
	m.cancel()
	m.quitting = true
	return m, tea.Quit
}

// heldBy returns the path of the listed worktree that has branch checked out, or "".
func (m Model) heldBy(branch string) string {
	if branch == "" {
		return ""
	}
	for _, r := range m.rows {
		if r.wt.Branch == branch {
			return r.wt.Path
		}
	}
	return ""
}

func (m Model) w() int {
	if m.width > 0 {
		return m.width
	}
	return 80
}

func (m Model) h() int {
	if m.height > 0 {
		return m.height
	}
	return 24
}
