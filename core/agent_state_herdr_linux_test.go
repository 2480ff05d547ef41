//go:build linux

package core_test

import (
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// Inside Herdr, the workspace's agent_status is a push source (source herdr); an agent's
// own hook, for a live process in the worktree, says more and takes its place, in the same
// workspace.
func TestHerdrAgentStatusIsAPushSourceAndAHookOutranksIt(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "agent")
	s := w.plain(t)
	herdrdouble.SetAgentStatus(t, w.state, ws, "working")
	as := agentsOf(t, s, path)
	if len(as) != 1 || as[0].State != core.AgentWorking || as[0].Source != agentstate.SourceHerdr || as[0].Workspace != ws {
		t.Fatalf("agents %+v", as)
	}
	_, id := startIn(t, path)
	if err := agentstate.Write(agentstate.Dir(w.getenv(nil)), agentstate.Record{Agent: "claude", Session: "h1", PID: id.PID, Start: id.Start,
		Cwd: path, State: agentstate.Blocked, Source: agentstate.SourceHook, Program: "claude"}); err != nil {
		t.Fatal(err)
	}
	as = agentsOf(t, s, path)
	if len(as) != 1 || as[0].State != core.AgentBlocked || as[0].Source != agentstate.SourceHook || as[0].Workspace != ws || as[0].PID != id.PID {
		t.Fatalf("agents %+v", as)
	}
}
