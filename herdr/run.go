package herdr

import (
	"context"
	"errors"
	"os"
	"time"
)

// DefaultTimeout bounds a herdr run when Client.Timeout is zero. create and remove wait
// for git in Herdr's server and the CLI itself has no timeout (§2.11).
const DefaultTimeout = 120 * time.Second

// Client runs checked commands with a detected binary.
type Client struct {
	Bin     string        // Detection.Bin
	Timeout time.Duration // per run; DefaultTimeout when zero
	Env     []string      // environment of herdr; the process environment when nil
	// Exec, when set, is handed every command instead of starting herdr (tests:
	// herdrtest.Fake checks each argv and answers it, or lets the real binary answer).
	Exec Executor
}

// Executor answers one herdr command. argv is what would run (the binary first); real
// runs it exactly as the Client would have. An answer that is not an *Error is wrapped.
type Executor interface {
	Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error)
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
	if _, err := os.Stat(cmd.dir); err != nil {
		// os/exec would blame the binary ("fork/exec …/herdr: no such file or directory").
		e := fail(ErrExec, "cannot run in "+cmd.dir+": "+err.Error())
		e.Err = err
		return nil, e
	}
	real := func(ctx context.Context) ([]byte, error) {
		runCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res := runProcess(runCtx, c.Bin, argv[1:], cmd.dir, childEnv(c.Env))
		if res.StartErr == nil && res.WaitErr == nil && !res.Over {
			return res.Stdout, nil
		}
		return nil, classify(ctx, runCtx, timeout, argv, res)
	}
	if c.Exec == nil {
		return real(ctx)
	}
	out, err := c.Exec.Exec(ctx, argv, real)
	var he *Error
	if err != nil && !errors.As(err, &he) {
		err = &Error{Kind: ErrExec, Message: err.Error(), ExitCode: -1, Argv: argv, Err: err}
	}
	return out, err
}

// classify turns a failed run into an *Error. The order matters: a process we killed is
// reported as killed whatever it printed on the way out.
func classify(ctx, runCtx context.Context, timeout time.Duration, argv []string, res procResult) *Error {
	e := &Error{ExitCode: res.ExitCode, Stderr: string(res.Stderr), Argv: argv, Started: res.StartErr == nil}
	switch {
	case ctx.Err() != nil:
		// The caller's context (cancel or its own deadline) beats our timeout.
		e.Kind, e.Message, e.Err = ErrCanceled, "canceled", ctx.Err()
	case res.StartErr != nil:
		e.Kind, e.Message, e.Err = ErrExec, "cannot start: "+res.StartErr.Error(), res.StartErr
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		e.Kind, e.Message, e.Err = ErrTimeout, "did not finish within "+timeout.String(), context.DeadlineExceeded
	case res.Over:
		e.Kind, e.Message = ErrOutputLimit, "output passed the 2 MiB limit"
	case res.ExitCode == 2:
		e.Kind, e.Message = ErrUsage, firstLine(e.Stderr)
	default:
		if code, msg, ok := parseErrorEnvelope(res.Stderr); ok {
			e.Kind, e.Code, e.Message = ErrReply, code, msg
		} else if code, msg, ok := parseErrorEnvelope(res.Stdout); ok {
			e.Kind, e.Code, e.Message = ErrReply, code, msg
		} else {
			e.Kind, e.Err = ErrExec, res.WaitErr
			e.Message = res.WaitErr.Error() + ": " + firstLine(e.Stderr)
			if firstLine(e.Stderr) == "" {
				e.Message = res.WaitErr.Error() + " with no error text"
			}
		}
	}
	return e
}
