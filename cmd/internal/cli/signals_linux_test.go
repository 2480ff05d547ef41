package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/testexec"
)

// running is a copse process started by startCopse.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr *bytes.Buffer
	done           chan error
}

func startCopse(t *testing.T, r *coretest.Repo, env []string, args ...string) *running {
	t.Helper()
	cmd := exec.Command(copseBin, args...)
	cmd.Dir = r.Root
	cmd.Env = cleanEnv(r.Home, env...)
	p := &running{cmd: cmd, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return p
}

// waitFor polls cond until it holds; copse ending first, or a minute passing, fails the test.
func (p *running) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("copse ended before %s: %v\nstderr: %s", what, err, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nstderr: %s", what, p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exit waits (at most 20 s) for copse to end and returns its exit code.
func (p *running) exit(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if err == nil {
			return 0
		}
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("copse did not end\nstderr: %s", p.stderr)
	}
	return -1
}

// sleepyHook installs a post-checkout hook that records its pid, its parent's (git's) and
// its sleep child's, then waits on the sleep. It returns the directory of the pid files;
// hook.pid appears last.
func sleepyHook(t *testing.T, r *coretest.Repo) string {
	pids := t.TempDir()
	installHook(t, r, `sleep 30 &
echo $! > "`+pids+`/sleep.pid"
echo $PPID > "`+pids+`/git.pid"
echo $$ > "`+pids+`/hook.pid.tmp"
mv "`+pids+`/hook.pid.tmp" "`+pids+`/hook.pid"
wait
`)
	return pids
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// SIGHUP, SIGTERM and SIGQUIT during a create whose hook hangs do what SIGINT does: git,
// the hook and its sleep are killed, the state left is reported, exit 130, and SIGQUIT
// prints no goroutine dump.
func TestStopSignalsActAsInterrupt(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			r := coretest.New(t)
			pids := sleepyHook(t, r)
			p := startCopse(t, r, nil, "create", "feat/slow")
			p.waitFor(t, "the hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
			gitPID := readPID(t, filepath.Join(pids, "git.pid"))
			hookPID := readPID(t, filepath.Join(pids, "hook.pid"))
			sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
			t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := p.exit(t)
			msg := p.stderr.String()
			if code != 130 {
				t.Fatalf("want exit 130, got %d\nstdout: %s\nstderr: %s", code, p.stdout, msg)
			}
			for _, dump := range []string{"goroutine ", "SIGQUIT", "panic", "runtime."} {
				if strings.Contains(msg, dump) {
					t.Fatalf("stderr holds %q (a goroutine dump?):\n%s", dump, msg)
				}
			}
			var left []string
			for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
				left = gitProcessesIn(r.Base)
				for name, pid := range map[string]int{"git": gitPID, "hook": hookPID, "sleep": sleepPID} {
					if alive(pid) {
						left = append(left, name+" "+strconv.Itoa(pid))
					}
				}
				if len(left) == 0 {
					break
				}
			}
			if len(left) > 0 {
				t.Fatalf("still running after %v: %v", sig, left)
			}
			path := filepath.Join(r.Base, "app.worktrees", "feat-slow")
			listed := strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+path+"\n")
			switch {
			case listed && strings.Contains(msg, path+" is listed"):
			case !listed && (strings.Contains(msg, "nothing was created") || strings.Contains(msg, "does not list")):
			default:
				t.Fatalf("stderr does not report the state left (listed=%v):\n%s", listed, msg)
			}
			if !strings.Contains(msg, "cancel") {
				t.Fatalf("stderr does not say it was cancelled:\n%s", msg)
			}
		})
	}
}

// A second signal ends copse at once, exit 130, and says so. The first is sent while the
// hook hangs; the second while copse is held in its read-back.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pids := sleepyHook(t, r)
	// Hold copse in its read-back after the first signal: a git wrapper whose `worktree
	// list` sleeps once the hook has run.
	bin := t.TempDir()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := `#!/bin/sh
case "$*" in
*"worktree list"*) if [ -e "` + pids + `/hook.pid" ]; then touch "` + pids + `/readback"; exec sleep 30; fi;;
esac
exec "` + realGit + `" "$@"
`
	if err := testexec.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startCopse(t, r, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, "create", "feat/slow")
	p.waitFor(t, "the hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.waitFor(t, "the read-back", func() bool { return fileExists(filepath.Join(pids, "readback")) })
	p.cmd.Process.Signal(syscall.SIGHUP)
	if code := p.exit(t); code != 130 {
		t.Fatalf("want exit 130, got %d\nstderr: %s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "second signal") {
		t.Fatalf("stderr does not say the second signal ended copse:\n%s", p.stderr)
	}
}

// SIGKILL cannot be handled, but on Linux the git copse started dies with it (parent-death
// signal). The hook git ran may outlive git; the issue is about copse's own children.
func TestGitDiesWithKilledCopse(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pids := sleepyHook(t, r)
	p := startCopse(t, r, nil, "create", "feat/slow")
	p.waitFor(t, "the hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
	gitPID := readPID(t, filepath.Join(pids, "git.pid"))
	// git's process group holds the hook and its sleep: clean them up whatever happens.
	t.Cleanup(func() { syscall.Kill(-gitPID, syscall.SIGKILL) })
	if !alive(gitPID) {
		t.Fatalf("git %d is not running while its hook runs", gitPID)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.exit(t)
	deadline := time.Now().Add(10 * time.Second)
	for alive(gitPID) {
		if time.Now().After(deadline) {
			t.Fatalf("git %d still runs after copse was killed", gitPID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A COPSE_CD_FILE that is a FIFO nobody reads blocks open(2); SIGTERM still ends copse,
// exit 130, naming the path it could not hand over.
func TestCDFileFIFODoesNotBlockSignals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/x", "x")
	fifo := filepath.Join(t.TempDir(), "cd")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startCopse(t, r, []string{"COPSE_CD_FILE=" + fifo}, "switch", "feat/x")
	p.waitFor(t, "copse to block opening the FIFO", func() bool {
		return blockedIn(p.cmd.Process.Pid, "wait_for_partner", "fifo_open")
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exit(t); code != 130 {
		t.Fatalf("want exit 130, got %d\nstderr: %s", code, p.stderr)
	}
	if msg := p.stderr.String(); !strings.Contains(msg, "COPSE_CD_FILE") || !strings.Contains(msg, wt) {
		t.Fatalf("stderr does not say the path was not handed over:\n%s", msg)
	}
}

// blockedIn reports whether a thread of pid sleeps in one of the kernel functions fns
// (where open(2) of a FIFO waits depends on the kernel version).
func blockedIn(pid int, fns ...string) bool {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/wchan")
	for _, w := range tasks {
		if b, err := os.ReadFile(w); err == nil && slices.Contains(fns, string(b)) {
			return true
		}
	}
	return false
}

// In the picker, the first ctrl+c during an operation cancels it; a second one ends copse,
// exit 130, with the state the operation left on stderr. A git wrapper holds copse's
// read-back (after the hook ran) until the second ctrl+c has ended the picker.
func TestPickerSecondCtrlCExits130(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pids := sleepyHook(t, r)
	bin := t.TempDir()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := `#!/bin/sh
case "$*" in
*"worktree list"*) if [ -e "` + pids + `/hook.pid" ]; then
	touch "` + pids + `/readback"
	while [ ! -e "` + pids + `/release" ]; do sleep 0.05; done
fi;;
esac
exec "` + realGit + `" "$@"
`
	if err := testexec.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	release := func() { os.WriteFile(filepath.Join(pids, "release"), nil, 0o644) }
	t.Cleanup(release)
	p := startInPTY(t, r, []string{"PATH=" + bin + ":" + os.Getenv("PATH")})
	p.waitScreen(t, "main")
	p.master.Write([]byte("n"))
	p.waitScreen(t, "base")
	p.master.Write([]byte("feat/slow\r"))
	waitFile := func(name string) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !fileExists(filepath.Join(pids, name)); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s; stderr: %s", name, p.stderr.String())
			}
		}
	}
	waitFile("hook.pid")
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
	p.master.Write([]byte{3}) // ctrl+c: cancels the create
	waitFile("readback")
	p.waitScreen(t, "ctrl+c again quits")
	p.master.Write([]byte{3})      // ctrl+c again: ends the picker
	p.waitScreen(t, "\x1b[?1049l") // the picker left the alternate screen
	release()
	code := p.wait(t)
	msg := p.stderr.String()
	if code != 130 {
		t.Fatalf("want exit 130, got %d\nstderr: %s", code, msg)
	}
	t.Logf("stderr: %s", msg)
	path := filepath.Join(r.Base, "app.worktrees", "feat-slow")
	listed := strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+path+"\n")
	switch {
	case !strings.Contains(msg, "interrupted"):
		t.Fatalf("stderr does not say copse was interrupted:\n%s", msg)
	case listed && strings.Contains(msg, path+" is listed"):
	case !listed && (strings.Contains(msg, "nothing was created") || strings.Contains(msg, "does not list")):
	default:
		t.Fatalf("stderr does not report the state left (listed=%v):\n%s", listed, msg)
	}
}

// SIGTERM while the picker runs an operation: the picker ends, the terminal is restored,
// and copse reports the state the operation left, exit 130.
func TestPickerSignalReportsState(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pids := sleepyHook(t, r)
	p := startInPTY(t, r, nil)
	p.waitScreen(t, "main")
	p.master.Write([]byte("n"))
	p.waitScreen(t, "base")
	p.master.Write([]byte("feat/slow\r"))
	for deadline := time.Now().Add(60 * time.Second); !fileExists(filepath.Join(pids, "hook.pid")); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook never ran; stderr: %s", p.stderr.String())
		}
	}
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
	p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.wait(t)
	msg := p.stderr.String()
	if code != 130 {
		t.Fatalf("want exit 130, got %d\nstderr: %s", code, msg)
	}
	t.Logf("stderr: %s", msg)
	path := filepath.Join(r.Base, "app.worktrees", "feat-slow")
	listed := strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+path+"\n")
	switch {
	case listed && strings.Contains(msg, path+" is listed"):
	case !listed && (strings.Contains(msg, "nothing was created") || strings.Contains(msg, "does not list")):
	default:
		t.Fatalf("stderr does not report the state left (listed=%v):\n%s", listed, msg)
	}
	p.mu.Lock()
	restored := strings.Contains(p.screen.String(), "\x1b[?1049l")
	p.mu.Unlock()
	if !restored {
		t.Fatal("the picker did not leave the alternate screen")
	}
}
