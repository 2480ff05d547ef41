package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/internal/testexec"
)

func asError(t *testing.T, err error, kind ErrKind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error of kind %v, got %T %v", kind, err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind = %v, want %v (%v)", e.Kind, kind, err)
	}
	return e
}

func TestRunExitKeepsCodeAndStderr(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	c, _ := RevParseCommit(repo, "no-such-ref")
	_, err := s.runner().Run(context.Background(), c)
	e := asError(t, err, ErrExit)
	if e.ExitCode != 128 || !strings.Contains(e.Stderr, "fatal: Needed a single revision") {
		t.Fatalf("exit %d, stderr %q", e.ExitCode, e.Stderr)
	}
	if code, ok := ExitCode(err); !ok || code != 128 {
		t.Fatalf("ExitCode = %d, %v", code, ok)
	}
	if want := c.String() + ": exit 128: fatal: Needed a single revision"; err.Error() != want {
		t.Fatalf("Error()\n got %q\nwant %q", err.Error(), want)
	}
	if !slices.Equal(e.Argv, c.Argv()) {
		t.Fatalf("Argv %q", e.Argv)
	}
}

func TestRunExitWithoutStderrSaysSo(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	c, _ := ConfigGet(repo, "copse.unset")
	_, err := s.runner().Run(context.Background(), c)
	e := asError(t, err, ErrExit)
	if e.ExitCode != 1 || e.Stderr != "" {
		t.Fatalf("exit %d, stderr %q", e.ExitCode, e.Stderr)
	}
	if !strings.HasSuffix(err.Error(), ": exit 1 with no error output") {
		t.Fatalf("Error() = %q", err)
	}
}

// A missing -C directory is git's error (exit 128), never "git not found":
// gitx does not chdir, so the start cannot fail on the directory.
func TestRunMissingDirIsNotNotFound(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	c, _ := StatusCmd(s.path("does-not-exist"))
	_, err := s.runner().Run(context.Background(), c)
	if e := asError(t, err, ErrExit); e.ExitCode != 128 {
		t.Fatalf("exit %d: %v", e.ExitCode, err)
	}
}

func TestRunNotFound(t *testing.T) {
	t.Parallel()
	c, _ := StatusCmd("/")
	for _, bin := range []string{filepath.Join(t.TempDir(), "git"), "copse-test-no-such-git"} {
		_, err := (&Runner{Bin: bin}).Run(context.Background(), c)
		asError(t, err, ErrNotFound)
		if _, ok := ExitCode(err); ok {
			t.Fatalf("ExitCode reported for %v", err)
		}
		if !strings.Contains(err.Error(), "git executable not found") {
			t.Fatalf("Error() = %q", err)
		}
	}
}

func TestRunRefusesUnbuiltCmd(t *testing.T) {
	t.Parallel()
	_, err := (&Runner{}).Run(context.Background(), Cmd{})
	asError(t, err, ErrStart)
}

func TestRunAlreadyCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, _ := StatusCmd("/")
	_, err := (&Runner{}).Run(ctx, c)
	asError(t, err, ErrCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("errors.Is(%v, context.Canceled) = false", err)
	}
}

// TestRunOutputLimit: a post-checkout hook prints 3 MiB; git passes hook
// output on to its stderr, which passes the 2 MiB default cap.
func TestRunOutputLimit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.hook(repo, "post-checkout", "head -c 3145728 /dev/zero | tr '\\0' x\n")
	c, err := WorktreeAddNew(repo, s.path("wt"), "big", headOf(s, repo))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.runner().Run(context.Background(), c)
	e := asError(t, err, ErrOutputLimit) // and therefore not ErrNotFound
	if len(e.Stderr) > defaultOutputLimit {
		t.Fatalf("buffered %d bytes of stderr, over the limit", len(e.Stderr))
	}
	if !strings.Contains(err.Error(), "2097152-byte limit") || len(err.Error()) > 5000 {
		t.Fatalf("Error() = %.200q… (%d bytes)", err, len(err.Error()))
	}

	// stdout is capped too (and OutputLimit is honoured).
	c, _ = RevParseCommonDir(repo)
	r := s.runner()
	r.OutputLimit = 10
	_, err = r.Run(context.Background(), c)
	asError(t, err, ErrOutputLimit)
}

// sleepyHook installs a post-checkout hook that records its own PID and its
// sleep child's PID, then waits on the sleep.
func sleepyHook(s *sandbox, repo string) (pidFile string) {
	pidFile = s.path("hook.pids")
	s.hook(repo, "post-checkout", fmt.Sprintf("echo $$ >> '%s'\nsleep 30 &\necho $! >> '%s'\nwait\n", pidFile, pidFile))
	return pidFile
}

func readPids(t *testing.T, pidFile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		t.Fatalf("pid file holds %q, want the hook's and sleep's pids", b)
	}
	return pids
}

// requireGone waits up to 2s for each process to disappear.
func requireGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived Run", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	// A zombie is dead, just not yet reaped by the init process it was
	// handed to (some container inits reap slowly or never).
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// The timeout has to fire while the hook runs. On a loaded machine git may not reach the
// hook within the first timeout; then the attempt proves nothing about the hook, and the
// next one doubles the timeout.
func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	for timeout := 1500 * time.Millisecond; ; timeout *= 2 {
		s := newSandbox(t)
		repo := s.initRepo("repo")
		pidFile := sleepyHook(s, repo)
		c, _ := WorktreeAddNew(repo, s.path("wt"), "slow", headOf(s, repo))
		r := s.runner()
		r.Timeout = timeout

		start := time.Now()
		_, err := r.Run(context.Background(), c)
		asError(t, err, ErrTimeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("errors.Is(%v, DeadlineExceeded) = false", err)
		}
		if d := time.Since(start); d > timeout+10*time.Second {
			t.Fatalf("Run took %s with a %s timeout", d, timeout)
		}
		if b, _ := os.ReadFile(pidFile); len(strings.Fields(string(b))) < 2 && timeout < 20*time.Second {
			t.Logf("the hook had not started within %s; again with a longer timeout", timeout)
			continue
		}
		requireGone(t, readPids(t, pidFile))
		return
	}
}

func TestRunCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	pidFile := sleepyHook(s, repo)
	c, _ := WorktreeAddNew(repo, s.path("wt"), "slow", headOf(s, repo))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // cancel once the hook and its sleep are both running
		for {
			if b, _ := os.ReadFile(pidFile); len(strings.Fields(string(b))) == 2 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := s.runner().Run(ctx, c)
	asError(t, err, ErrCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("errors.Is(%v, context.Canceled) = false", err)
	}
	requireGone(t, readPids(t, pidFile))
}

// TestRunEnvAndArgv runs a stand-in for git that prints its arguments and
// environment, to check exactly what a child receives. Not parallel: what it checks is
// how the Runner treats the process environment, which only t.Setenv can set.
func TestRunEnvAndArgv(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fake-git")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf 'ARG=%s\\n' \"$a\"; done\nenv\n"
	if err := testexec.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", "/elsewhere/.git") // e.g. copse started from a git hook
	t.Setenv("GIT_WORK_TREE", "/elsewhere")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	r := &Runner{Bin: fake, Env: []string{"COPSE_EXTRA=1"}}

	run := func(c Cmd, err error) map[string]string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{}
		var args []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if a, ok := strings.CutPrefix(l, "ARG="); ok {
				args = append(args, a)
				continue
			}
			if k, v, ok := strings.Cut(l, "="); ok {
				if _, dup := vars[k]; dup {
					t.Errorf("%s set twice", k)
				}
				vars[k] = v
			}
		}
		if !slices.Equal(args, c.Argv()[1:]) {
			t.Fatalf("child argv %q, want %q", args, c.Argv()[1:])
		}
		return vars
	}

	read := run(StatusCmd("/some/wt"))
	for k, want := range map[string]string{"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "COPSE_EXTRA": "1"} {
		if read[k] != want {
			t.Errorf("read command: %s=%q, want %q", k, read[k], want)
		}
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		if v, ok := read[k]; ok {
			t.Errorf("%s=%q leaked into the child", k, v)
		}
	}
	write := run(WorktreeRemove("/repo", "/p", false, false))
	if _, ok := write["GIT_OPTIONAL_LOCKS"]; ok {
		t.Errorf("a mutation ran with GIT_OPTIONAL_LOCKS")
	}
	if write["GIT_TERMINAL_PROMPT"] != "0" || write["LC_ALL"] != "C" {
		t.Errorf("mutation env: %v", write)
	}
	// Runner.Env comes last, so it overrides the fixed settings.
	r.Env = []string{"LC_ALL=POSIX"}
	if v := run(StatusCmd("/")); v["LC_ALL"] != "POSIX" {
		t.Errorf("Runner.Env did not win: LC_ALL=%q", v["LC_ALL"])
	}
}

func headOf(s *sandbox, repo string) string {
	return strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
}

// TestWorktreeListOutputCap: lock reasons of 3 MiB in all pass the 2 MiB default cap, and
// `worktree list` still lists. An overflow error names the command and the cap.
func TestWorktreeListOutputCap(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	reason := strings.Repeat("r", 1<<20)
	for _, name := range []string{"a", "b", "c"} {
		s.git(repo, "worktree", "add", "-q", "-b", name, s.path(name))
		s.write(filepath.Join(repo, ".git", "worktrees", name, "locked"), reason)
	}
	list, raw, err := s.runner().Worktrees(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= defaultOutputLimit || len(list) != 4 || list[3].Locked == nil || *list[3].Locked != reason {
		t.Fatalf("got %d bytes, %d worktrees", len(raw), len(list))
	}

	r := s.runner()
	r.OutputLimit = 10
	c, _ := RevParseCommonDir(repo)
	_, err = r.Run(context.Background(), c)
	e := asError(t, err, ErrOutputLimit)
	if e.Command() != "git rev-parse" || e.Limit != 10 {
		t.Fatalf("Command() = %q, Limit = %d", e.Command(), e.Limit)
	}
}

func TestCmdName(t *testing.T) {
	t.Parallel()
	add, _ := WorktreeAddNew("/r", "/r/x", "feat", strings.Repeat("a", 40))
	list, _ := WorktreeList("/r")
	st, _ := StatusCmd("/r")
	safety, _ := SafetyStatusCmd("/r")
	del, _ := BranchDelete("/r", "worktree", false)
	for c, want := range map[*Cmd]string{&add: "git worktree add", &list: "git worktree list", &st: "git status", &safety: "git status", &del: "git branch"} {
		if got := c.Name(); got != want {
			t.Errorf("%s: Name() = %q, want %q", c, got, want)
		}
	}
}

// capBuffer reads up to its limit whether os/exec writes to it or it reads for itself
// (ReadFrom): exactly the limit is output, one byte more is an overflow that stops git.
func TestCapBufferReadFromLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		size int
		over bool
	}{{0, false}, {99, false}, {100, false}, {101, true}, {5000, true}} {
		var over atomic.Bool
		stopped := false
		w := &capBuffer{limit: 100, over: &over, stop: func() { stopped = true }}
		n, err := w.ReadFrom(strings.NewReader(strings.Repeat("x", c.size)))
		if c.over != (err == errOverflow) || over.Load() != c.over || stopped != c.over {
			t.Errorf("%d bytes: err %v, over %v, stopped %v", c.size, err, over.Load(), stopped)
		}
		if want := min(c.size, 100); w.buf.Len() != want || (!c.over && n != int64(c.size)) {
			t.Errorf("%d bytes: kept %d, read %d", c.size, w.buf.Len(), n)
		}
	}
}

// resolveBin looks a bare name up once per PATH and leaves anything else alone. Not
// parallel: it changes the process's PATH, which every other test's git is looked up on.
func TestResolveBin(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	for _, d := range []string{dirA, dirB} {
		if err := testexec.WriteFile(filepath.Join(d, "copse-fake-git"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dirA)
	if got := resolveBin("copse-fake-git"); got != filepath.Join(dirA, "copse-fake-git") {
		t.Errorf("on PATH %s: %q", dirA, got)
	}
	t.Setenv("PATH", dirB+string(os.PathListSeparator)+dirA)
	if got := resolveBin("copse-fake-git"); got != filepath.Join(dirB, "copse-fake-git") {
		t.Errorf("PATH changed to start with %s: %q", dirB, got)
	}
	for _, keep := range []string{"/usr/bin/git", "./git", "copse-no-such-program"} {
		if got := resolveBin(keep); got != keep {
			t.Errorf("resolveBin(%q) = %q, want it unchanged", keep, got)
		}
	}
}
