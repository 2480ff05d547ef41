package core_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// Inside Herdr: an agent (any process but an idle shell of the workspace's panes) working
// in the worktree refuses the remove before Herdr is asked; the idle pane shell alone does
// not, and the confirmation says Herdr closes it with the workspace.
func TestHerdrRemoveRefusesWhileAProcessWorksInIt(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "agent")
	fifo := filepath.Join(t.TempDir(), "tty")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HERDR_WORKSPACE_ID=" + ws}
	shell := coretest.StartLiveEnv(t, path, env, "sh", "-c", `read x <> "$0"`, fifo) // the pane's idle shell
	coretest.WaitOpen(t, shell, fifo)
	agent := coretest.StartLiveEnv(t, path, env, "sleep", "300") // what the pane runs
	s := w.plain(t)

	before := w.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "processes_running")
	if msg := core.AsError(err).Message; !strings.Contains(msg, fmt.Sprintf("pid %d sleep 300 in %s", agent, path)) || strings.Contains(msg, fmt.Sprintf("pid %d ", shell)) {
		t.Fatalf("refusal %q: want the agent named and not the idle shell", msg)
	}
	w.Unchanged(before)
	if len(w.calls(t, "remove")) != 0 {
		t.Fatal("herdr was asked")
	}

	if err := syscall.Kill(agent, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A killed orphan is gone once its new parent reaps it; until then it is a zombie,
	// which has no working directory and does not count. Wait for its exit, not a time.
	for {
		if _, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", agent)); err != nil {
			break
		}
		runtime.Gosched()
	}
	p, err := s.Prepare(bg, core.RemoveRequest{Path: core.Str(path)})
	if err != nil {
		t.Fatalf("only the idle shell is left, yet: %v", err)
	}
	warn := fmt.Sprintf("Herdr closes workspace %s and ends the processes running in it, among them 1 idle shell of its panes (pid %d)", ws, shell)
	if !slices.Contains(p.Confirm.Warnings, warn) {
		t.Fatalf("confirmation warnings %q, want %q", p.Confirm.Warnings, warn)
	}
}

// workspaceLists counts the `herdr workspace list` runs the double logged.
func (w *hw) workspaceLists(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(w.log)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct{ Argv []string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if slices.Equal(rec.Argv, []string{"workspace", "list"}) {
			n++
		}
	}
	return n
}

// Inside Herdr, the live-process refusal also says what Herdr reports for the agent of the
// worktree's workspace (its agent_status), read with one `workspace list`; a forced
// remove's confirmation says it too, and still runs. A remove with nothing working in the
// worktree does not ask.
func TestHerdrLiveRefusalNamesTheAgentStatus(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "agent")
	quiet, _ := w.create(t, "quiet")
	agent := coretest.StartLiveEnv(t, path, []string{"HERDR_WORKSPACE_ID=" + ws}, "sleep", "300")
	s := w.plain(t)

	herdrdouble.SetAgentStatus(t, w.state, ws, "working")
	before, herdrBefore, lists := w.Snapshot(), w.readState(t), w.workspaceLists(t)
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "processes_running")
	msg := core.AsError(err).Message
	if want := fmt.Sprintf("pid %d sleep 300 in %s; its Herdr workspace %s: agent working", agent, path, ws); !strings.Contains(msg, want) {
		t.Fatalf("refusal %q does not say %q", msg, want)
	}
	if n := w.workspaceLists(t) - lists; n != 1 {
		t.Fatalf("%d workspace lists for one remove, want 1", n)
	}
	w.Unchanged(before)
	if !reflect.DeepEqual(w.readState(t), herdrBefore) || len(w.calls(t, "remove")) != 0 {
		t.Fatal("Herdr's workspaces changed, or herdr was asked to remove")
	}

	herdrdouble.SetAgentStatus(t, w.state, ws, "blocked")
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "processes_running")
	if msg := core.AsError(err).Message; !strings.Contains(msg, "its Herdr workspace "+ws+": agent blocked (waiting for input)") {
		t.Fatalf("refusal %q does not name the blocked agent", msg)
	}

	// Nothing works in quiet: its remove is planned without asking Herdr about agents.
	lists = w.workspaceLists(t)
	if _, err := s.Prepare(bg, core.RemoveRequest{Path: core.Str(quiet)}); err != nil {
		t.Fatal(err)
	}
	if n := w.workspaceLists(t) - lists; n != 0 {
		t.Fatalf("a remove with no process working asked herdr workspace list %d times", n)
	}

	p, err := s.Prepare(bg, core.RemoveRequest{Path: core.Str(path), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "its Herdr workspace " + ws + ": agent blocked (waiting for input)"; !slices.Contains(p.Confirm.Losses, want) {
		t.Fatalf("forced confirmation %q does not say %q", p.Confirm.Losses, want)
	}
	// The agent started working after the confirmation was shown: it is asked again.
	herdrdouble.SetAgentStatus(t, w.state, ws, "working")
	before = w.Snapshot()
	_, err = s.Execute(bg, p)
	wantCode(t, err, core.KindRefused, "stale_state")
	w.Unchanged(before)
	if p, err = s.Prepare(bg, core.RemoveRequest{Path: core.Str(path), Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(bg, p); err != nil {
		t.Fatalf("forced remove: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) || w.wsOf(t, path) != "" {
		t.Fatalf("forced remove left %s (stat: %v) or its workspace", path, err)
	}
}

// When `workspace list` fails, the refusal says the agent status is unknown and refuses
// nothing more than the processes do: the forced remove is still offered.
func TestHerdrLiveRefusalWithoutAgentStatus(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "agent")
	agent := coretest.StartLiveEnv(t, path, nil, "sleep", "300")
	// The wrapper leaves the knobs on every command that is not a worktree action.
	s := w.open(t, w.Root, herdrdouble.Knobs{ServerDown: true}, "workspace")

	before := w.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "processes_running")
	msg := core.AsError(err).Message
	if want := fmt.Sprintf("pid %d sleep 300 in %s; its Herdr workspace %s: agent status unknown (herdr workspace list failed: server_not_running: ", agent, path, ws); !strings.Contains(msg, want) {
		t.Fatalf("refusal %q does not say %q", msg, want)
	}
	w.Unchanged(before)

	p, err := s.Prepare(bg, core.RemoveRequest{Path: core.Str(path), Force: true})
	if err != nil {
		t.Fatalf("a failed workspace list refused the forced remove: %v", err)
	}
	if !slices.ContainsFunc(p.Confirm.Losses, func(l string) bool {
		return strings.HasPrefix(l, "its Herdr workspace "+ws+": agent status unknown (")
	}) {
		t.Fatalf("forced confirmation %q does not say the agent status is unknown", p.Confirm.Losses)
	}
}

// A workspace list that says the worktree's workspace shows another checkout is not
// believed: the agent status is unknown, and the refusal is the processes' as before.
func TestHerdrLiveRefusalDistrustsAWorkspaceOfAnotherCheckout(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "agent")
	herdrdouble.SetAgentStatus(t, w.state, ws, "idle")
	coretest.StartLive(t, path, "sleep", "300")
	s := w.open(t, w.Root, herdrdouble.Knobs{Lie: herdrdouble.LieOtherPath}, "workspace")

	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path)})
	wantCode(t, err, core.KindRefused, "processes_running")
	msg := core.AsError(err).Message
	if want := "its Herdr workspace " + ws + ": agent status unknown (herdr workspace list says it shows " + path + "-elsewhere)"; !strings.Contains(msg, want) || strings.Contains(msg, "agent idle") {
		t.Fatalf("refusal %q does not say %q", msg, want)
	}
}
