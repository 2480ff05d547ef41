package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/testexec"
)

// installHook makes dir the repository's hooks directory with an executable post-checkout.
func installHook(t *testing.T, r *coretest.Repo, body string) {
	t.Helper()
	dir := filepath.Join(r.Home, "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testexec.WriteFile(filepath.Join(dir, "post-checkout"), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "config", "core.hooksPath", dir)
}

// alive reports whether pid is a running process (a zombie waiting for its reaper is not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// gitProcessesIn lists live git processes whose working directory or arguments name dir.
func gitProcessesIn(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p + "/cmdline")
		if err != nil || len(cmdline) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if filepath.Base(args[0]) != "git" && !strings.HasPrefix(filepath.Base(args[0]), "git-") {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		if !alive(pid) {
			continue
		}
		cwd, _ := os.Readlink(p + "/cwd")
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmdline), dir) {
			out = append(out, p+": "+strings.Join(args, " "))
		}
	}
	return out
}

// A create whose post-checkout hook hangs, interrupted with SIGINT: exit 130, the hook and
// everything it started are gone, and stderr says what state was left.
func TestInterruptedCreate(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pids := t.TempDir()
	installHook(t, r, `sleep 30 &
echo $! > "`+pids+`/sleep.pid"
echo $$ > "`+pids+`/hook.pid.tmp"
mv "`+pids+`/hook.pid.tmp" "`+pids+`/hook.pid"
wait
`)
	cmd := exec.Command(copseBin, "create", "feat/slow")
	cmd.Dir = r.Root
	cmd.Env = cleanEnv(r.Home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(pids, "hook.pid")); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("copse ended before the hook ran: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the hook never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	hookPID := readPID(t, filepath.Join(pids, "hook.pid"))
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("copse did not stop after SIGINT\nstderr: %s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}

	// Nothing keeps running: the hook, its sleep, any git in the repository.
	var left []string
	for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
		left = gitProcessesIn(r.Base)
		if alive(hookPID) {
			left = append(left, "hook "+strconv.Itoa(hookPID))
		}
		if alive(sleepPID) {
			left = append(left, "sleep "+strconv.Itoa(sleepPID))
		}
		if len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		syscall.Kill(sleepPID, syscall.SIGKILL)
		t.Fatalf("still running after the interrupt: %v", left)
	}

	// stderr reports the state left, and it is the state git shows.
	msg := stderr.String()
	path := filepath.Join(r.Base, "app.worktrees", "feat-slow")
	listed := strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+path+"\n")
	switch {
	case listed && strings.Contains(msg, path+" is listed"):
	case !listed && strings.Contains(msg, "nothing was created"):
	case !listed && strings.Contains(msg, "does not list"):
	default:
		t.Fatalf("stderr does not report the state left (listed=%v):\n%s", listed, msg)
	}
	if !strings.Contains(msg, "cancel") {
		t.Fatalf("stderr does not say it was cancelled:\n%s", msg)
	}
	// The hint says how to take the half-made worktree back; it must be a command copse takes.
	checkHints(t, stdout.String(), msg)
}

// A hook that prints more than the 2 MB cap is a size-limit error, not "not found".
func TestHookOutputLimit(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	installHook(t, r, "head -c 3000000 /dev/zero | tr '\\0' x\n")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat/loud")
	// git is stopped in post-checkout, after it made the worktree; core takes that
	// half-made worktree back, so the refusal is an honest "nothing changed" (exit 1).
	want(t, res, 1, "2 MB limit", "taken back")
	r.Unchanged(before)
	if strings.Contains(res.stderr, "not found") || strings.Contains(res.stderr, "not installed") {
		t.Fatalf("an output overflow reported as a missing program:\n%s", res)
	}
	if len(res.stderr) > 4096 {
		t.Fatalf("the hook's output was passed through (%d bytes)", len(res.stderr))
	}
}
