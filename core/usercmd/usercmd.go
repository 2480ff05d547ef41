// Package usercmd runs commands the user configured (setup steps after a create, a land's
// test gate) with `sh -c` in a directory. It owns only that: each command gets its own
// process group, killed whole on cancel, timeout or its end, and when copse dies, even of
// SIGKILL; stdin from /dev/null, and its output streamed to the caller as it comes. It
// never runs git or herdr (gitx and herdr do).
package usercmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Result is how one command ended.
type Result struct {
	ExitCode int  // the shell's exit status; -1 when it was killed
	TimedOut bool // the timeout passed and the group was killed
	Canceled bool // the caller's context was cancelled and the group was killed
}

// OK reports a command that ran to the end and exited 0.
func (r Result) OK() bool { return r.ExitCode == 0 && !r.TimedOut && !r.Canceled }

// Run runs `sh -c script` in dir with env added to the process environment, writing
// stdout and stderr to out, until it ends, timeout passes or ctx is done. The error is for
// a command that could not be started at all.
func Run(ctx context.Context, dir, script string, env []string, timeout time.Duration, out io.Writer) (Result, error) {
	return RunStarted(ctx, dir, script, env, timeout, out, nil)
}

// RunStarted is Run that tells started the command's process group id as soon as the
// shell runs (a land records it, so a later copse can tell whether the group still runs).
func RunStarted(ctx context.Context, dir, script string, env []string, timeout time.Duration, out io.Writer, started func(pgid int)) (Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = procAttr()
	defer pinThread()()
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	// A child that left the group and kept the output open cannot hang copse.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Canceled: true}, nil
		}
		return Result{ExitCode: -1}, fmt.Errorf("cannot start sh: %w", err)
	}
	pgid := cmd.Process.Pid
	stopWatcher := startWatcher(pgid)
	if started != nil {
		started(pgid)
	}
	err := cmd.Wait()
	// Whatever the shell left running in its group (a backgrounded job) ends with it: a
	// land's gate is judged on the tree it leaves, which nothing may change afterwards.
	// The watcher, a member of the group, ends with it.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	stopWatcher()
	res := Result{}
	if ctx.Err() != nil {
		res.Canceled = true
	} else if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		// The shell ended, but something it started kept the output open until
		// WaitDelay (and is killed with the group above): the shell's status stands.
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		res.ExitCode = -1
	}
	if (res.Canceled || res.TimedOut) && res.ExitCode == 0 {
		res.ExitCode = -1
	}
	return res, nil
}

// watchScript ends its own process group once its stdin reaches end of file. copse holds
// the only write end of that pipe, and the kernel closes it when copse ends, however it
// ends (SIGKILL included): so the group, grandchildren and all, never outlives copse. The
// parent-death signal reaches only the shell itself; a grandchild that left the group
// (setsid) escapes both, and a land then names it (core's gate check).
const watchScript = `while read -r _; do :; done; kill -KILL 0`

// startWatcher starts the watcher in the command's process group, with its stdin the read
// end of a pipe only this process can write to. It returns what closes the pipe and reaps
// the watcher after the group was killed. Without a watcher (it could not start: the
// group is already gone) the command still had its own group killed by Run.
func startWatcher(pgid int) (stop func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	wcmd := exec.Command("/bin/sh", "-c", watchScript)
	wcmd.Stdin = r
	wcmd.Dir = "/"        // it works nowhere: it must not count as a process in the worktree
	wcmd.Env = []string{} // and carries nothing of the command's environment
	wcmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := wcmd.Start(); err != nil {
		r.Close()
		w.Close()
		return func() {}
	}
	r.Close() // the watcher holds its own copy; ours would keep the pipe open after copse
	return func() {
		w.Close()
		_ = wcmd.Wait()
	}
}

// environ is the process environment without the variables that would point the
// command's git at another repository (copse run from a git hook inherits GIT_DIR); the
// directory alone names the worktree.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !gitx.IsRepositoryEnv(name) {
			env = append(env, kv)
		}
	}
	return env
}
