// Package herdrtest holds Fake, a herdr.Executor that checks the argv of every herdr command
// a core test is about and answers it (see Fake). Only tests import it.
package herdrtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/herdr"
)

// Fake is a herdr.Executor for tests of what copse decides from Herdr's answers that the
// double does not give on demand. As gitxtest.Fake does for git: the commands a test is
// about are expected in order with their exact arguments (after the binary) and answered
// with canned output or a *herdr.Error; every other command must be allowed by its leading
// arguments and the real binary (the double) answers it; anything else fails the test, as
// does an expected command that never came. Never import it outside tests.
type Fake struct {
	t       testing.TB
	mu      sync.Mutex
	calls   []*Call
	next    int
	allowed [][]string
}

// Call is one expected command and its answer.
type Call struct {
	args   []string
	prefix bool
	out    []byte
	err    error
}

// New returns a Fake that fails t on an unexpected command and, at the end of the
// test, on an expected one that never ran.
func New(t testing.TB) *Fake {
	f := &Fake{t: t}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.next < len(f.calls) {
			t.Errorf("herdrtest: expected herdr %s, which never ran", strings.Join(f.calls[f.next].args, " "))
		}
	})
	return f
}

// Allow lets the real binary answer every command whose arguments start with prefix.
func (f *Fake) Allow(prefix ...string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.allowed = append(f.allowed, prefix)
	return f
}

// ExpectPrefix expects, next, a command whose arguments start with args.
func (f *Fake) ExpectPrefix(args ...string) *Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &Call{args: args, prefix: true}
	f.calls = append(f.calls, c)
	return c
}

// Returns sets the answer: stdout, or the error the client reports.
func (c *Call) Returns(out string, err *herdr.Error) *Call {
	c.out = []byte(out)
	if err != nil {
		c.err = err
	}
	return c
}

// Exec implements herdr.Executor.
func (f *Fake) Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error) {
	f.t.Helper()
	args := argv[1:]
	f.mu.Lock()
	var c *Call
	if f.next < len(f.calls) {
		c = f.calls[f.next]
	}
	if c == nil || !(len(args) >= len(c.args) && slices.Equal(args[:len(c.args)], c.args)) {
		for _, p := range f.allowed {
			if len(args) >= len(p) && slices.Equal(args[:len(p)], p) {
				f.mu.Unlock()
				return real(ctx)
			}
		}
		f.mu.Unlock()
		want := "no more commands"
		if c != nil {
			want = "herdr " + strings.Join(c.args, " ")
		}
		f.t.Errorf("herdrtest: unexpected command herdr %s; want %s", strings.Join(args, " "), want)
		return nil, &herdr.Error{Kind: herdr.ErrExec, ExitCode: -1, Argv: argv, Err: errors.New("herdrtest: unexpected herdr command")}
	}
	f.next++
	f.mu.Unlock()
	return c.out, c.err
}
