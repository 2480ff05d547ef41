package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// watcher is a `copse list --watch --json` running until the test ends.
type watcher struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	errb *syncBuffer
	done chan error
}

func startWatch(t *testing.T, r *coretest.Repo, env []string) *watcher {
	t.Helper()
	w := &watcher{out: &syncBuffer{}, errb: &syncBuffer{}, done: make(chan error, 1)}
	w.cmd = exec.Command(copseBin, "list", "--watch", "--json")
	w.cmd.Dir = r.Root
	w.cmd.Env = cleanEnv(r.Home, env...)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.errb
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() { w.cmd.Process.Kill() })
	return w
}

func (w *watcher) lines() []string {
	return strings.Split(strings.TrimSuffix(w.out.String(), "\n"), "\n")
}

// waitFor polls cond until it holds; the watcher ending first, or a minute, fails the test.
func (w *watcher) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		select {
		case err := <-w.done:
			t.Fatalf("list --watch ended before %s: %v\nstderr: %s", what, err, w.errb)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nstdout: %s\nstderr: %s", what, w.out, w.errb)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// agentState is the state the listing line gives the agent in the window of the worktree
// at path ("" when it shows none).
func agentState(t *testing.T, line, path string) string {
	t.Helper()
	if line == "" {
		return ""
	}
	var l core.Listing
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		t.Fatalf("a line of list --watch --json is no listing: %v\n%s", err, line)
	}
	for _, r := range l.Worktrees {
		if r.Path != path {
			continue
		}
		for _, a := range r.Agents {
			if a.Workspace != "" {
				return a.State
			}
		}
	}
	return ""
}

// seenRecord is <common>/copse/agents.json as far as the test reads it.
type seenRecord struct {
	Observed int64 `json:"observed"`
	Agents   []struct {
		Path, State string
	} `json:"agents"`
}

func readSeen(t *testing.T, r *coretest.Repo) seenRecord {
	t.Helper()
	var s seenRecord
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "agents.json"))
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return s
}

// Under tmux (a private server), list --watch --json prints a new line when the agent in
// a worktree's window starts waiting for input, with no key pressed and nothing changed in
// git; it prints a line only when the listing changed; and with two watchers running the
// change is logged as exactly one agent.state event. SIGINT ends a watcher with exit 130.
func TestCLIListWatchFollowsAnAgentWithoutInput(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	var env []string
	for k, v := range srv.Env() {
		env = append(env, k+"="+v)
	}
	gate := filepath.Join(t.TempDir(), "go")
	// The agent works (its loop runs sleep) until the test makes the gate, then waits to
	// read its terminal: blocked, needs you.
	res := runWith(t, r, r.Root, env, nil, "create", "feat/agent", "--json", "--run",
		`echo started; while [ ! -e '`+gate+`' ]; do sleep 0.2; done; printf 'continue? '; head -n 1; exec sleep 600`)
	want(t, res, 0)
	path := filepath.Join(r.Base, "app.worktrees", "feat-agent")

	ws := []*watcher{startWatch(t, r, env), startWatch(t, r, env)}
	for _, w := range ws {
		w.waitFor(t, "the agent at work", func() bool {
			st := agentState(t, w.lines()[len(w.lines())-1], path)
			return st != "" && st != core.AgentBlocked
		})
	}
	ws[0].waitFor(t, "the working agent recorded", func() bool {
		for _, a := range readSeen(t, r).Agents {
			if a.Path == path && a.State != core.AgentBlocked {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		w.waitFor(t, "a line with the agent blocked", func() bool {
			return agentState(t, w.lines()[len(w.lines())-1], path) == core.AgentBlocked
		})
	}
	// Two more rounds at least, to see that an unchanged listing prints nothing.
	after := time.Now().Add(5 * time.Second).UnixNano()
	ws[0].waitFor(t, "more rounds", func() bool { return readSeen(t, r).Observed > after })

	for i, w := range ws {
		lines := w.lines()
		for j := 1; j < len(lines); j++ {
			if lines[j] == lines[j-1] {
				t.Errorf("watcher %d printed the same listing twice in a row:\n%s", i, lines[j])
			}
		}
	}
	ev := runWith(t, r, r.Root, env, nil, "events", "--json")
	want(t, ev, 0)
	var blocked []core.Event
	for _, l := range strings.Split(strings.TrimSpace(ev.stdout), "\n") {
		var e core.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		if e.Event == core.EventAgentState && e.Agent != nil && e.Agent.State == core.AgentBlocked {
			blocked = append(blocked, e)
		}
	}
	if len(blocked) != 1 {
		t.Fatalf("%d agent.state events for one change seen by two watchers:\n%s", len(blocked), ev.stdout)
	}
	e := blocked[0]
	if e.Worktree == nil || e.Worktree.Path != path || e.Worktree.Branch != "feat/agent" ||
		e.Agent.Command != "head" || e.Agent.PID == 0 || !strings.HasPrefix(e.Agent.Workspace, "@") ||
		e.Agent.Previous == "" || e.Agent.Previous == core.AgentBlocked {
		t.Errorf("the event does not name the worktree, the agent and both states: %+v %+v", e.Worktree, e.Agent)
	}

	if err := ws[0].cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ws[0].done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("list --watch after SIGINT: %v; want exit 130\nstderr: %s", err, ws[0].errb)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("list --watch did not end on SIGINT")
	}
}

// Piped text: list --watch prints the listing, and again (after a blank line) when a
// worktree is created by another copse, without any input.
func TestCLIListWatchPrintsANewWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := &watcher{out: &syncBuffer{}, errb: &syncBuffer{}, done: make(chan error, 1)}
	w.cmd = exec.Command(copseBin, "list", "--watch")
	w.cmd.Dir = r.Root
	w.cmd.Env = cleanEnv(r.Home)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.errb
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() { w.cmd.Process.Kill() })
	w.waitFor(t, "the first listing", func() bool { return strings.Contains(w.out.String(), "main") })
	if strings.Contains(w.out.String(), "feat/new") {
		t.Fatalf("the first listing already has the worktree:\n%s", w.out)
	}
	want(t, run(t, r, r.Root, "create", "feat/new"), 0)
	w.waitFor(t, "the listing with the new worktree", func() bool { return strings.Contains(w.out.String(), "feat/new") })
	first, second, ok := strings.Cut(w.out.String(), "\n\n")
	if !ok || strings.Contains(first, "feat/new") || !strings.Contains(second, "main") || !strings.Contains(second, "feat/new") {
		t.Errorf("want the listing, a blank line, then the listing with feat/new; got:\n%s", w.out)
	}
}
