package herdrtest

import (
	"context"
	"testing"

	"github.com/copse-dev/copse/herdr"
)

type recTB struct {
	testing.TB
	errors   int
	cleanups []func()
}

func (r *recTB) Helper()               {}
func (r *recTB) Errorf(string, ...any) { r.errors++ }
func (r *recTB) Cleanup(f func())      { r.cleanups = append(r.cleanups, f) }
func (r *recTB) finish() {
	for _, f := range r.cleanups {
		f()
	}
}

func TestFakeChecksArgv(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	realRan := 0
	real := func(context.Context) ([]byte, error) { realRan++; return []byte("real"), nil }

	tb := &recTB{TB: t}
	f := New(tb).Allow("worktree", "list")
	f.ExpectPrefix("worktree", "open", "--cwd", "/r").Returns("", &herdr.Error{Kind: herdr.ErrTimeout})
	if out, err := f.Exec(ctx, []string{"herdr", "worktree", "list", "--cwd", "/r"}, real); err != nil || string(out) != "real" {
		t.Fatalf("allowed command: %q %v", out, err)
	}
	if _, err := f.Exec(ctx, []string{"herdr", "worktree", "open", "--cwd", "/r", "--path", "/p"}, real); err == nil {
		t.Fatal("the expected command did not get its canned error")
	}
	if tb.errors != 0 || realRan != 1 {
		t.Fatalf("errors %d, real runs %d", tb.errors, realRan)
	}
	if _, err := f.Exec(ctx, []string{"herdr", "worktree", "remove", "--workspace", "w1"}, real); err == nil || tb.errors != 1 {
		t.Fatalf("an unexpected command must fail the test: err %v, errors %d", err, tb.errors)
	}

	tb2 := &recTB{TB: t}
	New(tb2).ExpectPrefix("worktree", "create")
	tb2.finish()
	if tb2.errors != 1 {
		t.Fatal("an expected command that never ran must fail the test")
	}
}
