package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/copse-dev/copse/core"
)

// fxAgents: the agent of release/2.0 waits for its person; agent/claude-1's works.
func fxAgents() agentsMsg {
	return agentsMsg{agents: map[string][]core.Agent{
		"/home/dev/src/app.worktrees/release-2.0":    {{PID: 41, Command: "claude", State: core.AgentBlocked, Workspace: "@3"}},
		"/home/dev/src/app.worktrees/agent-claude-1": {{State: core.AgentWorking, Workspace: "wG7"}},
	}}
}

func withAgents(t *testing.T, m Model) Model {
	t.Helper()
	msg := fxAgents()
	msg.seq = m.loadSeq
	m, _ = send(t, m, msg)
	return m
}

// An agent waiting for input stands out on its row (in the conflict colour), its program
// first; a working one says so quietly (in the ahead colour).
func TestGoldenListNeedsYou(t *testing.T) {
	m := withAgents(t, mixed(t, 100, 20))
	v := plain(m)
	if strings.Count(v, "needs you") != 1 {
		t.Fatalf("want one needs-you marker:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "needs you") && !strings.Contains(l, "release/2.0") {
			t.Errorf("the marker is on the wrong row: %q", l)
		}
	}
	checkFrame(t, m)
	golden.RequireEqual(t, m.View().Content)
}

// The needs-you order puts the waiting worktree right after the main checkout, the rest
// by name, and follows the agents as they change.
func TestSortNeedsYouFirst(t *testing.T) {
	m := withAgents(t, mixed(t, 120, 35))
	for m.sortOrder() != core.SortNeedsYou {
		m, _ = send(t, m, press("s"))
	}
	if got := visibleBranches(m); !strings.HasPrefix(got, "main release/2.0 agent/claude-1 docs/site") {
		t.Fatalf("needs you first: %s", got)
	}
	if !strings.Contains(plain(m), "needs you first") {
		t.Errorf("the header does not name the order:\n%s", plain(m))
	}
	m, _ = send(t, m, agentsMsg{seq: m.loadSeq, agents: map[string][]core.Agent{
		"/home/dev/src/app.worktrees/docs-site": {{PID: 7, Command: "pi", State: core.AgentBlocked, Workspace: "@4"}},
	}})
	if got := visibleBranches(m); !strings.HasPrefix(got, "main docs/site agent/claude-1 feat/login") {
		t.Fatalf("after the agents changed: %s", got)
	}
}

// fxAllStates: an agent in each state a row names, one with a wrapper's name and a shell
// around it (never shown), a done one that failed and an unread one.
func fxAllStates() agentsMsg {
	two, zero := 2, 0
	return agentsMsg{agents: map[string][]core.Agent{
		"/home/dev/src/app.worktrees/release-2.0":    {{PID: 41, Command: "claude", State: core.AgentBlocked, Workspace: "@3"}},
		"/home/dev/src/app.worktrees/agent-claude-1": {{PID: 42, Command: "pi", State: core.AgentWorking, Workspace: "@4"}},
		"/home/dev/src/app.worktrees/docs-site":      {{PID: 43, Command: "copse-run", State: core.AgentDone, ExitCode: &two, Unread: true, Workspace: "@5"}},
		"/home/dev/src/app.worktrees/feat-rebase":    {{PID: 44, Command: "/bin/sh", State: core.AgentIdle, Workspace: "@6"}},
		"/home/dev/src/app.worktrees/merge-upstream": {{PID: 45, Command: "codex", State: core.AgentDone, ExitCode: &zero, Workspace: "@7"}},
		"/home/dev/src/app.worktrees/bisect":         {{PID: 46, Command: "gemini", State: core.AgentBlocked, Workspace: "@8"}},
	}}
}

// Every agent row says its state in words, program first: working, needs you, idle, done
// (with a non-zero exit code, ● while unread); copse's wrapper and shells never show.
// Pinned at 120x20 in the picker's colours.
func TestGoldenListAgentStates(t *testing.T) {
	m := mixed(t, 120, 20)
	msg := fxAllStates()
	msg.seq = m.loadSeq
	m, _ = send(t, m, msg)
	v := plain(m)
	for _, w := range []string{"claude needs you", "pi working", "● done (exit 2)", "idle", "codex done", "gemini needs you"} {
		if !strings.Contains(v, w) {
			t.Errorf("the list lacks %q:\n%s", w, v)
		}
	}
	if strings.Contains(v, "copse-run") || strings.Contains(v, "/bin/sh") || strings.Contains(v, " sh ") {
		t.Errorf("the wrapper's text shows:\n%s", v)
	}
	checkFrame(t, m)
	golden.RequireEqual(t, m.View().Content)
}

// a goes to the next row whose agent needs you, after the cursor and cycling through the
// list; with none, the status line says so and the cursor stays.
func TestNextNeedsYouCycles(t *testing.T) {
	m := mixed(t, 120, 20)
	msg := fxAllStates()
	msg.seq = m.loadSeq
	m, _ = send(t, m, msg)
	var seen []string
	for range 3 {
		m, _ = send(t, m, press("a"))
		seen = append(seen, m.selectedPath())
	}
	want := []string{"/home/dev/src/app.worktrees/release-2.0", "/home/dev/src/app.worktrees/bisect", "/home/dev/src/app.worktrees/release-2.0"}
	if strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Errorf("a, a, a went to %v, want %v", seen, want)
	}
	none := mixed(t, 120, 20)
	before := none.selectedPath()
	none, _ = send(t, none, press("a"))
	if none.selectedPath() != before || !strings.Contains(plain(none), "no agent needs you") {
		t.Errorf("a with no agent waiting: cursor %s (was %s)\n%s", none.selectedPath(), before, plain(none))
	}
}
