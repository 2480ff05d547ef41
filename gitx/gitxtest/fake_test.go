package gitxtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

type recorder struct {
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) end() {
	for _, f := range r.cleanups {
		f()
	}
}

func argsOf(t *testing.T, mk func(string) (gitx.Cmd, error)) []string {
	t.Helper()
	c, err := mk("/x")
	if err != nil {
		t.Fatal(err)
	}
	return c.Argv()[3:]
}

func run(t *testing.T, f *Fake, mk func(string) (gitx.Cmd, error)) (string, error) {
	t.Helper()
	c, err := mk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&gitx.Runner{Exec: f}).Run(context.Background(), c)
	return string(out), err
}

// The fake answers expected commands in order, lets allowed ones through to real git, and
// fails the test on anything else and on an expected command that never came.
func TestFake(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := New(rec).Allow("worktree", "list")
	f.Expect(argsOf(t, gitx.RemoteList)...).Returns("canned", nil)
	f.Expect(argsOf(t, gitx.LocalBranches)...).Returns("", ExitError(nil, 1, "no"))
	f.Expect("never")
	// Real git answers the allowed command: the temporary directory is no repository.
	if _, err := run(t, f, gitx.WorktreeList); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("allowed command: %v; want real git's refusal", err)
	}
	if out, err := run(t, f, gitx.RemoteList); out != "canned" || err != nil {
		t.Errorf("expected command: %q, %v", out, err)
	}
	if _, err := run(t, f, gitx.StatusCmd); err == nil {
		t.Error("unexpected command answered")
	}
	if _, err := run(t, f, gitx.LocalBranches); err == nil {
		t.Error("canned error not returned")
	} else if code, ok := gitx.ExitCode(err); !ok || code != 1 {
		t.Errorf("canned error %v is not exit 1", err)
	}
	rec.end()
	if len(rec.errs) != 2 || !strings.Contains(rec.errs[0], "unexpected command") || !strings.Contains(rec.errs[1], "never ran") {
		t.Errorf("failures reported: %q; want the unexpected status and the missing never", rec.errs)
	}
}
