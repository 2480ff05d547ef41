package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// Under tmux (a private server), an agent that starts waiting for input while the picker
// is open gets its "needs you" marker without a keypress.
func TestFlowNeedsYouAppearsWithoutAKeypress(t *testing.T) {
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	getenv := func(k string) string {
		if v, ok := srv.Env()[k]; ok {
			return v
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "auto", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil || svc.BackendName() != "tmux" {
		t.Fatalf("open under tmux: %v", err)
	}
	// The fake agent works until the test lets it ask its question.
	gate := filepath.Join(t.TempDir(), "ask")
	run := "while [ ! -e " + textsafe.ShellQuote(gate) + " ]; do sleep 0.1; done; printf 'continue? '; head -n 1; exec sleep 600"
	out, err := svc.Do(core.WithTypedByPerson(context.Background()), core.CreateRequest{Branch: "agent/one", Run: core.Str(run)}, false)
	if err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, svc, Options{})
	fr := f.wait("the agent's row", func(fr frame) bool { return strings.Contains(fr.view, "agent/one") })
	if strings.Contains(fr.view, "needs you") {
		t.Fatalf("needs you before the agent asked:\n%s", fr.view)
	}
	// The picker records what it sees: the agent at work, before it asks.
	record := filepath.Join(r.Root, ".git", "copse", "agents.json")
	srv.WaitFor("the working agent recorded", func() bool {
		b, _ := os.ReadFile(record)
		return strings.Contains(string(b), `"path":"`+out.Path+`"`) && !strings.Contains(string(b), `"state":"blocked"`)
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv.WaitFor("the agent's question", func() bool { return strings.Contains(srv.Capture(out.WorkspaceID), "continue?") })
	f.wait("needs you on the agent's row", func(fr frame) bool {
		for _, l := range strings.Split(fr.view, "\n") {
			if strings.Contains(l, "agent/one") && strings.Contains(l, "needs you") {
				return true
			}
		}
		return false
	})
	// The change it saw is logged once, as agent.state.
	var blocked []core.Event
	if _, err := eventlog.Read(filepath.Join(r.Root, ".git"), 0, func(ev core.Event, _ []byte) error {
		if ev.Event == core.EventAgentState && ev.Agent.State == core.AgentBlocked {
			blocked = append(blocked, ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(blocked) != 1 || blocked[0].Worktree.Path != out.Path || blocked[0].Agent.Previous == "" {
		t.Errorf("agent.state events %+v; want one for %s, to blocked", blocked, out.Path)
	}
}
