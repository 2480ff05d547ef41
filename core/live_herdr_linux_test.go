package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Inside Herdr: an agent (any process but an idle shell of the workspace's panes) working
// in the worktree refuses the remove before Herdr is asked; the idle pane shell alone does
// not, and the confirmation says Herdr closes it with the workspace.
func TestHerdrRemoveRefusesWhileAProcessWorksInIt(t *testing.T) {
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
