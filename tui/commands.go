package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// Every call into core runs in a tea.Cmd built here. A Cmd captures the values it needs
// (never the model) and returns a typed message carrying the id of what asked for it, so
// Update can drop answers to questions nobody is asking any more.

// listingMsg is the worktree list without status: the first frame needs nothing else.
// session is where this session is (core's SessionPath): after a switch in the same
// process it differs from the worktree the process runs in, which is what
// Worktree.Current marks.
type listingMsg struct {
	seq     int
	listing *core.Listing
	session string
	err     error
	// hasPrevious: core's history has a listed worktree for back (-) to return to.
	hasPrevious bool
}

func loadListCmd(ctx context.Context, svc *core.Service, seq int) tea.Cmd {
	return func() tea.Msg {
		l, err := svc.List(ctx, false)
		return listingMsg{seq: seq, listing: l, session: svc.SessionPath(), err: err, hasPrevious: previousKnown(svc, l)}
	}
}

// previousKnown reports whether back has somewhere to go: the session's history (in
// memory, no I/O) holds a worktree the listing shows alive, as core's back requires.
func previousKnown(svc *core.Service, l *core.Listing) bool {
	if svc == nil || l == nil || svc.History() == nil {
		return false
	}
	live := map[string]bool{}
	for _, wt := range l.Worktrees {
		if !wt.Bare && wt.Prunable == nil {
			live[wt.Path] = true
		}
	}
	return svc.History().Has(svc.Session(), func(p string) bool { return live[p] })
}

// statusStream carries status results from core's worker pool to the UI. ch is buffered
// for every path so the workers never block on a UI that is busy or gone; done closes when
// core.Service.Statuses returns.
type statusStream struct {
	ch   chan core.StatusResult
	done chan struct{}
}

// statusBatchMsg is the status results collected over one batching window.
type statusBatchMsg struct {
	seq     int
	results []core.StatusResult
	stream  *statusStream
	done    bool
}

// statusWorkers bounds how many `git status` processes one picker runs at once.
const statusWorkers = 4

// statusWindow is how long results are collected into one message: long enough that a
// repository with many worktrees repaints a few times, not once per row.
const statusWindow = 50 * time.Millisecond

// startStatusCmd runs core's bounded worker pool over q (rows on screen first); it returns
// no message of its own, the results arrive through drainStatusCmd.
func startStatusCmd(ctx context.Context, svc *core.Service, q *core.StatusQueue, s *statusStream, pools *poolTracker) tea.Cmd {
	return func() tea.Msg {
		if !pools.start() {
			close(s.done)
			return nil // the picker has ended: no pool starts after Run stopped waiting
		}
		defer pools.done()
		defer close(s.done)
		svc.StatusesFrom(ctx, q, statusWorkers, s.emit)
		return nil
	}
}

// cachedStatusesMsg is the statuses of the rows on screen that the status cache proves
// fresh, read at once (no git) so they are drawn together in one frame.
type cachedStatusesMsg struct {
	seq     int
	results []core.StatusResult
}

// poolTracker counts the status pools running. A pool counts from when its command runs,
// not from when Update returned it: a command Bubble Tea never ran (the picker quit first)
// must not keep Run waiting. Once Run waits, no new pool starts.
type poolTracker struct {
	mu      sync.Mutex
	running int
	closed  bool
	idle    chan struct{} // closed when running drops to 0 after wait began
}

func (p *poolTracker) start() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.running++
	return true
}

func (p *poolTracker) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	if p.running == 0 && p.idle != nil {
		close(p.idle)
		p.idle = nil
	}
}

// wait stops new pools and waits, at most grace, for the running ones to end.
func (p *poolTracker) wait(grace time.Duration) {
	p.mu.Lock()
	p.closed = true
	if p.running == 0 {
		p.mu.Unlock()
		return
	}
	idle := make(chan struct{})
	p.idle = idle
	p.mu.Unlock()
	select {
	case <-idle:
	case <-time.After(grace):
	}
}

// earlyLookup is a cachedStatusesCmd begun outside Bubble Tea: Run starts it as soon as
// the first listing is in, so the lookups (stat calls on the second CPU) overlap the first
// frame and Bubble Tea's start instead of following them.
type earlyLookup struct {
	seq    int
	result chan []core.StatusResult
	got    []core.StatusResult // the answer, once Run took it to draw the first frame
	taken  bool
}

// firstFrameWait bounds how long Run waits for the early lookup before it draws the first
// frame: the cache's answer for 28 rows at 300 worktrees takes 2–5 ms, so the first frame
// usually shows the rows with their statuses, all at once, instead of the rows and then,
// some 50 ms later (Bubble Tea's start and its first frames), their statuses. A slower
// answer (a cold disk) waits no longer than this and arrives as before.
const firstFrameWait = 20 * time.Millisecond

// drawEarly waits up to d for the early lookup and applies its answer to the rows, so the
// first frame draws them with their statuses. The answer is kept for cmd: the picker still
// takes it as its cachedStatusesMsg (what statusesFirst held back starts from there).
func (m *Model) drawEarly(d time.Duration) {
	e := m.early
	if e == nil || e.taken {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case rs := <-e.result:
		e.got, e.taken = rs, true
		m.applyPendingStatuses(rs)
	case <-t.C:
	}
}

func (m *Model) startEarlyLookup() {
	onScreen := m.onScreenPending()
	if m.svc == nil || m.height <= 0 || len(onScreen) == 0 {
		return
	}
	e := &earlyLookup{seq: m.loadSeq, result: make(chan []core.StatusResult, 1)}
	go func(svc *core.Service) { e.result <- svc.CachedStatuses(onScreen) }(m.svc)
	m.early = e
}

func (e *earlyLookup) cmd() tea.Cmd {
	if e.taken {
		seq, got := e.seq, e.got
		return func() tea.Msg { return cachedStatusesMsg{seq: seq, results: got} }
	}
	return func() tea.Msg { return cachedStatusesMsg{seq: e.seq, results: <-e.result} }
}

func cachedStatusesCmd(svc *core.Service, seq int, paths []string) tea.Cmd {
	if len(paths) == 0 {
		return nil
	}
	return func() tea.Msg { return cachedStatusesMsg{seq: seq, results: svc.CachedStatuses(paths)} }
}

// processesMsg is how many processes work in each listed worktree (one scan of /proc
// for all rows); nil counts when copse cannot tell on this system.
type processesMsg struct {
	seq    int
	counts map[string]int
}

func processesCmd(svc *core.Service, seq int, paths []string) tea.Cmd {
	return func() tea.Msg { return processesMsg{seq: seq, counts: svc.Processes(paths)} }
}

// agentsMsg is what works in each listed worktree (its agents), read off the first frame
// with the process counts.
type agentsMsg struct {
	seq    int
	agents map[string][]core.Agent
}

func agentsCmd(ctx context.Context, svc *core.Service, seq int, rows []core.Worktree) tea.Cmd {
	return func() tea.Msg {
		began := time.Now()
		agents := svc.Agents(ctx, rows)
		// The picker is an observer like list --watch: a change of an agent's state it
		// sees is logged (agent.state), once however many observers saw it. Its warnings
		// are dropped: the rows show what was seen either way.
		seen := make([]core.Worktree, len(rows))
		for i, r := range rows {
			r.Agents = agents[r.Path]
			seen[i] = r
		}
		svc.RecordAgents(ctx, began, seen)
		return agentsMsg{seq: seq, agents: agents}
	}
}

// prioritizeCmd moves the rows that came on screen to the front of the running pool's
// queue (a scroll, a jump to the end, a filter), so what the user looks at fills in next.
func prioritizeCmd(q *core.StatusQueue, paths []string) tea.Cmd {
	return func() tea.Msg {
		q.Prioritize(paths)
		return nil
	}
}

// emit hands one result to the UI without ever blocking a worker.
func (s *statusStream) emit(r core.StatusResult) {
	select {
	case s.ch <- r:
	default: // more results than paths asked for: nobody is waiting for them
	}
}

// drainStatusCmd waits for the next result, then gathers whatever else arrives within
// window into one batch. Update re-arms it until the stream is done.
func drainStatusCmd(seq int, s *statusStream, window time.Duration) tea.Cmd {
	return func() tea.Msg {
		var batch []core.StatusResult
		select {
		case r := <-s.ch:
			batch = append(batch, r)
		case <-s.done:
			return statusBatchMsg{seq: seq, results: drainNow(s.ch, batch), stream: s, done: true}
		}
		timer := time.NewTimer(window)
		defer timer.Stop()
		for {
			select {
			case r := <-s.ch:
				batch = append(batch, r)
			case <-s.done:
				return statusBatchMsg{seq: seq, results: drainNow(s.ch, batch), stream: s, done: true}
			case <-timer.C:
				return statusBatchMsg{seq: seq, results: batch, stream: s}
			}
		}
	}
}

func drainNow(ch chan core.StatusResult, batch []core.StatusResult) []core.StatusResult {
	for {
		select {
		case r := <-ch:
			batch = append(batch, r)
		default:
			return batch
		}
	}
}

// preparedMsg is core's answer to Prepare: a plan (maybe needing confirmation) or a refusal.
type preparedMsg struct {
	op   int
	plan *core.Plan
	err  error
}

func prepareCmd(ctx context.Context, svc *core.Service, op int, req core.Request) tea.Cmd {
	return func() tea.Msg {
		p, err := svc.Prepare(ctx, req)
		return preparedMsg{op: op, plan: p, err: err}
	}
}

// executedMsg is what a plan did, or why it did not.
type executedMsg struct {
	op      int
	outcome *core.Outcome
	err     error
}

// executeCmd runs a plan. A successful switch records where the session came from in
// core's history itself (Execute visits the session's position before the switch), so `-`
// returns there; the picker must not push its own idea of "current" on top of that.
//
// The answer also goes to settled (buffered), which outlives the program: after a second
// ctrl+c the picker has quit, and copse still reports what the operation left.
func executeCmd(ctx context.Context, svc *core.Service, op int, plan *core.Plan, settled chan<- Settled) tea.Cmd {
	return func() tea.Msg {
		out, err := svc.Execute(ctx, plan)
		select {
		case settled <- Settled{Outcome: out, Err: err}:
		default:
		}
		return executedMsg{op: op, outcome: out, err: err}
	}
}

// lockWaitMsg says who holds the repository lock an operation waits for.
type lockWaitMsg struct {
	op     int
	holder core.LockHolder
}

// lockWaitCmd waits for core to name the lock holder, or for the operation to end.
func lockWaitCmd(ctx context.Context, op int, ch <-chan core.LockHolder) tea.Cmd {
	return func() tea.Msg {
		select {
		case h := <-ch:
			return lockWaitMsg{op: op, holder: h}
		case <-ctx.Done():
			return nil
		}
	}
}

// branchesMsg feeds the completion of the branch and base fields: local branches, then
// remote branches as <remote>/<branch>.
type branchesMsg struct {
	names []string
	err   error
}

func loadBranchesCmd(ctx context.Context, svc *core.Service) tea.Cmd {
	return func() tea.Msg {
		names, err := svc.AllBranches(ctx)
		return branchesMsg{names: names, err: err}
	}
}

// branchTickMsg fires when typing in the branch field paused; seq says which keystroke.
type branchTickMsg struct{ seq int }

// branchDebounce is how long the branch field waits for typing to pause before it asks
// core's parser (which runs git check-ref-format).
const branchDebounce = 150 * time.Millisecond

func branchTickCmd(seq int) tea.Cmd {
	return tea.Tick(branchDebounce, func(time.Time) tea.Msg { return branchTickMsg{seq: seq} })
}

// branchCheckedMsg is core's verdict on one value of the branch field: the name it
// resolves to and what a create would do with it (new, existing, from a remote, ambiguous).
type branchCheckedMsg struct {
	seq  int
	raw  string
	name string
	kind core.CreateKind
	err  error
}

func checkBranchCmd(ctx context.Context, svc *core.Service, seq int, raw string, withBase bool) tea.Cmd {
	return func() tea.Msg {
		kind, err := svc.CreateKind(ctx, raw, withBase)
		return branchCheckedMsg{seq: seq, raw: raw, name: kind.Branch, kind: kind, err: err}
	}
}

// baseTickMsg fires when typing in the base field paused; seq says which keystroke.
type baseTickMsg struct{ seq int }

func baseTickCmd(seq int) tea.Cmd {
	return tea.Tick(branchDebounce, func(time.Time) tea.Msg { return baseTickMsg{seq: seq} })
}

// baseCheckedMsg is core's resolution of one value of the base field: the commit a new
// branch would start at, or why it cannot.
type baseCheckedMsg struct {
	seq  int
	raw  string
	base core.CreateBase
	err  error
}

func checkBaseCmd(ctx context.Context, svc *core.Service, seq int, raw string) tea.Cmd {
	return func() tea.Msg {
		b, err := svc.ResolveBase(ctx, raw)
		return baseCheckedMsg{seq: seq, raw: raw, base: b, err: err}
	}
}
