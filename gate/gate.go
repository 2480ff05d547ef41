// Package gate runs the land test gate: one shell command (`sh -c`) in a worktree, in its
// own process group, with a timeout, its output appended to a log file. It is the only
// place in copse that starts a process other than git (gitx) or herdr (herdr): core
// decides when a gate runs and what its result means; this package only runs it, so the
// process-group and timeout handling stays in one small file, as gitx/run.go does for git.
package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Result is how a gate ended.
type Result struct {
	ExitCode  int           // the shell's exit status; -1 when killed or not started
	TimedOut  bool          // the timeout passed; the whole process group was killed
	Cancelled bool          // the caller's context was cancelled; the group was killed
	Elapsed   time.Duration // wall time
	Err       error         // the shell could not be started, or its log not written
}

// Passed reports a gate that ran to the end and exited 0.
func (r Result) Passed() bool {
	return r.Err == nil && !r.TimedOut && !r.Cancelled && r.ExitCode == 0
}

// waitDelay bounds how long Wait waits for pipes after the shell is gone.
const waitDelay = 2 * time.Second

// repoEnv are variables that would point the gate's git at another repository (a hook
// that runs copse has GIT_DIR set); the worktree is named by the working directory alone.
var repoEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_IMPLICIT_WORK_TREE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
	"GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_NAMESPACE",
}

// Run runs `sh -c command` in dir with stdin from /dev/null, stdout and stderr appended to
// logPath, and extra environment entries env. The shell leads a new process group; on
// timeout or cancel the whole group is killed, and after the shell exits any process it
// left behind in its group is killed too, so nothing can change the worktree once the
// gate is judged.
func Run(ctx context.Context, dir, command string, timeout time.Duration, logPath string, env []string) Result {
	start := time.Now()
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("gate: opening the log: %w", err)}
	}
	defer log.Close()
	fmt.Fprintf(log, "$ sh -c %s\n", command)

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = environ(env)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("gate: starting sh: %w", err), Elapsed: time.Since(start)}
	}
	waitErr := cmd.Wait()
	_ = killGroup(cmd.Process.Pid) // stragglers (background jobs) of the gate
	r := Result{ExitCode: cmd.ProcessState.ExitCode(), Elapsed: time.Since(start)}
	switch {
	case ctx.Err() != nil:
		r.Cancelled = true
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		r.TimedOut = true
	case waitErr != nil && !isExit(waitErr):
		r.Err = waitErr
	}
	note := fmt.Sprintf("exit %d", r.ExitCode)
	switch {
	case r.TimedOut:
		note = "timed out after " + timeout.String() + "; process group killed"
	case r.Cancelled:
		note = "cancelled; process group killed"
	}
	fmt.Fprintf(log, "# gate: %s after %s\n", note, r.Elapsed.Round(time.Millisecond))
	return r
}

func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

func environ(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(repoEnv, name) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
