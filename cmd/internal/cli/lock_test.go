//go:build linux

// The lock tests use sleepyHook (signals_linux_test.go), which reads /proc.

package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// A copse that waits for the repository lock names its holder after a second and gives up
// after copse.lockTimeout with lock_timeout, exit 1, having changed nothing. The holder is
// a real copse: a create whose post-checkout hook hangs, holding the lock meanwhile.
func TestLockWaitNamesHolderAndTimesOut(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.lockTimeout", "2s")
	pids := sleepyHook(t, r)
	holder := startCopse(t, r, nil, "create", "feat/slow")
	holder.waitFor(t, "the holder's hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
	res := run(t, r, r.Root, "--json", "create", "feat/other")
	want(t, res, 1, `"code":"lock_timeout"`, "gave up after 2s", "copse create feat/slow (pid "+strconv.Itoa(holder.cmd.Process.Pid))
	if !strings.Contains(res.stderr, "copse: waiting for the repository lock, held by copse create feat/slow (pid "+strconv.Itoa(holder.cmd.Process.Pid)+", since ") {
		t.Fatalf("the wait did not name the holder on stderr:\n%s", res)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/feat/other"); err == nil {
		t.Fatalf("feat/other was created by a copse that never got the lock")
	}

	// A dry run takes no lock: it answers at once, whoever holds it.
	for _, args := range [][]string{{"create", "--dry-run", "feat/third"}, {"prune", "--dry-run"}} {
		res = run(t, r, r.Root, args...)
		want(t, res, 0)
		if strings.Contains(res.stderr, "waiting for the repository lock") {
			t.Fatalf("copse %v waited for the lock:\n%s", args, res)
		}
	}

	// Once the holder ends, the lock is free again.
	holder.cmd.Process.Signal(os.Interrupt)
	if code := holder.exit(t); code != 130 {
		t.Fatalf("holder: want exit 130, got %d\n%s", code, holder.stderr)
	}
	r.Git(r.Root, "config", "--unset", "core.hooksPath")
	want(t, run(t, r, r.Root, "create", "feat/other"), 0)
}

// A bad copse.lockTimeout is reported (exit 2) when the lock is contended; it is not read,
// and so cannot fail anything, when the lock is free.
func TestLockTimeoutConfigReadOnlyWhenContended(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.lockTimeout", "soon")
	want(t, run(t, r, r.Root, "create", "feat/a"), 0)

	pids := sleepyHook(t, r)
	holder := startCopse(t, r, nil, "create", "feat/slow")
	holder.waitFor(t, "the holder's hook to start", func() bool { return fileExists(filepath.Join(pids, "hook.pid")) })
	sleepPID := readPID(t, filepath.Join(pids, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleepPID, syscall.SIGKILL) })
	want(t, run(t, r, r.Root, "create", "feat/b"), 2, "copse.lockTimeout", "soon")
}

// The lock file gets the permissions core.sharedRepository asks for, as git gives its own
// files (umask 022 here, so group write comes only from the setting).
func TestLockFileHonoursSharedRepository(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		shared string
		want   fs.FileMode
	}{
		{"", 0o644},
		{"group", 0o664},
		{"all", 0o664},
		{"0600", 0o600},
		{"0640", 0o640},
	} {
		t.Run("shared="+tc.shared, func(t *testing.T) {
			r := coretest.New(t)
			if tc.shared != "" {
				r.Git(r.Root, "config", "core.sharedRepository", tc.shared)
			}
			want(t, run(t, r, r.Root, "create", "feat/x"), 0)
			fi, err := os.Stat(filepath.Join(r.Root, ".git", "copse.lock"))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Fatalf("copse.lock has mode %#o, want %#o", got, tc.want)
			}
		})
	}
}

// Read-only commands and dry runs never create the lock file.
func TestReadOnlyCommandsDoNotCreateLockFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/x", "x")
	lock := filepath.Join(r.Root, ".git", "copse.lock")
	for _, args := range [][]string{
		{"list"},
		{"list", "--status", "--json"},
		{"remove", "--dry-run", "feat/x"},
		{"create", "--dry-run", "feat/y"},
		{"switch", "feat/x"},
		{"tool"},
	} {
		res := runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"list"}`), args...)
		want(t, res, 0)
		if _, err := os.Stat(lock); err == nil {
			t.Fatalf("copse %q created %s", args, lock)
		}
	}
	// A mutation does create it.
	want(t, run(t, r, r.Root, "create", "feat/y"), 0)
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("create did not make the lock file: %v", err)
	}
}

// Every --dry-run of the command line takes no lock: on a repository no copse changed,
// none of them leaves a copse.lock behind (restore's is checked under a held lock in core).
func TestEveryDryRunLeavesNoLockFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("plain", filepath.Join(r.Base, "trees", "plain"))
	w := r.AddWorktree("feat/a", filepath.Join(r.Base, "trees", "feat-a"))
	coretest.WriteFile(t, filepath.Join(w, "a.txt"), "a\n")
	r.Git(w, "add", "a.txt")
	r.Git(w, "commit", "-q", "-m", "a")
	for _, args := range [][]string{
		{"create", "--dry-run", "feat/new"},
		{"remove", "--dry-run", "plain"},
		{"prune", "--dry-run"},
		{"land", "--dry-run", "feat/a"},
		{"switch", "--dry-run", "plain"},
		{"claim", "--dry-run", "--session", "s1", "plain"},
	} {
		want(t, run(t, r, r.Root, args...), 0)
		if _, err := os.Stat(filepath.Join(r.Root, ".git", "copse.lock")); !os.IsNotExist(err) {
			t.Fatalf("copse %v made the lock file: %v", args, err)
		}
	}
}
