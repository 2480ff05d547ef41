//go:build linux

package core

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/gitx"
)

func pidsOf(l liveSet) (procs, idle []int) {
	for _, p := range l.procs {
		procs = append(procs, p.PID)
	}
	for _, p := range l.idle {
		idle = append(idle, p.PID)
	}
	return procs, idle
}

// The idle shell of the Herdr pane copse opened for a worktree (a shell started in that
// workspace, with no child) does not keep it; a shell running something, or a shell of
// another workspace, does.
func TestIdleShellsOfTheWorktreesWorkspaceDoNotCount(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "stdin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// `read` on a FIFO opened for reading and writing waits forever, in the shell itself.
	idle := coretest.StartLiveEnv(t, wt, []string{herdrWorkspaceEnv + "=wT"}, "sh", "-c", `read x <> "$0"`, fifo)
	busy := coretest.StartLiveEnv(t, wt, []string{herdrWorkspaceEnv + "=wT"}, "sh", "-c", "sleep 300; :")
	other := coretest.StartLiveEnv(t, wt, []string{herdrWorkspaceEnv + "=wO"}, "sh", "-c", `read x <> "$0"`, fifo)
	coretest.WaitOpen(t, idle, fifo)
	coretest.WaitOpen(t, other, fifo)
	coretest.WaitChild(t, busy) // before its fork it is a shell with no child: idle

	l := liveIn(wt, "wT")
	procs, idles := pidsOf(l)
	if fmt.Sprint(idles) != fmt.Sprint([]int{idle}) {
		t.Fatalf("idle shells %v, want [%d]", idles, idle)
	}
	has := func(pid int) bool {
		for _, p := range procs {
			if p == pid {
				return true
			}
		}
		return false
	}
	if !has(busy) || !has(other) || has(idle) || len(procs) != 3 { // busy, its sleep, other
		t.Fatalf("counted %v; want busy %d (and its sleep) and other %d, not idle %d", procs, busy, other, idle)
	}
	// Without a workspace of its own (the git backend) every shell counts.
	if procs, idles := pidsOf(liveIn(wt, "")); len(idles) != 0 || len(procs) != 4 {
		t.Fatalf("git backend: counted %v, idle %v", procs, idles)
	}
	// The confirmation says Herdr closes the idle shell with the workspace.
	w := gitx.Worktree{Path: wt, Branch: "feat"}
	conf := removeConfirmation(RemoveRequest{Branch: Str("feat"), Force: true}, w, "wT", Losses{}, l, (&herdrBackend{}).ClosesWorkspace("wT"))
	if want := fmt.Sprintf("Herdr closes workspace wT and ends the processes running in it, among them 1 idle shell of its panes (pid %d)", idle); !strings.Contains(conf.Line(), want) {
		t.Fatalf("confirmation %q does not say %q", conf.Line(), want)
	}
}
