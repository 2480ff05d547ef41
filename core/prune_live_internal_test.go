package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// A process that starts in a worktree after prune's scan (under the lock, while prune
// records the worktree) keeps it: prune looks again right before git removes it, keeps it
// as "processes", drops the record it made, and the worktree and its branch stay.
func TestPruneKeepsAWorktreeAProcessStartedInAfterItsScan(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("late", "app.worktrees/late")
	old := time.Now().Add(-100 * time.Hour)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		_ = os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", "late", f), old, old)
	}
	var pid int
	svc := openGit(t, r, func(path string) {
		if pid == 0 && path == wt {
			pid = coretest.StartLive(t, wt, "sleep", "300")
		}
	})
	// The plan (scanned before the process existed) says it goes.
	p, err := svc.Prepare(context.Background(), PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if cmds := strings.Join(p.Commands, "\n"); strings.Count(cmds, "worktree remove") != 1 || !strings.Contains(cmds, wt) {
		t.Fatalf("prune would not remove the idle worktree: %q", p.Commands)
	}
	out, err := svc.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if pid == 0 {
		t.Fatal("the removal never reached its live check")
	}
	if len(out.Prune.Removed) != 0 || len(out.Prune.Kept) != 2 {
		t.Fatalf("report %+v", out.Prune)
	}
	want := fmt.Sprintf("1 process working in it: pid %d sleep 300 in %s", pid, wt)
	for _, e := range out.Prune.Kept {
		if e.Path == wt && (e.Reason != KeepProcesses || e.Detail != want) {
			t.Errorf("kept %q %q, want %q %q", e.Reason, e.Detail, KeepProcesses, want)
		}
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("prune removed the worktree a process started in: %v", err)
	}
	if refs := removedRefs(r); refs != "" {
		t.Errorf("the record of a worktree prune kept stays: %s", refs)
	}
	if got := r.Git(r.Root, "branch", "--list", "late"); !strings.Contains(got, "late") {
		t.Errorf("branch late is gone: %q", got)
	}
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
	idle := coretest.StartLiveEnv(t, wt, []string{HerdrWorkspaceEnv + "=wT"}, "sh", "-c", `read x <> "$0"`, fifo)
	busy := coretest.StartLiveEnv(t, wt, []string{HerdrWorkspaceEnv + "=wT"}, "sh", "-c", "sleep 300; :")
	other := coretest.StartLiveEnv(t, wt, []string{HerdrWorkspaceEnv + "=wO"}, "sh", "-c", `read x <> "$0"`, fifo)
	coretest.WaitOpen(t, idle, fifo)
	coretest.WaitOpen(t, other, fifo)
	coretest.WaitChild(t, busy) // before its fork it is a shell with no child: idle

	l := LiveIn(wt, "wT")
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
	if procs, idles := pidsOf(LiveIn(wt, "")); len(idles) != 0 || len(procs) != 4 {
		t.Fatalf("git backend: counted %v, idle %v", procs, idles)
	}
}
