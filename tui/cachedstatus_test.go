package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The rows on screen whose statuses the cache proves fresh come in one message and are
// all drawn by the next frame; a row the pool has already read keeps git's answer, and a
// message from a replaced load is dropped.
func TestCachedStatusesFillPendingRowsAtOnce(t *testing.T) {
	m := loaded(t, newTestModel(100, 30, Options{}), fxMixed(), nil)
	read := fxMixedStatus()[0] // the pool has read the main checkout already
	m, _ = send(t, m, statusBatchMsg{seq: m.loadSeq, results: []core.StatusResult{read}})
	cached := []core.StatusResult{
		{Path: read.Path, Status: core.Status{Untracked: 42}},
		{Path: "/home/dev/src/app.worktrees/feat-login", Status: core.Status{Staged: 1}},
		{Path: "/home/dev/src/app.worktrees/release-2.0", Status: core.Status{Ahead: 3}},
	}
	before := map[string]bool{}
	for _, r := range m.rows {
		before[r.wt.Path] = r.pending
	}
	stale, _ := send(t, m, cachedStatusesMsg{seq: m.loadSeq - 1, results: cached})
	for _, r := range stale.rows {
		if r.pending != before[r.wt.Path] {
			t.Fatalf("a replaced load's cached statuses were applied to %s", r.wt.Path)
		}
	}
	m, _ = send(t, m, cachedStatusesMsg{seq: m.loadSeq, results: cached})
	want := map[string]core.Status{read.Path: read.Status, cached[1].Path: cached[1].Status, cached[2].Path: cached[2].Status}
	for _, r := range m.rows {
		st, ok := want[r.wt.Path]
		switch {
		case ok && (r.pending || r.wt.Status == nil || *r.wt.Status != st):
			t.Fatalf("%s: pending %v status %+v, want %+v", r.wt.Path, r.pending, r.wt.Status, st)
		case !ok && r.pending != before[r.wt.Path]:
			t.Fatalf("%s: filled though the cache had nothing for it", r.wt.Path)
		}
	}
}

// With the statuses of the rows on screen in the cache, the picker asks the cache first and
// alone: the reads a fresh listing also starts (its commits, divergence, process counts,
// land jobs, the sort) come only after the cache's answer, so on a small machine they do
// not take the CPUs from it. The early lookup Run starts before Bubble Tea is the one the
// picker then uses.
func TestCachedStatusesAreAskedFirstAndAlone(t *testing.T) {
	t.Parallel()
	svc, l := cachedService(t, "a", "b", "c")

	m := newModel(context.Background(), svc, Options{Listing: l, Width: 100, Height: 30})
	m.startEarlyLookup()
	if m.early == nil {
		t.Fatal("no early lookup for the rows on screen")
	}
	// What the first listing starts besides the cache's answer is held back for it.
	held, _ := send(t, m, startStatusesMsg{seq: m.loadSeq})
	if held.afterCached == nil || held.early != nil {
		t.Fatalf("after the first frame: held back %v, early lookup left %v; want the rest held and the early lookup taken", held.afterCached != nil, held.early != nil)
	}
	var mu sync.Mutex
	var order []string
	record := func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case cachedStatusesMsg, commitsMsg, divergenceMsg, processesMsg, landJobsMsg, sortReadMsg, statusBatchMsg:
			mu.Lock()
			order = append(order, fmt.Sprintf("%T", msg))
			mu.Unlock()
		}
		return msg
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii), tea.WithEnvironment([]string{"TERM=dumb"}), tea.WithFilter(record)))
	seen := func(kind string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(order, kind)
	}
	deadline := time.Now().Add(flowTimeout)
	for !(seen("tui.cachedStatusesMsg") && seen("tui.commitsMsg") && seen("tui.processesMsg")) {
		if time.Now().After(deadline) {
			t.Fatalf("messages so far: %v", order)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(flowTimeout)).(Model)
	fm.waitPools()
	mu.Lock()
	defer mu.Unlock()
	if order[0] != "tui.cachedStatusesMsg" {
		t.Fatalf("the first of the listing's answers was %s, not the cache's: %v", order[0], order)
	}
	if n := strings.Count(strings.Join(order, " "), "tui.cachedStatusesMsg"); n != 1 {
		t.Fatalf("the cache was asked %d times (the early lookup should be the one): %v", n, order)
	}
	for _, r := range fm.rows {
		if r.pending || r.wt.Status == nil {
			t.Fatalf("%s has no status after the cache's answer", r.wt.Path)
		}
	}
}

// Run waits for the status pools that are running when the picker ends, and only for them:
// a pool command Bubble Tea never ran (the picker quit first) does not hold it up, and no
// pool starts once it waits.
func TestPoolTrackerWaitsOnlyForRunningPools(t *testing.T) {
	var p poolTracker
	built := startStatusCmd(context.Background(), nil, nil, &statusStream{done: make(chan struct{})}, &p)
	_ = built // never run, as when the picker quits before Bubble Tea runs it
	start := time.Now()
	p.wait(5 * time.Second)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a pool that never started kept the picker waiting %s", d)
	}
	if p.start() {
		t.Fatal("a pool started after the picker stopped waiting")
	}

	var q poolTracker
	if !q.start() {
		t.Fatal("a pool could not start")
	}
	ended := make(chan time.Time, 1)
	go func() { time.Sleep(100 * time.Millisecond); ended <- time.Now(); q.done() }()
	q.wait(5 * time.Second)
	select {
	case <-ended:
	default:
		t.Fatal("wait returned before the running pool ended")
	}
}

// With the statuses of the rows on screen in the cache, Run draws its first frame with them:
// it waits (briefly) for the early lookup, so the rows and their statuses appear together.
// The answer still reaches the picker as its cachedStatusesMsg, once, and what that message
// releases (the held-back reads) starts from it.
func TestFirstFrameShowsCachedStatuses(t *testing.T) {
	t.Parallel()
	svc, l := cachedService(t, "a", "b")
	m := newModel(context.Background(), svc, Options{Listing: l, Width: 100, Height: 30})
	m.startEarlyLookup()
	m.drawEarly(10 * time.Second) // generous: the test is of what is drawn, not how fast
	for _, row := range m.rows {
		if row.pending || row.wt.Status == nil {
			t.Fatalf("%s: no status in the first frame", row.wt.Path)
		}
	}
	if v := m.View().Content; strings.Contains(v, "…") || strings.Count(v, "✓") < 3 {
		t.Fatalf("first frame:\n%s", v)
	}
	if m.early == nil {
		t.Fatal("the early lookup was dropped once drawn")
	}
	msg, ok := m.early.cmd()().(cachedStatusesMsg) // what the picker gets (it has the answer: no wait)
	if !ok || msg.seq != m.loadSeq || len(msg.results) != len(m.rows) {
		t.Fatalf("the picker's cache answer: %+v", msg)
	}
	next, _ := send(t, m, startStatusesMsg{seq: m.loadSeq})
	if next.afterCached == nil || next.early != nil {
		t.Fatal("the first frame's answer was not taken as the picker's cache answer")
	}
	done, _ := send(t, next, msg)
	if done.afterCached != nil {
		t.Fatal("the held-back reads were not released by the answer")
	}
	if done.statusQueue != nil {
		t.Fatal("a status pool started for rows the cache had answered")
	}
}

// cachedService is a repository with a worktree per name whose statuses the status cache
// holds: two listings with statuses, the first storing them once the clock is past the
// racy second of the checkouts; it fails unless the cache answers for every row.
func cachedService(t *testing.T, names ...string) (*core.Service, *core.Listing) {
	t.Helper()
	r := coretest.New(t)
	for _, b := range names {
		r.AddWorktree("feat/"+b, "app.worktrees/"+b)
	}
	svc := openService(t, r, r.Root)
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
	if _, err := svc.List(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	l, err := svc.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, w := range l.Worktrees {
		paths = append(paths, w.Path)
	}
	if got := svc.CachedStatuses(paths); len(got) != len(paths) {
		t.Fatalf("the cache answers for %d of %d rows; the test needs all", len(got), len(paths))
	}
	return svc, l
}
