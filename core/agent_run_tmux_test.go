package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
)

// An observer (list --watch, the picker) that logs an agent's turn to needs you rings the
// bell of the agent's window, which nobody looks at; a change a hook reported is the hook's
// to notify, so it rings nothing here; a change to working rings nothing.
func TestObservedTurnToNeedsYouRingsTheAgentsWindow(t *testing.T) {
	w := newTW(t)
	s := w.open(t)
	wt := w.AddWorktree("feat", "app.worktrees/feat")
	win := func() string {
		return strings.Fields(w.srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "--", "/bin/sh"))[0]
	}
	screen, hooked, busy := win(), win(), win()
	row := func(states ...string) []core.Worktree {
		agents := []core.Agent{
			{PID: 1, Command: "claude", State: states[0], Workspace: screen, Source: agentstate.SourceScreen},
			{PID: 2, Command: "codex", State: states[1], Workspace: hooked, Source: agentstate.SourceHook},
			{PID: 3, Command: "pi", State: states[2], Workspace: busy, Source: agentstate.SourceScreen},
		}
		return []core.Worktree{{Path: wt, Branch: "feat", Agents: agents}}
	}
	s.RecordAgents(bg, time.Now(), row(core.AgentWorking, core.AgentWorking, core.AgentIdle))
	s.RecordAgents(bg, time.Now(), row(core.AgentBlocked, core.AgentBlocked, core.AgentWorking))
	if n := len(agentEvents(t, w.Root)); n != 3 {
		t.Fatalf("%d agent.state events, want 3", n)
	}
	bell := func(win string) string { return w.srv.Run("display-message", "-p", "-t", win, "#{window_bell_flag}") }
	w.srv.WaitFor("the bell of the blocked agent's window", func() bool { return bell(screen) == "1" })
	if bell(hooked) != "0" || bell(busy) != "0" {
		t.Errorf("bells: hook-reported %s, turned working %s; want neither", bell(hooked), bell(busy))
	}
}
