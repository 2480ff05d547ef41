package core_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

func open(t *testing.T, r *coretest.Repo, dir string) *core.Service {
	t.Helper()
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: dir, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func wantCode(t *testing.T, err error, kind core.Kind, code string) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("want core.Error %s, got %v", code, err)
	}
	if e.Kind != kind || e.Code != code {
		t.Fatalf("want kind %d code %s, got kind %d code %s: %v", kind, code, e.Kind, e.Code, e)
	}
	if e.Message == "" || (kind == core.KindRefused && e.Hint == "") {
		t.Fatalf("refusal must say what and how to proceed: %+v", e)
	}
}

func do(t *testing.T, s *core.Service, req core.Request) (*core.Outcome, error) {
	t.Helper()
	return s.Do(context.Background(), req, true)
}

func TestCreateDefaultPathAndList(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(r.Base, "app.worktrees", "feat-login")
	if out.Path != want || out.Worktree.Branch != "feat/login" {
		t.Fatalf("created %+v, want path %s", out.Worktree, want)
	}
	head := r.Git(r.Root, "rev-parse", "HEAD")
	if out.Worktree.Head != head {
		t.Fatalf("head %s want %s", out.Worktree.Head, head)
	}
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Worktrees) != 2 || !l.Worktrees[0].Main || !l.Worktrees[0].Current || l.Worktrees[1].Branch != "feat/login" {
		t.Fatalf("listing %+v", l.Worktrees)
	}
	for _, w := range l.Worktrees {
		if w.Status == nil || w.Status.Error != "" {
			t.Fatalf("status missing for %s: %+v", w.Path, w.Status)
		}
	}
}

func TestCreateExistingBranchAndCopseRoot(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "old")
	root := filepath.Join(r.Base, "trees")
	r.Git(r.Root, "config", "copse.root", root)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != filepath.Join(root, "old") || out.Worktree.Branch != "old" {
		t.Fatalf("got %+v", out)
	}
	// A base with an existing branch is a usage error: the base would be ignored.
	r.Git(r.Root, "branch", "other")
	before := r.Snapshot()
	_, err = do(t, s, core.CreateRequest{Branch: "other", Base: core.Str("main")})
	wantCode(t, err, core.KindUsage, "base_with_existing_branch")
	r.Unchanged(before)
}

func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/x", "x")
	gitDir := filepath.Join(r.Root, ".git")
	occupied := filepath.Join(r.Base, "occupied")
	coretest.WriteFile(t, filepath.Join(occupied, "f"), "x")
	if err := os.Symlink(wt, filepath.Join(r.Base, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		req  core.CreateRequest
		kind core.Kind
		code string
	}{
		{"branch checked out elsewhere", core.CreateRequest{Branch: "feat/x"}, core.KindRefused, "branch_checked_out"},
		{"path is a worktree", core.CreateRequest{Branch: "n1", Path: core.Str(wt)}, core.KindRefused, "path_is_worktree"},
		{"path inside a worktree", core.CreateRequest{Branch: "n2", Path: core.Str(filepath.Join(wt, "sub"))}, core.KindUsage, "path_inside_worktree"},
		{"path inside main checkout", core.CreateRequest{Branch: "n3", Path: core.Str(filepath.Join(r.Root, "nested"))}, core.KindUsage, "path_inside_worktree"},
		{"path inside .git", core.CreateRequest{Branch: "n4", Path: core.Str(filepath.Join(gitDir, "wt"))}, core.KindUsage, "path_inside_git_dir"},
		{"inside a worktree through a symlink", core.CreateRequest{Branch: "n5", Path: core.Str(filepath.Join(r.Base, "link", "deeper"))}, core.KindUsage, "path_inside_worktree"},
		{"path exists and not empty", core.CreateRequest{Branch: "n6", Path: core.Str(occupied)}, core.KindRefused, "path_exists"},
		{"relative path", core.CreateRequest{Branch: "n7", Path: core.Str("rel/x")}, core.KindUsage, "relative_path"},
		{"dot dot", core.CreateRequest{Branch: "n8", Path: core.Str(r.Base + "/a/../b")}, core.KindUsage, "dot_segment"},
		{"unknown base", core.CreateRequest{Branch: "n9", Base: core.Str("nope")}, core.KindUsage, "unknown_base"},
		{"invalid ref name", core.CreateRequest{Branch: "a..b"}, core.KindUsage, "invalid_branch"},
		{"at sign", core.CreateRequest{Branch: "@"}, core.KindUsage, "invalid_branch"},
		{"lock suffix", core.CreateRequest{Branch: "x.lock"}, core.KindUsage, "invalid_branch"},
		{"256 chars", core.CreateRequest{Branch: strings.Repeat("b", 256)}, core.KindUsage, "too_long"},
		{"leading dash", core.CreateRequest{Branch: "-x"}, core.KindUsage, "leading_dash"},
		{"flag as value", core.CreateRequest{Branch: "--branch=x"}, core.KindUsage, "leading_dash"},
		{"newline", core.CreateRequest{Branch: "a\nb"}, core.KindUsage, "control_character"},
		{"esc", core.CreateRequest{Branch: "a\x1b[31mb"}, core.KindUsage, "control_character"},
		{"nul", core.CreateRequest{Branch: "a\x00b"}, core.KindUsage, "control_character"},
		{"bidi in label", core.CreateRequest{Branch: "ok", Label: core.Str("a\u202eb")}, core.KindUsage, "bidi_mark"},
		{"untrimmed", core.CreateRequest{Branch: " x"}, core.KindUsage, "untrimmed_value"},
		{"leading dash base", core.CreateRequest{Branch: "ok", Base: core.Str("-main")}, core.KindUsage, "leading_dash"},
		{"leading dash path", core.CreateRequest{Branch: "ok", Path: core.Str("-/x")}, core.KindUsage, "leading_dash"},
	}
	s := open(t, r, r.Root)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := r.Snapshot()
			_, err := do(t, s, tc.req)
			wantCode(t, err, tc.kind, tc.code)
			r.Unchanged(before)
		})
	}
	// The git dir check needs a path that is not inside the main checkout: a separate git dir.
}

func TestEveryBidiMarkRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	marks := []rune{0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
	before := r.Snapshot()
	for _, m := range marks {
		for _, req := range []core.Request{
			core.CreateRequest{Branch: "a" + string(m) + "b"},
			core.CreateRequest{Branch: "ok", Base: core.Str("main" + string(m))},
			core.CreateRequest{Branch: "ok", Path: core.Str(r.Base + "/x" + string(m))},
			core.SwitchRequest{Branch: core.Str("main" + string(m))},
			core.RemoveRequest{Path: core.Str(r.Base + "/x" + string(m))},
		} {
			_, err := do(t, s, req)
			wantCode(t, err, core.KindUsage, "bidi_mark")
		}
	}
	r.Unchanged(before)
}

func TestAtMinusOneResolves(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "checkout", "-q", "-b", "topic")
	r.Git(r.Root, "checkout", "-q", "main")
	s := open(t, r, r.Root)
	name, err := s.CheckBranch(context.Background(), "@{-1}")
	if err != nil || name != "topic" {
		t.Fatalf("@{-1} → %q, %v", name, err)
	}
	out, err := do(t, s, core.CreateRequest{Branch: "@{-1}"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Worktree.Branch != "topic" {
		t.Fatalf("created on %q", out.Worktree.Branch)
	}
}

func TestBaseMovedIsReported(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "base")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.CreateRequest{Branch: "n", Base: core.Str("base")})
	if err != nil {
		t.Fatal(err)
	}
	r.Write("more.txt", "more")
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-qm", "more")
	r.Git(r.Root, "branch", "-f", "base", "HEAD")
	before := r.Snapshot()
	_, err = s.Execute(context.Background(), p)
	wantCode(t, err, core.KindRefused, "base_moved")
	r.Unchanged(before)
}

func TestRemoveRefusals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	dirty := r.AddWorktree("dirty", "dirty")
	coretest.WriteFile(t, filepath.Join(dirty, "new.txt"), "untracked")
	locked := r.AddWorktree("locked", "locked")
	r.Git(r.Root, "worktree", "lock", "--reason", "agent 7 is working", locked)
	unmerged := r.AddWorktree("unmerged", "unmerged")
	coretest.WriteFile(t, filepath.Join(unmerged, "u.txt"), "u")
	r.Git(unmerged, "add", ".")
	r.Git(unmerged, "commit", "-qm", "unique work")
	here := r.AddWorktree("here", "here")

	s := open(t, r, r.Root)
	sHere := open(t, r, filepath.Join(here))
	cases := []struct {
		name string
		svc  *core.Service
		req  core.RemoveRequest
		kind core.Kind
		code string
	}{
		{"main checkout", s, core.RemoveRequest{Path: core.Str(r.Root), Force: true}, core.KindRefused, "main_checkout"},
		{"current worktree", sHere, core.RemoveRequest{Branch: core.Str("here"), Force: true}, core.KindRefused, "current_worktree"},
		{"dirty without force", s, core.RemoveRequest{Path: core.Str(dirty)}, core.KindRefused, "dirty_worktree"},
		{"locked without force", s, core.RemoveRequest{Branch: core.Str("locked")}, core.KindRefused, "locked_worktree"},
		{"unmerged branch delete", s, core.RemoveRequest{Branch: core.Str("unmerged"), DeleteBranch: true}, core.KindRefused, "unmerged_branch"},
		{"not a worktree", s, core.RemoveRequest{Path: core.Str(filepath.Join(r.Base, "nowhere"))}, core.KindRefused, "no_such_worktree"},
		{"both path and branch", s, core.RemoveRequest{Path: core.Str(dirty), Branch: core.Str("dirty")}, core.KindUsage, "exactly_one"},
		{"neither", s, core.RemoveRequest{}, core.KindUsage, "exactly_one"},
		{"workspace id under git", s, core.RemoveRequest{WorkspaceID: core.Str("wG")}, core.KindUsage, "no_workspaces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := r.Snapshot()
			_, err := do(t, tc.svc, tc.req)
			wantCode(t, err, tc.kind, tc.code)
			r.Unchanged(before)
		})
	}
	t.Run("locked message names the reason", func(t *testing.T) {
		_, err := do(t, s, core.RemoveRequest{Branch: core.Str("locked")})
		if !strings.Contains(err.Error(), "agent 7 is working") {
			t.Fatalf("%v", err)
		}
	})
}

func TestRemoveForceAndDeleteBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	dirty := r.AddWorktree("dirty", "dirty")
	coretest.WriteFile(t, filepath.Join(dirty, "new.txt"), "untracked")
	clean := r.AddWorktree("clean", "clean")
	s := open(t, r, r.Root)

	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(dirty), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil || !strings.Contains(strings.Join(p.Confirm.Losses, "\n"), "1 untracked") {
		t.Fatalf("confirmation must name the loss: %+v", p.Confirm)
	}
	if _, err := s.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dirty); !os.IsNotExist(err) {
		t.Fatalf("dirty worktree still on disk")
	}
	out, err := do(t, s, core.RemoveRequest{Branch: core.Str("clean"), DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !out.BranchDeleted || strings.Contains(r.Git(r.Root, "branch"), "clean") {
		t.Fatalf("branch not deleted: %+v", out)
	}
	if strings.Contains(r.Git(r.Root, "worktree", "list"), clean) {
		t.Fatal("still listed")
	}
}

func TestRemoveNeedsApproval(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("x", "x")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := s.Do(context.Background(), core.RemoveRequest{Path: core.Str(wt)}, false)
	wantCode(t, err, core.KindRefused, "needs_approval")
	r.Unchanged(before)
}

func TestStaleConfirmation(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("x", "x")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt)})
	if err != nil {
		t.Fatal(err)
	}
	r.AddWorktree("y", "y") // someone else changes the list while the dialog is open
	before := r.Snapshot()
	_, err = s.Execute(context.Background(), p)
	wantCode(t, err, core.KindRefused, "stale_state")
	r.Unchanged(before)
}

func TestSwitchAndBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("a", "a")
	b := r.AddWorktree("b", "b")
	coretest.WriteFile(t, filepath.Join(r.Root, "wip.txt"), "wip")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.SwitchRequest{Branch: core.Str("a")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != a || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "uncommitted") {
		t.Fatalf("switch: %+v", out)
	}
	if _, err := do(t, s, core.SwitchRequest{Path: core.Str(b)}); err != nil {
		t.Fatal(err)
	}
	_, err = do(t, s, core.SwitchRequest{Path: core.Str(b)})
	wantCode(t, err, core.KindRefused, "already_here")
	back, err := do(t, s, core.BackRequest{})
	if err != nil || back.Path != a {
		t.Fatalf("back → %+v %v", back, err)
	}
	// a was left for b, then back to a; remove nothing. Next back skips removed entries.
	r.Git(r.Root, "worktree", "remove", b)
	back, err = do(t, s, core.BackRequest{})
	if err != nil || back.Path != r.Root {
		t.Fatalf("back → %+v %v", back, err)
	}
	_, err = do(t, s, core.BackRequest{})
	wantCode(t, err, core.KindRefused, "no_previous_worktree")
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: dir, Backend: "git", Getenv: func(string) string { return "" }, Env: coretest.Env(dir)})
	wantCode(t, err, core.KindUsage, "not_a_repository")
	if core.ExitCode(err) != 2 {
		t.Fatal("exit code")
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), core.CreateRequest{Branch: "feat/y"})
	if err != nil {
		t.Fatal(err)
	}
	out := s.DryRun(p)
	if len(out.Commands) != 1 || !strings.Contains(out.Commands[0], "worktree add -b feat/y -- ") {
		t.Fatalf("commands %q", out.Commands)
	}
	r.Unchanged(before)
}

func TestHookOutputLimitTakesCreateBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	hooks := filepath.Join(r.Base, "hooks")
	coretest.WriteFile(t, filepath.Join(hooks, "post-checkout"), "#!/bin/sh\nhead -c 3000000 /dev/zero | tr '\\0' x >&2\n")
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "config", "core.hooksPath", hooks)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "chatty"})
	var e *core.Error
	if !errors.As(err, &e) || e.Code != "output_limit" || core.ExitCode(err) != 1 {
		t.Fatalf("want output_limit (exit 1), got %v", err)
	}
	if !strings.Contains(e.Message, "2 MB limit") || strings.Contains(e.Error(), "not found") {
		t.Fatalf("message %q", e.Error())
	}
	r.Unchanged(before)
}

// The shell hands over the directory it left (maybe a subdirectory): back returns to the
// worktree holding it, landing in that very directory while it exists.
func TestBackToShellPrevious(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("a", "a")
	sub := filepath.Join(a, "deep", "dir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), Previous: sub})
	if err != nil {
		t.Fatal(err)
	}
	out, err := do(t, s, core.BackRequest{})
	if err != nil || out.Path != sub || out.Worktree.Path != a {
		t.Fatalf("back → %+v, %v; want path %s in worktree %s", out, err, sub, a)
	}
	// A relative or foreign previous directory is ignored, never guessed at.
	for _, prev := range []string{"a/deep", t.TempDir()} {
		s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), Previous: prev})
		if err != nil {
			t.Fatal(err)
		}
		_, err = do(t, s, core.BackRequest{})
		wantCode(t, err, core.KindRefused, "no_previous_worktree")
	}
}

// A bare repository with linked worktrees: copse works from the bare directory too, and
// the default folder drops the .git suffix (repo.git → repo.worktrees).
func TestBareRepository(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	bare := filepath.Join(r.Base, "shop.git")
	r.Git(r.Base, "clone", "-q", "--bare", r.Root, bare)
	s := open(t, r, bare)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(r.Base, "shop.worktrees", "feat-b"); out.Path != want {
		t.Fatalf("path %s, want %s", out.Path, want)
	}
	l, err := s.List(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Worktrees[0].Bare || l.Worktrees[0].Main || l.Worktrees[0].Status != nil {
		t.Fatalf("bare row %+v", l.Worktrees[0])
	}
	before := r.Snapshot()
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(bare), Force: true})
	wantCode(t, err, core.KindRefused, "main_checkout")
	r.Unchanged(before)
}

// A path with a newline shows in a dry run as one shell word ($'…'), never as two lines.
func TestDryRunQuotesHostilePath(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	odd := r.AddWorktree("odd", "odd\nline")
	s := open(t, r, r.Root)
	_ = odd // git lists it; the request names it by branch (a raw newline is refused)
	p, err := s.Prepare(context.Background(), core.SwitchRequest{Branch: core.Str("odd")})
	if err != nil {
		t.Fatal(err)
	}
	want := "cd $'" + r.Base + "/odd\\nline'"
	if len(p.Commands) != 1 || p.Commands[0] != want {
		t.Fatalf("commands %q, want %q", p.Commands, want)
	}
	// Mutations work from inside such a worktree too (the lock's git dir is one path a line).
	if _, err := do(t, open(t, r, odd), core.CreateRequest{Branch: "from-odd"}); err != nil {
		t.Fatalf("create from inside %q: %v", odd, err)
	}
}
