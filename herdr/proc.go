package herdr

import (
	"context"
	"os"
	"os/exec"
	"time"
)

// MaxOutput caps what is kept of herdr's stdout and of its stderr: a reply is one line,
// so more is a runaway, reported as ErrOutputLimit rather than buffered.
const MaxOutput = 2 << 20

// neutralDir is the working directory of commands with no --cwd (remove, --version):
// nothing relative is resolved against it, and it never keeps a worktree busy.
const neutralDir = "/"

// waitDelay bounds how long Wait waits for output pipes after the process is killed.
const waitDelay = 2 * time.Second

// capped keeps the first MaxOutput bytes written to it and notes whether more came. It
// keeps accepting (and dropping) the rest so the child never blocks on a full pipe.
type capped struct {
	buf  []byte
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := MaxOutput - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		c.over = true
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}

type procResult struct {
	stdout, stderr []byte
	over           bool  // stdout or stderr passed MaxOutput
	startErr       error // the process never started
	waitErr        error // nil on exit 0
	exitCode       int   // -1 when killed or not started
}

// runProcess runs bin with args in its own process group, so that cancelling ctx kills
// herdr and anything it started, never a shell.
func runProcess(ctx context.Context, bin string, args []string, dir string, env []string) procResult {
	var stdout, stderr capped
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: herdr never prompts
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	res := procResult{exitCode: -1}
	defer pinThread()() // until herdr has been waited for (see pdeath_linux.go)
	if err := cmd.Start(); err != nil {
		res.startErr = err
		return res
	}
	res.waitErr = cmd.Wait()
	res.exitCode = cmd.ProcessState.ExitCode()
	res.stdout, res.stderr = stdout.buf, stderr.buf
	res.over = stdout.over || stderr.over
	return res
}

// childEnv is env (the process environment when nil) with the variables every child of
// copse gets (DESIGN, safety core 7); later entries win in os/exec.
func childEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+2)
	out = append(out, env...)
	return append(out, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}
