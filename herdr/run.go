package herdr

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"time"
)

// MaxOutput caps what is kept of herdr's stdout and of its stderr: a reply is one line,
// so more is a runaway, reported as ErrOutputLimit rather than buffered.
const MaxOutput = 2 << 20

// DefaultTimeout bounds a herdr run when Client.Timeout is zero. create and remove wait
// for git in Herdr's server and the CLI itself has no timeout (§2.11).
const DefaultTimeout = 120 * time.Second

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

// Client runs checked commands with a detected binary.
type Client struct {
	Bin     string        // Detection.Bin
	Timeout time.Duration // per run; DefaultTimeout when zero
	Env     []string      // environment of herdr; the process environment when nil
}

// Run runs cmd and returns its stdout on exit 0; any other outcome is an *Error.
func (c *Client) Run(ctx context.Context, cmd Cmd) ([]byte, error) {
	argv := cmd.Argv()
	if len(argv) == 0 {
		return nil, &Error{Kind: ErrUsage, ExitCode: -1, Message: "command was not made by herdr.Build"}
	}
	argv[0] = c.Bin
	fail := func(kind ErrKind, msg string) *Error {
		return &Error{Kind: kind, Message: msg, ExitCode: -1, Argv: argv}
	}
	if c.Bin == "" {
		return nil, fail(ErrExec, "no herdr binary (run Detect first)")
	}
	if err := ctx.Err(); err != nil {
		e := fail(ErrCanceled, "canceled")
		e.Err = err
		return nil, e
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := runProcess(runCtx, c.Bin, argv[1:], cmd.dir, childEnv(c.Env))
	if res.startErr == nil && res.waitErr == nil && !res.over {
		return res.stdout, nil
	}
	return nil, classify(ctx, runCtx, timeout, argv, res)
}

// classify turns a failed run into an *Error. The order matters: a process we killed is
// reported as killed whatever it printed on the way out.
func classify(ctx, runCtx context.Context, timeout time.Duration, argv []string, res procResult) *Error {
	e := &Error{ExitCode: res.exitCode, Stderr: string(res.stderr), Argv: argv, Started: res.startErr == nil}
	switch {
	case ctx.Err() != nil:
		// The caller's context (cancel or its own deadline) beats our timeout.
		e.Kind, e.Message, e.Err = ErrCanceled, "canceled", ctx.Err()
	case res.startErr != nil:
		e.Kind, e.Message, e.Err = ErrExec, "cannot start: "+res.startErr.Error(), res.startErr
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		e.Kind, e.Message, e.Err = ErrTimeout, "did not finish within "+timeout.String(), context.DeadlineExceeded
	case res.over:
		e.Kind, e.Message = ErrOutputLimit, "output passed the 2 MiB limit"
	case res.exitCode == 2:
		e.Kind, e.Message = ErrUsage, firstLine(e.Stderr)
	default:
		if code, msg, ok := parseErrorEnvelope(res.stderr); ok {
			e.Kind, e.Code, e.Message = ErrReply, code, msg
		} else if code, msg, ok := parseErrorEnvelope(res.stdout); ok {
			e.Kind, e.Code, e.Message = ErrReply, code, msg
		} else {
			e.Kind, e.Err = ErrExec, res.waitErr
			e.Message = res.waitErr.Error() + ": " + firstLine(e.Stderr)
			if firstLine(e.Stderr) == "" {
				e.Message = res.waitErr.Error() + " with no error text"
			}
		}
	}
	return e
}
