//go:build linux

package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// stopCopse stops the running copse with SIGSTOP (as Ctrl-Z does) and has the test
// continue and end it afterwards.
func stopCopse(t *testing.T, p *running) {
	t.Helper()
	pid := p.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT); p.cmd.Process.Kill() })
	p.waitFor(t, "copse to be stopped", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		i := strings.LastIndexByte(string(b), ')')
		return i > 0 && strings.HasPrefix(string(b[i+1:]), " T")
	})
}

// A land that waits in the queue behind a job whose copse is stopped (SIGSTOP, as Ctrl-Z)
// does not wait forever: after copse.lockTimeout it gives up (land_owner_stopped, exit 1),
// naming the stopped job, its pid, its session and how long it has held the queue; its own
// job ends cancelled with nothing changed.
func TestLandWaitingBehindAStoppedOwnerGivesUpNamingIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.lockTimeout", "2s")
	gatePID := filepath.Join(t.TempDir(), "gate.pid")
	r.Git(r.Root, "config", "copse.test", "echo $$ > '"+gatePID+"'; exec sleep 120")
	for _, b := range []string{"feat/a", "feat/b"} {
		w := r.AddWorktree(b, filepath.Join(r.Base, "trees", strings.ReplaceAll(b, "/", "-")))
		coretest.WriteFile(t, filepath.Join(w, strings.ReplaceAll(b, "/", "-")+".txt"), b+"\n")
		r.Git(w, "add", "-A")
		r.Git(w, "commit", "-q", "-m", "work on "+b)
	}
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	featB := r.Git(r.Root, "rev-parse", "feat/b")
	holder := startCopse(t, r, []string{"COPSE_SESSION=agent-a"}, "land", "feat/a")
	holder.waitFor(t, "the holder's test gate to start", func() bool { return fileExists(gatePID) })
	t.Cleanup(func() { syscall.Kill(readPID(t, gatePID), syscall.SIGKILL) })
	stopCopse(t, holder)

	waiter := startCopse(t, r, nil, "--json", "land", "feat/b")
	if code := waiter.exit(t); code != 1 {
		t.Fatalf("waiter: exit %d, want 1\n%s\n%s", code, waiter.stdout, waiter.stderr)
	}
	out := waiter.stdout.String() + waiter.stderr.String()
	for _, want := range []string{`"code":"land_owner_stopped"`, "gave up after 2s waiting behind land-1",
		"pid " + strconv.Itoa(holder.cmd.Process.Pid), "session agent-a", "is stopped", "kill -CONT"} {
		if !strings.Contains(out, want) {
			t.Errorf("the waiter's answer does not say %q:\n%s", want, out)
		}
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore || r.Git(r.Root, "rev-parse", "feat/b") != featB {
		t.Fatal("the land that gave up moved a branch")
	}
	rec, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "land", "land-2.json"))
	if err != nil || !strings.Contains(string(rec), `"state": "cancelled"`) || !strings.Contains(string(rec), "nothing changed") {
		t.Fatalf("the waiter's job is not cancelled with nothing changed: %s %v", rec, err)
	}
}

// A copse waiting for the repository lock held by a stopped copse says it is stopped when
// it gives up, and how to move it.
func TestLockWaitBehindAStoppedHolderSaysItIsStopped(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.lockTimeout", "1s")
	pids := sleepyHook(t, r)
	holder := startCopse(t, r, []string{"COPSE_SESSION=agent-h"}, "create", "feat/slow")
	holder.waitFor(t, "the holder's hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
	t.Cleanup(func() { syscall.Kill(readPID(t, filepath.Join(pids, "sleep.pid")), syscall.SIGKILL) })
	stopCopse(t, holder)
	res := run(t, r, r.Root, "--json", "create", "feat/other")
	pid := strconv.Itoa(holder.cmd.Process.Pid)
	want(t, res, 1, `"code":"lock_timeout"`, "(pid "+pid+", session agent-h, since ", "which is stopped", "kill -CONT "+pid)
}
