// Package gitxtest holds Fake, a gitx.Executor for tests of what copse decides from git's
// answers (postconditions, failures git rarely gives). It is modelled on lazygit's
// FakeCmdObjRunner: the commands a test is about are expected, in order, with their exact
// argv, and answered with canned output or error, or by real git with its output rewritten.
// Every other command must be allowed by its leading arguments (Allow) and real git answers
// it; a command neither expected next nor allowed fails the test. So a test fakes only the
// answers it is about and real git stays the rule for the rest. Never import it outside tests.
package gitxtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

// Fake is a gitx.Executor; set it as Runner.Exec.
type Fake struct {
	t       TB
	mu      sync.Mutex
	calls   []*Call
	next    int
	allowed [][]string
}

// Allow lets real git answer every command whose arguments start with prefix, whenever it
// comes (unless it is the next expected command).
func (f *Fake) Allow(prefix ...string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.allowed = append(f.allowed, prefix)
	return f
}

// TB is the part of testing.TB the Fake uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

var _ TB = testing.TB(nil)

// Call is one expected command and its answer.
type Call struct {
	args    []string // argv after "git -C DIR"
	prefix  bool     // args are the leading arguments only (a value that holds a time)
	dir     string   // "" matches any DIR
	out     []byte
	err     error
	real    bool
	rewrite func([]byte) []byte
	after   error // returned after real git ran (it did the work but reports failure)
}

// New returns a Fake that fails t on an unexpected command and, at the end of the test,
// on an expected command that never came.
func New(t TB) *Fake {
	f := &Fake{t: t}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.next < len(f.calls) {
			t.Errorf("gitxtest: %d expected git command(s) never ran, first: git %s", len(f.calls)-f.next, strings.Join(f.calls[f.next].args, " "))
		}
	})
	return f
}

// Expect adds the next command: git -C DIR args... (exactly these args).
func (f *Fake) Expect(args ...string) *Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &Call{args: args}
	f.calls = append(f.calls, c)
	return c
}

// ExpectPrefix is Expect for a command whose later arguments the test cannot know (a
// claim's reason holds the time): args are its leading arguments.
func (f *Fake) ExpectPrefix(args ...string) *Call {
	c := f.Expect(args...)
	c.prefix = true
	return c
}

// In requires the command to run in dir (git -C dir).
func (c *Call) In(dir string) *Call { c.dir = dir; return c }

// Returns answers with out and err (a *gitx.Error, usually; see ExitError).
func (c *Call) Returns(out string, err error) *Call { c.out, c.err = []byte(out), err; return c }

// Real lets real git answer.
func (c *Call) Real() *Call { c.real = true; return c }

// Rewritten lets real git run and answers with its output changed by edit: git did the
// work but says something else (what a postcondition must catch).
func (c *Call) Rewritten(edit func([]byte) []byte) *Call { c.real, c.rewrite = true, edit; return c }

// RealButFails lets real git run, then answers with err: git did the work (or part of
// it) but says it failed, as when it is killed just after.
func (c *Call) RealButFails(err error) *Call { c.real, c.after = true, err; return c }

// ExitError is git exiting with code and stderr.
func ExitError(argv []string, code int, stderr string) *gitx.Error {
	return &gitx.Error{Kind: gitx.ErrExit, Argv: argv, ExitCode: code, Stderr: stderr}
}

func (c *Call) matches(dir string, args []string) bool {
	if c.dir != "" && c.dir != dir {
		return false
	}
	if c.prefix {
		return hasPrefix(args, c.args)
	}
	return slices.Equal(c.args, args)
}

func hasPrefix(args, prefix []string) bool {
	return len(args) >= len(prefix) && slices.Equal(args[:len(prefix)], prefix)
}

// Exec implements gitx.Executor.
func (f *Fake) Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error) {
	f.t.Helper()
	dir, args := argv[2], argv[3:]
	f.mu.Lock()
	var c *Call
	if f.next < len(f.calls) {
		c = f.calls[f.next]
	}
	if c == nil || !c.matches(dir, args) {
		for _, p := range f.allowed {
			if hasPrefix(args, p) {
				f.mu.Unlock()
				return real(ctx)
			}
		}
		f.mu.Unlock()
		want := "no more commands"
		if c != nil {
			want = "git " + strings.Join(c.args, " ")
		}
		f.t.Errorf("gitxtest: unexpected command git -C %s %s; want %s", dir, strings.Join(args, " "), want)
		return nil, &gitx.Error{Kind: gitx.ErrStart, Argv: argv, Err: errors.New("gitxtest: unexpected git command")}
	}
	f.next++
	f.mu.Unlock()
	if !c.real {
		return c.out, c.err
	}
	out, err := real(ctx)
	if err == nil && c.after != nil {
		return out, c.after
	}
	if err == nil && c.rewrite != nil {
		out = c.rewrite(out)
	}
	return out, err
}
