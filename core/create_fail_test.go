package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// failingSmudge makes every checkout of data.txt fail: a required smudge filter that exits 1.
func failingSmudge(t *testing.T, r *coretest.Repo) {
	t.Helper()
	r.Write(".gitattributes", "data.txt filter=bad\n")
	r.Write("data.txt", "payload\n")
	r.Git(r.Root, "add", ".gitattributes", "data.txt")
	r.Git(r.Root, "commit", "-q", "-m", "filtered file")
	r.Git(r.Root, "config", "filter.bad.smudge", "false")
	r.Git(r.Root, "config", "filter.bad.required", "true")
}

// wantFailedCleanly: exit 1, KindFailed, git's fatal line in the message (not its progress).
func wantFailedCleanly(t *testing.T, err error, fatal string) *core.Error {
	t.Helper()
	e := core.AsError(err)
	if e == nil || e.Kind != core.KindFailed || core.ExitCode(err) != 1 {
		t.Fatalf("want a failure with exit 1, got %v (exit %d)", err, core.ExitCode(err))
	}
	if !strings.Contains(e.Message, fatal) || strings.Contains(e.Message, "Preparing worktree") {
		t.Fatalf("message should carry git's error %q, not its progress: %q", fatal, e.Message)
	}
	if !strings.Contains(e.Message, "nothing changed") {
		t.Fatalf("message should say nothing changed: %q", e.Message)
	}
	return e
}

// git 2.39 removes the directory and admin entry of a checkout its smudge filter failed,
// but keeps the branch it made first: copse deletes that branch.
func TestFailedCreateSmudgeTakesBranchBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingSmudge(t, r)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "feat/smudge"})
	e := wantFailedCleanly(t, err, "fatal: data.txt: smudge filter bad failed")
	if e.Code != "create_failed" || !strings.Contains(e.Message, "taken back: branch feat/smudge") {
		t.Fatalf("code %s message %q", e.Code, e.Message)
	}
	r.Unchanged(before)
	if _, err := os.Stat(filepath.Join(r.Base, "app.worktrees")); !os.IsNotExist(err) {
		t.Fatalf("the parent folder made for the worktree is still there: %v", err)
	}
}

// An empty directory given as the path is removed by git's cleanup; copse makes it again.
func TestFailedCreateKeepsEmptyDirectory(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingSmudge(t, r)
	dir := filepath.Join(r.Base, "spot")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "spot", Path: core.Str(dir)})
	wantFailedCleanly(t, err, "smudge filter bad failed")
	r.Unchanged(before)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o750 {
		t.Fatalf("the empty directory was not given back as it was: %v %v", fi, err)
	}
}

// A path through a dangling symlink: git makes the branch, then cannot make the directory.
func TestFailedCreateDanglingSymlinkPath(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	if err := os.Symlink(filepath.Join(r.Base, "nowhere"), filepath.Join(r.Base, "dangling")); err != nil {
		t.Fatal(err)
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "lost", Path: core.Str(filepath.Join(r.Base, "dangling", "wt"))})
	wantFailedCleanly(t, err, "fatal: could not create leading directories")
	r.Unchanged(before)
}

func failingHook(t *testing.T, r *coretest.Repo, body string) {
	t.Helper()
	hooks := filepath.Join(r.Base, "hooks")
	coretest.WriteFile(t, filepath.Join(hooks, "post-checkout"), "#!/bin/sh\n"+body)
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "config", "core.hooksPath", hooks)
}

// A failing post-checkout hook leaves a complete worktree and the branch: both taken back.
func TestFailedCreateHookTakesWorktreeBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingHook(t, r, "echo 'hook: refusing this checkout' >&2\ntouch made-by-hook\nexit 3\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "hooked"})
	e := wantFailedCleanly(t, err, "hook: refusing this checkout")
	if !strings.Contains(e.Message, "the worktree at") || !strings.Contains(e.Message, "branch hooked") {
		t.Fatalf("message should say what was taken back: %q", e.Message)
	}
	r.Unchanged(before)
}

// A hook that commits on the new branch before failing: the branch moved, so the
// compare-and-swap refuses to delete it (its commit would be lost). Exit 3, naming it.
func TestFailedCreateBranchMovedIsUncertain(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingHook(t, r, "git commit -q --allow-empty -m 'made by the hook'\nexit 1\n")
	s := open(t, r, r.Root)
	_, err := do(t, s, core.CreateRequest{Branch: "moved"})
	e := core.AsError(err)
	if e == nil || e.Kind != core.KindUncertain || core.ExitCode(err) != 3 || !strings.Contains(e.Message, "branch moved remain") {
		t.Fatalf("want uncertain naming the branch, got %v", err)
	}
	if !strings.Contains(r.Git(r.Root, "log", "-1", "--format=%s", "refs/heads/moved"), "made by the hook") {
		t.Fatal("the hook's commit must survive on the branch")
	}
	if strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "moved") {
		t.Fatal("the worktree should have been taken back")
	}
}

// An existing branch that fails to check out: git made nothing, copse deletes nothing.
func TestFailedCreateExistingBranchKept(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingSmudge(t, r)
	r.Git(r.Root, "branch", "keep")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "keep"})
	e := wantFailedCleanly(t, err, "smudge filter bad failed")
	if strings.Contains(e.Message, "taken back") {
		t.Fatalf("nothing of an existing branch should be taken back: %q", e.Message)
	}
	r.Unchanged(before)
}
