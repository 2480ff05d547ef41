//go:build linux

package core_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/internal/liveproc"
)

// agentsOf lists with status and returns the agents of the row at path.
func agentsOf(t *testing.T, s *core.Service, path string) []core.Agent {
	t.Helper()
	l, err := s.List(bg, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Worktrees {
		if r.Path == path {
			return r.Agents
		}
	}
	t.Fatalf("no row %s in %+v", path, l.Worktrees)
	return nil
}

// startIn starts a long sleep with its directory in dir (an agent stand-in) and returns
// its identity; the test ends it.
func startIn(t *testing.T, dir string) (*exec.Cmd, liveproc.Ident) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	id, ok := liveproc.Identify(cmd.Process.Pid)
	if !ok {
		t.Fatal("cannot read the process just started")
	}
	return cmd, id
}

// TestListShowsTheAgentsOwnWordAndDropsItWhenTheProcessDies: a hook's record for a live
// process shows its state and source on the row whose tree holds the record's directory
// (a subdirectory too), as one agent with the process copse saw working there; once the
// process is gone the listing shows no working agent, and removes the stale record.
func TestListShowsTheAgentsOwnWordAndDropsItWhenTheProcessDies(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("agent", "wt-agent")
	sub := filepath.Join(wt, "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	cmd, id := startIn(t, sub)
	dir := agentstate.Dir(r.Getenv)
	since := time.Now().Add(-time.Minute).Truncate(time.Second)
	rec := agentstate.Record{Agent: "claude", Session: "s-1", PID: id.PID, Start: id.Start, Cwd: sub,
		State: agentstate.Blocked, Source: agentstate.SourceHook, Event: "Notification", Time: since, Since: since, Program: "claude"}
	if err := agentstate.Write(dir, rec); err != nil {
		t.Fatal(err)
	}
	agents := agentsOf(t, s, wt)
	if len(agents) != 1 {
		t.Fatalf("agents %+v; want the hook's one agent (not also the process as running)", agents)
	}
	a := agents[0]
	if a.State != core.AgentBlocked || a.Source != agentstate.SourceHook || a.PID != id.PID || a.Command != "claude" || a.Session != "s-1" || !a.Since.Equal(since) {
		t.Fatalf("agent %+v", a)
	}
	if main := agentsOf(t, s, r.Root); len(main) != 0 {
		t.Fatalf("the main worktree got %+v", main)
	}

	// The same pid with another start time is not the agent.
	stale := rec
	stale.Session, stale.Start = "s-old", id.Start+1
	if err := agentstate.Write(dir, stale); err != nil {
		t.Fatal(err)
	}
	if agents := agentsOf(t, s, wt); len(agents) != 1 || agents[0].Session != "s-1" {
		t.Fatalf("a record of a reused pid counted: %+v", agents)
	}
	if _, err := os.Stat(filepath.Join(dir, agentstate.Name("claude", "s-old", id.PID))); !os.IsNotExist(err) {
		t.Fatalf("the reused pid's record was kept: %v", err)
	}

	cmd.Process.Kill()
	cmd.Wait()
	for _, a := range agentsOf(t, s, wt) {
		if a.State == core.AgentWorking || a.State == core.AgentBlocked {
			t.Fatalf("a dead process still shows %+v", a)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, agentstate.Name("claude", "s-1", id.PID))); !os.IsNotExist(err) {
		t.Fatalf("the dead process's record was kept: %v", err)
	}
}

// TestListShowsADoneCommandWithItsExitCode: a wrapper's done record stays after its
// process ended, with its exit code (0 included) and unread until read.
func TestListShowsADoneCommandWithItsExitCode(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("done", "wt-done")
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	if err := agentstate.Write(agentstate.Dir(r.Getenv), agentstate.Record{Agent: "run", PID: 999999, Cwd: wt, State: agentstate.Done,
		ExitCode: &zero, Source: agentstate.SourceWrapper, Program: "make"}); err != nil {
		t.Fatal(err)
	}
	agents := agentsOf(t, s, wt)
	if len(agents) != 1 || agents[0].State != core.AgentDone || agents[0].ExitCode == nil || *agents[0].ExitCode != 0 || !agents[0].Unread || agents[0].Source != agentstate.SourceWrapper {
		t.Fatalf("agents %+v", agents)
	}
	b, _ := json.Marshal(agents[0])
	var m map[string]any
	json.Unmarshal(b, &m)
	if v, ok := m["exit_code"]; !ok || v != float64(0) {
		t.Fatalf("exit_code 0 missing from the JSON: %s", b)
	}
}

// TestListReadsClaudeCodesRegistry: without hooks, a Claude Code process working in a
// worktree is shown from ~/.claude/sessions/<pid>.json (CLAUDE_CONFIG_DIR moves it), while
// it lives.
func TestListReadsClaudeCodesRegistry(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("reg", "wt-reg")
	cfg := filepath.Join(r.Base, "claude-config")
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return r.Getenv(k)
	}
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	_, id := startIn(t, wt)
	if err := os.MkdirAll(filepath.Join(cfg, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	entry := `{"pid":` + strconv.Itoa(id.PID) + `,"sessionId":"reg-1","cwd":"` + wt + `","status":"busy","updatedAt":` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `}`
	if err := os.WriteFile(filepath.Join(cfg, "sessions", strconv.Itoa(id.PID)+".json"), []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	// A second process whose entry says its session started an hour before the process
	// did: a reused pid's stale entry, not this process.
	_, old := startIn(t, wt)
	stale := `{"pid":` + strconv.Itoa(old.PID) + `,"sessionId":"reg-old","cwd":"` + wt + `","status":"busy","startedAt":` + strconv.FormatInt(time.Now().Add(-time.Hour).UnixMilli(), 10) + `}`
	if err := os.WriteFile(filepath.Join(cfg, "sessions", strconv.Itoa(old.PID)+".json"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	agents := agentsOf(t, s, wt)
	var fromRegistry []core.Agent
	for _, a := range agents {
		if a.Source == agentstate.SourceRegistry {
			fromRegistry = append(fromRegistry, a)
		}
	}
	if len(fromRegistry) != 1 || fromRegistry[0].State != core.AgentWorking || fromRegistry[0].Session != "reg-1" || fromRegistry[0].PID != id.PID {
		t.Fatalf("agents %+v", agents)
	}
}

// TestSwitchMarksADoneAgentRead: switching to the worktree of a done agent marks it read;
// the done agent of another worktree stays unread.
func TestSwitchMarksADoneAgentRead(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("seen", "wt-seen")
	other := r.AddWorktree("unseen", "wt-unseen")
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	dir := agentstate.Dir(r.Getenv)
	for i, p := range []string{wt, other} {
		if err := agentstate.Write(dir, agentstate.Record{Agent: "run", Session: strconv.Itoa(i), Cwd: p, State: agentstate.Done, ExitCode: &one, Source: agentstate.SourceWrapper}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Do(bg, core.SwitchRequest{Branch: core.Str("seen")}, false); err != nil {
		t.Fatal(err)
	}
	if a := agentsOf(t, s, wt); len(a) != 1 || a[0].Unread || a[0].ExitCode == nil || *a[0].ExitCode != 1 {
		t.Fatalf("switched-to worktree's agent: %+v", a)
	}
	if a := agentsOf(t, s, other); len(a) != 1 || !a[0].Unread {
		t.Fatalf("other worktree's agent: %+v", a)
	}
}
