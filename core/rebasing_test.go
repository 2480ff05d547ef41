package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// midRebase makes a worktree on branch topic whose rebase onto main stopped on a conflict:
// git lists it detached.
func midRebase(t *testing.T, r *coretest.Repo) string {
	t.Helper()
	wt := r.AddWorktree("topic", "topic")
	coretest.WriteFile(t, wt+"/README.md", "topic\n")
	r.Git(wt, "commit", "-q", "-am", "topic edit")
	r.Write("README.md", "main\n")
	r.Git(r.Root, "commit", "-q", "-am", "main edit")
	if out, err := r.TryGit(wt, "rebase", "main"); err == nil {
		t.Fatalf("the rebase should stop on a conflict:\n%s", out)
	}
	if !strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "detached") {
		t.Fatal("git should list the rebasing worktree detached")
	}
	return wt
}

func TestRebasingWorktreeListedUnderItsBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := midRebase(t, r)
	s := open(t, r, r.Root)
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	var row *core.Worktree
	for i := range l.Worktrees {
		if l.Worktrees[i].Path == wt {
			row = &l.Worktrees[i]
		}
	}
	if row == nil || row.Branch != "topic" || !row.Rebasing || !row.Detached {
		t.Fatalf("row %+v", row)
	}

	// switch and remove find it by the branch name.
	p, err := s.Prepare(context.Background(), core.SwitchRequest{Branch: core.Str("topic")})
	if err != nil || !strings.Contains(strings.Join(s.DryRun(p).Commands, " "), wt) {
		t.Fatalf("switch topic: %v", err)
	}
	p, err = s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("topic"), Force: true})
	if err != nil || p.Confirm == nil || !strings.Contains(p.Confirm.Line(), wt) {
		t.Fatalf("remove topic: %v", err)
	}

	// create of that branch is refused, naming the worktree; nothing changes.
	before := r.Snapshot()
	_, err = do(t, s, core.CreateRequest{Branch: "topic"})
	wantCode(t, err, core.KindRefused, "branch_checked_out")
	if !strings.Contains(err.Error(), "being rebased at "+wt) {
		t.Fatalf("refusal %v", err)
	}
	r.Unchanged(before)
}

func TestBisectingWorktreeListedUnderItsBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("hunt", "hunt")
	first := r.Git(wt, "rev-parse", "HEAD")
	for _, m := range []string{"a", "b", "c"} {
		r.Git(wt, "commit", "-q", "--allow-empty", "-m", m)
	}
	r.Git(wt, "bisect", "start", "HEAD", first)
	s := open(t, r, r.Root)
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range l.Worktrees {
		if w.Path == wt {
			found = w.Branch == "hunt" && w.Bisecting && w.Detached
		}
	}
	if !found {
		t.Fatalf("bisecting worktree not listed under hunt: %+v", l.Worktrees)
	}
	_, err = do(t, s, core.CreateRequest{Branch: "hunt"})
	wantCode(t, err, core.KindRefused, "branch_checked_out")
}
