package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Each case sets up one kind of work a remove would lose, which the user's config or git
// status hides or which is not a file change at all. Without --force the remove is
// refused naming it, and nothing changes; with --force the confirmation names the loss.
func TestRemoveRefusesWhatWouldBeLost(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(r *coretest.Repo, wt string)
		code  string
		says  []string // in the refusal message or hint
		loss  string   // in the forced confirmation
	}{
		{
			name: "untracked file hidden by status.showUntrackedFiles=no",
			setup: func(r *coretest.Repo, wt string) {
				r.Git(r.Root, "config", "status.showUntrackedFiles", "no")
				coretest.WriteFile(r.T, filepath.Join(wt, "notes.txt"), "mine")
			},
			code: "dirty_worktree", says: []string{"1 untracked"}, loss: "uncommitted changes will be lost: 1 untracked",
		},
		{
			name: "assume-unchanged file edited",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(wt, "conf"), "v1\n")
				r.Git(wt, "add", "conf")
				r.Git(wt, "commit", "-q", "-m", "conf")
				r.Git(wt, "update-index", "--assume-unchanged", "conf")
				coretest.WriteFile(r.T, filepath.Join(wt, "conf"), "local secret\n")
			},
			code: "dirty_worktree", says: []string{"1 changed file", "assume-unchanged", "conf"}, loss: "1 changed file git status does not show",
		},
		{
			name: "skip-worktree file edited",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(wt, "sparse"), "v1\n")
				r.Git(wt, "add", "sparse")
				r.Git(wt, "commit", "-q", "-m", "sparse")
				r.Git(wt, "update-index", "--skip-worktree", "sparse")
				coretest.WriteFile(r.T, filepath.Join(wt, "sparse"), "edited\n")
			},
			code: "dirty_worktree", says: []string{"skip-worktree", "sparse"}, loss: "sparse",
		},
		{
			name: "detached HEAD with commits on no branch",
			setup: func(r *coretest.Repo, wt string) {
				r.Git(wt, "checkout", "-q", "--detach")
				for _, f := range []string{"a", "b"} {
					coretest.WriteFile(r.T, filepath.Join(wt, f), f)
					r.Git(wt, "add", f)
					r.Git(wt, "commit", "-q", "-m", f)
				}
			},
			code: "detached_unique_commits", says: []string{"2 commits on no branch, tag or remote", "branch <name>"}, loss: "2 commits on no branch",
		},
		{
			name: "rebase in progress",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(wt, "README.md"), "theirs\n")
				r.Git(wt, "commit", "-q", "-am", "feat change")
				r.Write("README.md", "ours\n")
				r.Git(r.Root, "commit", "-q", "-am", "main change")
				if _, err := r.TryGit(wt, "rebase", "main"); err == nil {
					r.T.Fatal("rebase should conflict")
				}
			},
			code: "operation_in_progress", says: []string{"middle of a rebase"}, loss: "a rebase in progress will be abandoned",
		},
		{
			name: "merge in progress",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(wt, "README.md"), "theirs\n")
				r.Git(wt, "commit", "-q", "-am", "feat change")
				r.Git(r.Root, "checkout", "-q", "-b", "other")
				r.Write("README.md", "ours\n")
				r.Git(r.Root, "commit", "-q", "-am", "other change")
				r.Git(r.Root, "checkout", "-q", "main")
				if _, err := r.TryGit(wt, "merge", "other"); err == nil {
					r.T.Fatal("merge should conflict")
				}
			},
			code: "operation_in_progress", says: []string{"middle of a merge"}, loss: "a merge in progress will be abandoned",
		},
		{
			name: "nested repository in an ignored directory",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(wt, ".gitignore"), "deps/\n")
				r.Git(wt, "add", ".gitignore")
				r.Git(wt, "commit", "-q", "-m", "ignore deps")
				r.Git(wt, "init", "-q", filepath.Join(wt, "deps", "lib"))
			},
			code: "nested_repository", says: []string{"1 nested repository", "deps/lib/"}, loss: "1 nested repository will be deleted: deps/lib/",
		},
		{
			name: "nested repository untracked",
			setup: func(r *coretest.Repo, wt string) {
				r.Git(wt, "init", "-q", filepath.Join(wt, "tools", "x"))
			},
			code: "nested_repository", says: []string{"tools/x/"}, loss: "tools/x/",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := coretest.New(t)
			wt := r.AddWorktree("feat", "feat")
			tc.setup(r, wt)
			s := open(t, r, r.Root)
			before := r.Snapshot()
			_, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat")})
			if err == nil && tc.code == "detached_unique_commits" {
				t.Fatal("removed")
			}
			// A detached worktree is named by its path.
			if tc.code == "detached_unique_commits" || tc.code == "operation_in_progress" && strings.Contains(tc.name, "rebase") {
				_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
			}
			wantCode(t, err, core.KindRefused, tc.code)
			e := core.AsError(err)
			for _, want := range tc.says {
				if !strings.Contains(e.Message+" "+e.Hint, want) {
					t.Errorf("refusal %q / %q does not say %q", e.Message, e.Hint, want)
				}
			}
			if !e.ForceHelps {
				t.Error("--force gets past this refusal, so ForceHelps must be set")
			}
			r.Unchanged(before)

			p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if line := p.Confirm.Line(); !strings.Contains(line, tc.loss) {
				t.Errorf("forced confirmation %q does not name %q", line, tc.loss)
			}
		})
	}
}

func TestRemoveNamesIgnoredFilesWithoutRefusing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, ".gitignore"), ".env\nbuild/\n")
	r.Git(wt, "add", ".gitignore")
	r.Git(wt, "commit", "-q", "-m", "ignore")
	coretest.WriteFile(t, filepath.Join(wt, ".env"), "SECRET=1")
	for i := range 4 {
		coretest.WriteFile(t, filepath.Join(wt, "build", "out"+string(rune('a'+i))), "x")
	}
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat")})
	if err != nil {
		t.Fatalf("ignored files alone must not refuse: %v", err)
	}
	line := p.Confirm.Line()
	if !strings.Contains(line, "5 ignored files will be deleted: ") || !strings.Contains(line, ".env") || !strings.Contains(line, "and 2 more") {
		t.Fatalf("confirmation %q does not name the ignored files", line)
	}
	if _, err := s.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// A worktree inside another: removing the outer one would take the inner one along; not
// even --force may do that.
func TestRemoveRefusesWorktreeHoldingAnother(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	outer := r.AddWorktree("outer", "outer")
	coretest.WriteFile(t, filepath.Join(outer, ".gitignore"), "inner/\n")
	r.Git(outer, "add", ".gitignore")
	r.Git(outer, "commit", "-q", "-m", "ignore inner")
	inner := filepath.Join(outer, "inner")
	r.Git(r.Root, "worktree", "add", "-q", "-b", "inner", inner)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	for _, force := range []bool{false, true} {
		_, err := do(t, s, core.RemoveRequest{Branch: core.Str("outer"), Force: force})
		wantCode(t, err, core.KindRefused, "contains_worktree")
		if e := core.AsError(err); !strings.Contains(e.Message, inner) || e.ForceHelps {
			t.Errorf("force=%v: %q must name %s and not offer --force", force, e.Message, inner)
		}
		r.Unchanged(before)
	}
}

// copse running anywhere inside the worktree (not only at its root) refuses to remove it.
func TestRemoveRefusesWhereCopseRuns(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	sub := filepath.Join(wt, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s := open(t, r, sub)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindRefused, "current_worktree")
	if e := core.AsError(err); !strings.Contains(e.Message, sub) {
		t.Errorf("%q should name where copse runs", e.Message)
	}
	r.Unchanged(before)
}

// `git worktree add -f` checks one branch out twice: the branch name is ambiguous.
func TestBranchCheckedOutTwiceIsAmbiguous(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	one := r.AddWorktree("feat", "one")
	two := filepath.Join(r.Base, "two")
	r.Git(r.Root, "worktree", "add", "-q", "-f", two, "feat")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	for _, req := range []core.Request{
		core.RemoveRequest{Branch: core.Str("feat"), Force: true},
		core.SwitchRequest{Branch: core.Str("feat")},
	} {
		_, err := do(t, s, req)
		wantCode(t, err, core.KindRefused, "branch_checked_out_twice")
		if e := core.AsError(err); !strings.Contains(e.Message, one) || !strings.Contains(e.Message, two) {
			t.Errorf("%q must name both paths", e.Message)
		}
		r.Unchanged(before)
	}
}

// --delete-branch is stated in the confirmation with what the branch holds.
func TestRemoveConfirmationStatesDeleteBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat"), DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "delete branch: feat at ") || !strings.Contains(line, ": no commits only on it") {
		t.Fatalf("confirmation %q does not state the branch deletion", line)
	}
	coretest.WriteFile(t, filepath.Join(wt, "x"), "x")
	r.Git(wt, "add", "x")
	r.Git(wt, "commit", "-q", "-m", "x")
	p, err = s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat"), DeleteBranch: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, ": 1 commit only on it") || !strings.Contains(line, "1 commit on no other branch or remote will be lost with branch feat") {
		t.Fatalf("confirmation %q does not say what the branch holds", line)
	}
}

// A confirmation approves exactly what it showed: a change to the losses between showing
// and running (a new untracked file) runs nothing.
func TestConfirmedRemoveIsStaleWhenLossesChange(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, "one"), "1")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(wt, "two"), "2")
	before := r.Snapshot()
	_, err = s.Execute(context.Background(), p)
	wantCode(t, err, core.KindRefused, "stale_state")
	r.Unchanged(before)
}

// A forced remove's plan (and so its dry run) says that copse records the worktree first.
func TestForcedRemovePlanSaysItRecords(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat", "feat")
	s := open(t, r, r.Root)
	for _, force := range []bool{false, true} {
		p, err := s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat"), Force: force})
		if err != nil {
			t.Fatal(err)
		}
		// Recording first is how the remove is undone: a notice, not a warning.
		says := strings.Contains(strings.Join(s.DryRun(p).Notices, "\n"), "records the worktree")
		if says != force || strings.Contains(strings.Join(s.DryRun(p).Warnings, "\n"), "records the worktree") {
			t.Errorf("force=%v: dry run notices %q, warnings %q", force, s.DryRun(p).Notices, s.DryRun(p).Warnings)
		}
	}
}

// A claimed worktree is refused naming the session that holds it and how to release it.
func TestRemoveNamesTheClaim(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-7 since=2026-11-30T12:00:00Z", wt)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, "claimed_worktree")
	if e := core.AsError(err); !strings.Contains(e.Message, "claimed by session agent-7") || !strings.Contains(e.Hint, "`copse release ") {
		t.Errorf("refusal %q / %q", e.Message, e.Hint)
	}
	r.Unchanged(before)
}
