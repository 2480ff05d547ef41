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

// An agent waiting for input stands out on its row (in the conflict colour); a working
// one adds nothing.
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
