package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/copse-dev/copse/internal/childproc"
)

// DefaultTimeout bounds a tmux run when Client.Timeout is zero. tmux answers in
// milliseconds; a server that does not answer in this time is stuck.
const DefaultTimeout = 10 * time.Second

// MaxOutput caps what is kept of tmux's stdout and of its stderr.
const MaxOutput = 2 << 20

// Client runs checked commands on the tmux server of one socket.
type Client struct {
	Bin     string // "tmux" when empty
	Socket  string // the server's socket path (-S): from TMUX, or a test's private server
	Timeout time.Duration
	Env     []string // environment of tmux; the process environment when nil
}

// SocketFromEnv is the socket path in the value of TMUX ("socket,pid,session"), "" when
// the value does not name one.
func SocketFromEnv(tmuxEnv string) string {
	sock, _, _ := strings.Cut(tmuxEnv, ",")
	if !strings.HasPrefix(sock, "/") {
		return ""
	}
	return sock
}

// Run runs cmd and returns its stdout on exit 0; any other outcome is an *Error.
func (c *Client) Run(ctx context.Context, cmd Cmd) ([]byte, error) {
	out, _, err := c.run(ctx, cmd)
	return out, err
}

// argv is the full command: the socket first, so no other server is ever asked.
func (c *Client) argv(cmd Cmd, format string) []string {
	bin := c.Bin
	if bin == "" {
		bin = "tmux"
	}
	args := slicesClone(cmd.args)
	if format != "" {
		if cmd.verb == "display-message" {
			args = append(args, format) // its format is its message argument
		} else {
			args = append(args, "-F", format)
		}
	}
	return append([]string{bin, "-S", c.Socket, cmd.verb}, args...)
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// run runs cmd; for a listing it frames the format with a fresh separator and returns it.
func (c *Client) run(ctx context.Context, cmd Cmd) ([]byte, framing, error) {
	if cmd.verb == "" {
		return nil, framing{}, &Error{Kind: ErrExec, ExitCode: -1, Message: "command was not made by a tmux builder"}
	}
	var fr framing
	format := ""
	if len(cmd.fields) > 0 && cmd.verb != "new-window" {
		fr = newFraming()
		format = fr.format(cmd.fields)
	}
	argv := c.argv(cmd, format)
	fail := func(kind ErrKind, msg string, err error) *Error {
		return &Error{Kind: kind, Message: msg, ExitCode: -1, Argv: argv, Err: err}
	}
	if c.Socket == "" || !strings.HasPrefix(c.Socket, "/") {
		return nil, fr, fail(ErrExec, "no tmux socket (TMUX is not set)", nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, fr, fail(ErrCanceled, "canceled", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := runProcess(runCtx, argv[0], argv[1:], childEnv(c.Env))
	e := &Error{ExitCode: res.ExitCode, Stderr: string(res.Stderr), Argv: argv, Started: res.StartErr == nil}
	switch {
	case res.StartErr == nil && res.WaitErr == nil && !res.Over:
		return res.Stdout, fr, nil
	case ctx.Err() != nil:
		e.Kind, e.Message, e.Err = ErrCanceled, "canceled", ctx.Err()
	case res.StartErr != nil:
		e.Kind, e.Message, e.Err = ErrExec, "cannot start: "+res.StartErr.Error(), res.StartErr
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		e.Kind, e.Message, e.Err = ErrTimeout, "did not finish within "+timeout.String(), context.DeadlineExceeded
	case res.Over:
		e.Kind, e.Message = ErrOutputLimit, "output passed the 2 MiB limit"
	case res.ExitCode > 0:
		e.Kind, e.Message = ErrExit, firstLine(e.Stderr)
		if e.Message == "" {
			e.Message = res.WaitErr.Error() + " with no error text"
		}
	default:
		e.Kind, e.Message, e.Err = ErrExec, res.WaitErr.Error(), res.WaitErr
	}
	return nil, fr, e
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

type procResult = childproc.Result

// runProcess runs tmux (the client; the server is a separate daemon it talks to) in its
// own process group, from "/", with no stdin: a cancel kills it and nothing it started
// (internal/childproc).
func runProcess(ctx context.Context, bin string, args []string, env []string) procResult {
	return childproc.Run(ctx, childproc.Spec{Bin: bin, Args: args, Dir: "/", Env: env, MaxOutput: MaxOutput})
}

func childEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	return append(slicesClone(env), "LC_ALL=C.UTF-8")
}

// framing is the separator of one listing: a random nonce between control characters. No
// window name, path or command can contain it, since it did not exist before the run.
type framing struct{ rec, sep string }

func newFraming() framing {
	b := make([]byte, 12)
	rand.Read(b)
	n := hex.EncodeToString(b)
	return framing{rec: "\x1e" + n + "\x1e", sep: "\x1f" + n + "\x1f"}
}

func (f framing) format(fields []string) string {
	var b strings.Builder
	b.WriteString(f.rec)
	for i, name := range fields {
		if i > 0 {
			b.WriteString(f.sep)
		}
		b.WriteString("#{" + name + "}")
	}
	return b.String()
}

// rows splits a listing's output into rows of exactly n fields.
func (f framing) rows(out []byte, n int) ([][]string, error) {
	s := string(out)
	if s == "" {
		return nil, nil
	}
	if !strings.HasPrefix(s, f.rec) {
		return nil, errors.New("output does not start with the row separator")
	}
	var rows [][]string
	for _, r := range strings.Split(s, f.rec)[1:] {
		r, ok := strings.CutSuffix(r, "\n")
		if !ok {
			return nil, errors.New("a row does not end with a newline")
		}
		fs := strings.Split(r, f.sep)
		if len(fs) != n {
			return nil, errors.New("a row has the wrong number of fields")
		}
		rows = append(rows, fs)
	}
	return rows, nil
}
