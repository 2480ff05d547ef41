//go:build linux

package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// fakeAgentRun is one run of testdata/agents/fake-agent.js in a window of a private tmux
// server, with copse's hooks installed in its HOME.
type fakeAgentRun struct {
	t      *testing.T
	r      *coretest.Repo
	srv    *tmuxtest.Server
	agent  string
	wt     string
	logDir string
	window string
	env    []string // copse list's extra environment (TMUX, for the tmux backend)
}

func startFakeAgent(t *testing.T, r *coretest.Repo, srv *tmuxtest.Server, agent, wt string) *fakeAgentRun {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the fake agent is a Node program; node is not installed:", err)
	}
	fake, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "agents", "fake-agent.js"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAgentRun{t: t, r: r, srv: srv, agent: agent, wt: wt, logDir: t.TempDir()}
	f.window = strings.TrimSpace(srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "-c", wt, "--",
		"env", "-i", "HOME="+r.Home, "PATH="+os.Getenv("PATH"), "HOOK_LOG_DIR="+f.logDir, "TERM=xterm", node, fake, agent))
	f.waitHook("SessionStart")
	return f
}

// geminiEvents are Gemini CLI's names for the events the keys make.
var geminiEvents = map[string]string{"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "Stop": "AfterAgent"}

// send types key into the agent and waits until the hooks of event have run; it returns
// when they finished.
func (f *fakeAgentRun) send(key, event string) time.Time {
	f.t.Helper()
	if g, ok := geminiEvents[event]; ok && f.agent == "gemini" {
		event = g
	}
	os.Remove(filepath.Join(f.logDir, event))
	f.srv.Run("send-keys", "-t", f.window, key)
	return f.waitHook(event)
}

func (f *fakeAgentRun) waitHook(event string) time.Time {
	f.t.Helper()
	var at time.Time
	f.srv.WaitFor("the fake agent's "+event+" hooks", func() bool {
		b, err := os.ReadFile(filepath.Join(f.logDir, event))
		if err != nil || len(b) == 0 {
			return false
		}
		ms, _ := strconv.ParseInt(string(b), 10, 64)
		at = time.UnixMilli(ms)
		return true
	})
	return at
}

// agents is what `copse list --status --json` (the built binary) shows in the worktree.
func (f *fakeAgentRun) agents() []core.Agent {
	f.t.Helper()
	res := runWith(f.t, f.r, f.r.Root, f.env, nil, "list", "--status", "--json")
	want(f.t, res, 0)
	var l core.Listing
	if err := json.Unmarshal([]byte(res.stdout), &l); err != nil {
		f.t.Fatalf("list --json: %v\n%s", err, res.stdout)
	}
	for _, w := range l.Worktrees {
		if w.Path == f.wt {
			return w.Agents
		}
	}
	f.t.Fatalf("no row %s:\n%s", f.wt, res.stdout)
	return nil
}

// expect checks that the worktree shows exactly one agent, the fake, in state from its
// hook, and returns it.
func (f *fakeAgentRun) expect(state string) core.Agent {
	f.t.Helper()
	as := f.agents()
	if len(as) != 1 || as[0].State != state || as[0].Source != "hook" || as[0].Command != "fake-agent" || as[0].Session == "" || as[0].PID == 0 {
		f.t.Fatalf("%s: want one fake-agent %s (source hook), got %+v", f.agent, state, as)
	}
	return as[0]
}

// The fake agent keeps its terminal in raw mode, so the screen fallback cannot see it
// waiting; every state comes from its hooks, installed by copse init --hooks, and shows
// in the listing that follows the hook: needs-you within a second of it; and a killed
// agent is never shown working 5 s after it exited.
func testFakeAgentStates(t *testing.T, agent string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("the fake agent runs in a private tmux server; tmux is not installed:", err)
	}
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("agent", "wt-agent")
	want(t, run(t, r, r.Root, "init", agent, "--hooks"), 0, "wrote")
	srv := tmuxtest.Start(t)
	f := startFakeAgent(t, r, srv, agent, wt)

	a := f.expect(core.AgentIdle)
	if !liveproc.Alive(a.PID, 0) {
		t.Fatalf("agent pid %d is not alive", a.PID)
	}
	f.send("p", "PreToolUse")
	f.expect(core.AgentWorking)

	permission := "Notification"
	if agent == "codex" {
		permission = "PermissionRequest"
	}
	hooked := f.send("a", permission)
	asked := time.Now()
	blocked := f.expect(core.AgentBlocked)
	// The first listing started after the hook shows it: copse adds no wait of its own. The
	// whole read is within a second too, unless copse is built with the race detector.
	if lag := asked.Sub(hooked); lag > time.Second {
		t.Errorf("the listing started %v after the hook, want within 1s", lag)
	}
	if shown := time.Since(hooked); shown > time.Second && !raceEnabled {
		t.Errorf("needs-you shown %v after the hook, want within 1s", shown)
	} else {
		t.Logf("needs-you shown %v after the hook", shown)
	}
	if blocked.Since.Before(hooked.Add(-2 * time.Second)) {
		t.Errorf("since %v is before the permission hook at %v", blocked.Since, hooked)
	}
	f.send("y", "PostToolUse")
	f.expect(core.AgentWorking)
	f.send("s", "Stop")
	f.expect(core.AgentIdle)

	// Killed while working: no SessionEnd, the record says working.
	f.send("p", "PreToolUse")
	working := f.expect(core.AgentWorking)
	if err := syscall.Kill(working.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srv.WaitFor("the agent to exit", func() bool { return !liveproc.Alive(working.PID, 0) })
	exited := time.Now()
	for _, a := range f.agents() {
		if a.State == core.AgentWorking || a.State == core.AgentBlocked {
			t.Fatalf("a killed agent still shows %+v", a)
		}
	}
	if d := time.Since(exited); d > 5*time.Second {
		t.Errorf("the listing after the exit took %v", d)
	}

	if agent != "codex" {
		// Quit: SessionEnd, then the process ends; nothing is left working.
		g := startFakeAgent(t, r, srv, agent, wt)
		g.expect(core.AgentIdle)
		g.send("q", "SessionEnd")
		if as := g.agents(); len(as) != 0 {
			for _, a := range as {
				if a.State == core.AgentWorking || a.State == core.AgentBlocked || a.Source == "hook" {
					t.Fatalf("after SessionEnd: %+v", as)
				}
			}
		}
	}
}

func TestFakeClaudeCodeStatesFromItsHooks(t *testing.T) { testFakeAgentStates(t, "claude") }

func TestFakeCodexStatesFromItsHooks(t *testing.T) { testFakeAgentStates(t, "codex") }

func TestFakeGeminiCLIStatesFromItsHooks(t *testing.T) { testFakeAgentStates(t, "gemini") }

// Under the tmux backend, in the window create --run made for it: the hook's word takes
// the place of the pane's screen reading (one agent, in its window), needs-you included,
// which the screen cannot see in a raw-mode Node TUI.
func TestFakeClaudeCodeInItsCopseWindow(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("the fake agent runs in a private tmux server; tmux is not installed:", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the fake agent is a Node program; node is not installed:", err)
	}
	t.Parallel()
	r := coretest.New(t)
	want(t, run(t, r, r.Root, "init", "claude", "--hooks"), 0, "wrote")
	srv := tmuxtest.Start(t)
	var env []string
	for k, v := range srv.Env() {
		env = append(env, k+"="+v)
	}
	fake, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "agents", "fake-agent.js"))
	logDir := t.TempDir()
	// The server's windows have the test's own environment: the agent gets the test's HOME.
	cmd := "unset XDG_STATE_HOME COPSE_STATE_DIR CLAUDE_CONFIG_DIR; HOME=" + r.Home + " HOOK_LOG_DIR=" + logDir + " exec " + node + " " + fake + " claude"
	res := runWith(t, r, r.Root, env, nil, "create", "feat/agent", "--run", cmd, "--json")
	want(t, res, 0)
	var out struct {
		Path        string `json:"path"`
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Path == "" || out.WorkspaceID == "" {
		t.Fatalf("create: %v\n%s", err, res)
	}
	f := &fakeAgentRun{t: t, r: r, srv: srv, agent: "claude", wt: out.Path, logDir: logDir, window: out.WorkspaceID, env: env}
	f.waitHook("SessionStart")
	if a := f.expect(core.AgentIdle); a.Workspace != out.WorkspaceID {
		t.Fatalf("agent %+v is not in its window %s", a, out.WorkspaceID)
	}
	f.send("p", "PreToolUse")
	f.expect(core.AgentWorking)
	f.send("a", "Notification")
	blocked := f.expect(core.AgentBlocked)
	if blocked.Workspace != out.WorkspaceID {
		t.Fatalf("agent %+v is not in its window", blocked)
	}
	f.send("s", "Stop")
	f.expect(core.AgentIdle)
}
