//go:build linux

package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
)

// The whole day of issue 28 with one agent, end to end in a private tmux server and the
// built binary: copse's hooks installed by init, the fake Claude Code (installed where npm
// puts Claude Code, so its argv names it) started by create --run, driven to a permission
// prompt: list --status says "needs you" for "claude" within a second of the hook and the
// agent's window (not the one in view) rings; then it exits 0: list shows done with exit
// code 0, the claim is released, and land cleans up without --force, closing the window.
func TestAgentDayEndToEndInTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test runs in a private tmux server; tmux is not installed:", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the fake agent is a Node program; node is not installed:", err)
	}
	r := coretest.New(t)
	want(t, run(t, r, r.Root, "init", "claude", "--hooks"), 0, "wrote")
	if b, err := os.ReadFile(filepath.Join(r.Home, ".claude", "settings.json")); err != nil || !strings.Contains(string(b), "copse") {
		t.Fatalf("init claude --hooks wrote no hooks into HOME's settings: %v\n%s", err, b)
	}
	fake, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "agents", "fake-agent.js"))
	src, err := os.ReadFile(fake)
	if err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(r.Base, "npm", "lib", "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	coretest.WriteFile(t, cli, string(src))
	logDir := t.TempDir()
	srv, env := runServer(t, r)
	inView := srv.Active()

	res := runWith(t, r, r.Root, env, nil, "create", "feat", "--run", "HOOK_LOG_DIR="+logDir+" "+node+" "+cli+" claude", "--json")
	want(t, res, 0, `"session":"agent:feat"`)
	var created struct {
		Path        string `json:"path"`
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &created); err != nil || created.WorkspaceID == "" {
		t.Fatalf("create: %v\n%s", err, res)
	}
	wt, ws := created.Path, created.WorkspaceID
	if ws == inView || srv.Active() != inView {
		t.Fatalf("the agent's window %s is the one in view (%s is current)", ws, srv.Active())
	}
	f := &fakeAgentRun{t: t, r: r, srv: srv, agent: "claude", wt: wt, logDir: logDir, window: ws, env: env}
	f.waitHook("SessionStart")
	f.send("p", "PreToolUse")
	if a := f.agents(); len(a) != 1 || a[0].State != core.AgentWorking || a[0].Command != "claude" {
		t.Fatalf("after the prompt: %+v; want claude working", a)
	}
	bell := func() string { return srv.Run("display-message", "-p", "-t", ws, "#{window_bell_flag}") }
	if b := bell(); b != "0" {
		t.Fatalf("the agent's window rang (%s) before it needed anyone", b)
	}

	hooked := f.send("a", "Notification")
	list := runWith(t, r, r.Root, env, nil, "list", "--status")
	shown := time.Since(hooked)
	want(t, list, 0, "needs you", "claude")
	var row string
	for _, l := range strings.Split(list.stdout, "\n") {
		if strings.Contains(l, "needs you") {
			row = l
		}
	}
	for _, bad := range []string{"node", "copse-run", "agent-run", " sh ", "fake-agent"} {
		if strings.Contains(row, bad) {
			t.Errorf("the agent's row names %q, not the program:\n%s", bad, list.stdout)
		}
	}
	if shown > time.Second && !raceEnabled {
		t.Errorf("needs you shown %v after the hook, want within 1s", shown)
	}
	srv.WaitFor("the bell of the agent's window", func() bool { return bell() == "1" })
	if srv.Active() != inView {
		t.Errorf("the notification changed the window in view to %s", srv.Active())
	}

	f.send("q", "SessionEnd")
	rec := runRecord(t, srv, r, "agent:feat", agentstate.Done)
	if rec.ExitCode == nil || *rec.ExitCode != 0 {
		t.Fatalf("done record %+v; want exit code 0", rec)
	}
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, wt) })
	var done []core.Agent
	for _, a := range f.agents() {
		if a.State == core.AgentDone {
			done = append(done, a)
		}
		if a.State == core.AgentWorking || a.State == core.AgentBlocked {
			t.Errorf("an agent that exited still shows %+v", a)
		}
	}
	if len(done) != 1 || done[0].ExitCode == nil || *done[0].ExitCode != 0 || !done[0].Unread {
		t.Fatalf("after the exit: done agents %+v; want one, unread, exit code 0", done)
	}
	want(t, runWith(t, r, r.Root, env, nil, "list", "--status"), 0, "done")
	srv.WaitFor("the release's event", func() bool {
		return strings.Contains(run(t, r, r.Root, "events", "--json").stdout, `"event":"worktree.released"`)
	})

	coretest.WriteFile(t, filepath.Join(wt, "f.txt"), "f\n")
	r.Git(wt, "add", "f.txt")
	r.Git(wt, "commit", "-q", "-m", "f")
	srv.Idle(ws)
	land := runWith(t, r, r.Root, env, nil, "land", "feat", "--yes")
	want(t, land, 0)
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("land kept the worktree %s: %v\n%s", wt, err, land)
	}
	srv.WaitFor("window "+ws+" to close", func() bool {
		return !strings.Contains(srv.Run("list-windows", "-a", "-F", "#{window_id}"), ws)
	})
}

// A --run command that exits 0 within a second did not start either: the reply says so with
// its exit code, and its claim does not stay live.
func TestCLIRunThatExitsAtOnceWithZeroIsAFailedStart(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/quick", "--run", "true", "--json")
	want(t, res, 0, "did not start", "exit 0")
	path := filepath.Join(r.Base, "app.worktrees", "feat-quick")
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, path) })
	rec := runRecord(t, srv, r, "agent:feat-quick", agentstate.Done)
	if rec.ExitCode == nil || *rec.ExitCode != 0 {
		t.Errorf("done record %+v; want exit code 0", rec)
	}
}

// git config copse.notify off: a --run agent's end is recorded and its claim released as
// always, but its window does not ring (the default, on, rings it:
// TestCLIRunEndRecordsDoneLogsItAndReleasesTheClaim).
func TestCLIRunEndWithNotifyOffDoesNotRing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	r.Git(r.Root, "config", "copse.notify", "off")
	res := runWith(t, r, r.Root, env, nil, "create", "feat/quiet", "--run", `sh -c "sleep 1.5; exit 3"`, "--json")
	want(t, res, 0)
	var created struct {
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &created); err != nil || created.WorkspaceID == "" {
		t.Fatalf("create: %v\n%s", err, res)
	}
	runRecord(t, srv, r, "agent:feat-quiet", agentstate.Done)
	path := filepath.Join(r.Base, "app.worktrees", "feat-quiet")
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, path) })
	waitWrappers(t, r) // the bell would come last, from the wrapper's copse
	if b := srv.Run("display-message", "-p", "-t", created.WorkspaceID, "#{window_bell_flag}"); b != "0" {
		t.Errorf("copse.notify off, yet the ended agent's window rang (bell flag %s)", b)
	}
}
