package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/eventlog"
)

// agentEvents reads the agent.state events of the repository at root.
func agentEvents(t *testing.T, root string) []core.Event {
	t.Helper()
	var out []core.Event
	if _, err := eventlog.Read(filepath.Join(root, ".git"), 0, func(ev core.Event, _ []byte) error {
		if ev.Event == core.EventAgentState {
			out = append(out, ev)
		}
		return nil
	}); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// seen is a row whose one agent, in window @7 with pane pid 4242, is in state.
func seen(path, state string) []core.Worktree {
	return []core.Worktree{{Path: path, Branch: "feat", Agents: []core.Agent{{PID: 4242, Command: "agent", State: state, Workspace: "@7"}}}}
}

// An agent seen before in another state makes one agent.state event with the agent and
// both states; the same state seen again, or an agent seen for the first time, makes none.
func TestRecordAgentsLogsAChangeOfState(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	for _, state := range []string{core.AgentWorking, core.AgentWorking, core.AgentBlocked, core.AgentBlocked} {
		if w := s.RecordAgents(bg, time.Now(), seen(wt, state)); len(w) > 0 {
			t.Fatalf("warnings: %v", w)
		}
	}
	evs := agentEvents(t, r.Root)
	if len(evs) != 1 {
		t.Fatalf("events %+v; want one working -> blocked", evs)
	}
	ev := evs[0]
	if a := ev.Agent; a == nil || a.State != core.AgentBlocked || a.Previous != core.AgentWorking || a.PID != 4242 || a.Command != "agent" || a.Workspace != "@7" {
		t.Errorf("agent of the event: %+v", ev.Agent)
	}
	if ev.Worktree == nil || ev.Worktree.Path != wt || ev.Worktree.Branch != "feat" || ev.Repo != r.Root {
		t.Errorf("the event names %+v in %s; want %s", ev.Worktree, ev.Repo, wt)
	}
}

// Observers that saw the same change at once log it once: the record is compared and
// replaced under its lock.
func TestRecordAgentsLogsAChangeOnceForManyObservers(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	const rounds, observers = 10, 6
	svcs := make([]*core.Service, observers)
	for i := range svcs {
		svcs[i] = open(t, r, r.Root)
	}
	for range rounds {
		svcs[0].RecordAgents(bg, time.Now(), seen(wt, core.AgentWorking))
		var wg sync.WaitGroup
		for _, s := range svcs {
			wg.Go(func() { s.RecordAgents(bg, time.Now(), seen(wt, core.AgentBlocked)) })
		}
		wg.Wait()
	}
	blocked := 0
	for _, ev := range agentEvents(t, r.Root) {
		if ev.Agent.State == core.AgentBlocked {
			blocked++
		}
	}
	if blocked != rounds {
		t.Fatalf("%d events of working -> blocked for %d changes seen by %d observers each", blocked, rounds, observers)
	}
}

// An observation that began before the recorded one is dropped: a slow observer never
// logs the agent going back to what it saw earlier.
func TestRecordAgentsDropsAnOlderObservation(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	early := time.Now()
	s.RecordAgents(bg, early.Add(-time.Second), seen(wt, core.AgentWorking))
	s.RecordAgents(bg, early.Add(time.Second), seen(wt, core.AgentBlocked))
	s.RecordAgents(bg, early, seen(wt, core.AgentWorking)) // began before the blocked one
	if evs := agentEvents(t, r.Root); len(evs) != 1 || evs[0].Agent.State != core.AgentBlocked {
		t.Fatalf("events %+v; want only working -> blocked", evs)
	}
}

// Under tmux, a list (with status) and the picker's read of the agents are no observers:
// an agent whose recorded state is stale is shown as it is, and nothing is written.
func TestListWithoutWatchingRecordsNothing(t *testing.T) {
	w := newTW(t)
	s := w.open(t)
	out, err := s.Do(core.WithTypedByPerson(bg), core.CreateRequest{Branch: "waits", Run: core.Str(`printf 'continue? '; head -n 1; exec sleep 600`)}, false)
	if err != nil {
		t.Fatal(err)
	}
	var l *core.Listing
	w.srv.WaitFor("the agent to wait", func() bool {
		l, err = s.List(bg, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.Worktrees {
			if r.Path == out.Path && r.NeedsYou() {
				return true
			}
		}
		return false
	})
	// Record it as working, as an observer that saw it earlier would have.
	var rows []core.Worktree
	for _, r := range l.Worktrees {
		for i := range r.Agents {
			r.Agents[i].State = core.AgentWorking
		}
		rows = append(rows, r)
	}
	if warn := s.RecordAgents(bg, time.Now(), rows); len(warn) > 0 {
		t.Fatal(warn)
	}
	record := filepath.Join(w.Root, ".git", "copse", "agents.json")
	was, err := os.ReadFile(record)
	if err != nil || !strings.Contains(string(was), `"state":"working"`) {
		t.Fatalf("record %s: %v", was, err)
	}
	l, err = s.List(bg, true)
	if err != nil {
		t.Fatal(err)
	}
	s.Agents(bg, l.Worktrees)
	if evs := agentEvents(t, w.Root); len(evs) != 0 {
		t.Errorf("a list that is not watching logged %+v", evs)
	}
	if now, _ := os.ReadFile(record); string(now) != string(was) {
		t.Errorf("a list that is not watching rewrote the record:\n%s\nwas:\n%s", now, was)
	}
	// The same observation, recorded, is the change: the test above can fail.
	if warn := s.RecordAgents(bg, time.Now(), l.Worktrees); len(warn) > 0 || len(agentEvents(t, w.Root)) != 1 {
		t.Fatalf("recording the blocked agent logged %+v (%v)", agentEvents(t, w.Root), warn)
	}
}

// Processes outside any workspace (under git, every agent) are only ever running: nothing
// is recorded for them and no file is made.
func TestRecordAgentsIgnoresProcessesOutsideWorkspaces(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	before := r.Snapshot()
	rows := []core.Worktree{{Path: wt, Agents: []core.Agent{{PID: 1, Command: "sleep", State: core.AgentRunning}}}}
	if w := open(t, r, r.Root).RecordAgents(bg, time.Now(), rows); len(w) > 0 {
		t.Fatal(w)
	}
	r.Unchanged(before)
}
