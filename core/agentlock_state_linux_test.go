package core_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// A Claude Code worktree's lock is shown as a claim with the agent's state: the state its
// registry (or hook records) give for the lock's pid, even when the session works from
// another directory; with no word from the agent, that its process runs.
func TestClaudeLockClaimCarriesTheAgentsState(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	cfg := filepath.Join(r.Base, "claude-config")
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return r.Getenv(k)
	}
	elsewhere := t.TempDir() // the session's own directory is in no worktree
	waiting := coretest.StartLive(t, elsewhere, "sleep", "600")
	quiet := coretest.StartLive(t, elsewhere, "sleep", "601")
	time.Sleep(20 * time.Millisecond) // the locks are written after the sessions started
	asks := claudeWorktree(t, r, "bold-fox", waiting)
	runs := claudeWorktree(t, r, "calm-owl", quiet)
	if err := os.MkdirAll(filepath.Join(cfg, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	entry := `{"pid":` + strconv.Itoa(waiting) + `,"sessionId":"fox-1","cwd":"` + elsewhere + `","status":"waiting","updatedAt":` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `}`
	if err := os.WriteFile(filepath.Join(cfg, "sessions", strconv.Itoa(waiting)+".json"), []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.List(bg, true)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]core.Worktree{}
	for _, w := range l.Worktrees {
		rows[w.Path] = w
	}
	want := map[string]struct {
		pid           int
		state, source string
	}{
		asks: {waiting, core.AgentBlocked, agentstate.SourceRegistry},
		runs: {quiet, core.AgentRunning, agentstate.SourceProcess},
	}
	for path, w := range want {
		row := rows[path]
		if row.Claim == nil || row.Claim.PID != w.pid {
			t.Fatalf("%s: claim %+v; want the session of pid %d", path, row.Claim, w.pid)
		}
		if len(row.Agents) != 1 || row.Agents[0].PID != w.pid || row.Agents[0].State != w.state || row.Agents[0].Source != w.source {
			t.Errorf("%s: agents %+v; want pid %d %s from %s", path, row.Agents, w.pid, w.state, w.source)
		}
	}
}
