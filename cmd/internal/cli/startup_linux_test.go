package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/testexec"
	"golang.org/x/sys/unix"
)

// Start-up inside tmux: the styling libraries probe the terminal when they initialise
// (lipgloss runs `tmux info` when stdout is a terminal inside tmux). A command that does not
// draw must not probe at all, and the picker at most once. A fake tmux first on PATH
// records every call.

// fakeTmux puts a tmux on PATH that logs its arguments and prints nothing; it returns the
// environment for a process "inside tmux" and the log's path.
func fakeTmux(t *testing.T, r *coretest.Repo) (env []string, log string) {
	t.Helper()
	// These tests are about the styling libraries' terminal probes. Inside tmux copse's
	// backend runs tmux by design (docs/tmux.md); the repository chooses the git backend,
	// so every call the fake records is a probe.
	r.Git(r.Root, "config", "copse.backend", "git")
	bin := t.TempDir()
	log = filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"tmux $*\" >>" + strconv.Quote(log) + "\n"
	if err := testexec.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cleanEnv(r.Home, "TERM=tmux-256color", "TMUX=/tmp/tmux-fake/default,1,0", "TMUX_PANE=%1",
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), log
}

func tmuxCalls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// openPTY returns a pseudo-terminal pair sized 100x24 (skips where there is none).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock a pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("cannot name a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100}); err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal's other end: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// readAll collects what the terminal shows until the master is closed.
func readAll(master *os.File) *lockedBuffer {
	var b lockedBuffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return &b
}

// Every command that does not draw, with stdin, stdout and stderr on a terminal inside
// tmux: no tmux call. (Without the guard in internal/quiet, lipgloss's package init runs
// `tmux info` here.)
func TestCommandsThatDoNotDrawNeverRunTmux(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/a", "a")
	env, log := fakeTmux(t, r)
	for _, args := range [][]string{{"list"}, {"list", "--json", "--status"}, {"version"}, {"switch", "feat/a"}, {"tool", "--schema"}} {
		master, slave := openPTY(t)
		screen := readAll(master)
		cmd := exec.Command(copseBin, args...)
		cmd.Dir, cmd.Env = r.Root, env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := cmd.Run(); err != nil {
			t.Fatalf("copse %v: %v; terminal: %q", args, err, screen.String())
		}
		if calls := tmuxCalls(t, log); len(calls) != 0 {
			t.Fatalf("copse %v ran tmux %d times: %q", args, len(calls), calls)
		}
	}
	// The fake is really on PATH for copse's children: git can run it, so a call would
	// have been recorded.
	if out, err := exec.Command("env", append([]string{"-i"}, append(env, "sh", "-c", "tmux probe")...)...).CombinedOutput(); err != nil {
		t.Fatalf("the fake tmux does not run: %v %s", err, out)
	}
	if calls := tmuxCalls(t, log); len(calls) != 1 || calls[0] != "tmux probe" {
		t.Fatalf("the fake tmux did not record its call: %q", calls)
	}
}

// The picker needs the colour profile, which inside tmux asks tmux once (plain copse,
// every stream on the terminal, as a person starts it).
func TestPickerAsksTmuxAtMostOnce(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/tmux", "tmux")
	env, log := fakeTmux(t, r)
	master, slave := openPTY(t)
	screen := readAll(master)
	cmd := exec.Command(copseBin)
	cmd.Dir, cmd.Env = r.Root, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(screen.String(), "feat/tmux"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the picker never showed its rows; terminal: %q", screen.String())
		}
	}
	master.Write([]byte("q"))
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the picker did not quit")
	}
	if calls := tmuxCalls(t, log); len(calls) > 1 {
		t.Fatalf("the picker ran tmux %d times: %q", len(calls), calls)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) write(p []byte) {
	l.mu.Lock()
	l.b = append(l.b, p...)
	l.mu.Unlock()
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
