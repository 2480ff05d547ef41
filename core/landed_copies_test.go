package core_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// landedCopies makes two idle worktrees with two commits each and lands both onto main as
// rebased copies (new object ids, as a rebase or a squash-free cherry-pick land leaves them):
// "copied" exactly, "changed" with its second commit altered on the way. Neither branch's
// commits are reachable from main, so only patch-id equivalence can tell them apart.
func landedCopies(t *testing.T) (r *coretest.Repo, copied, changed string) {
	t.Helper()
	r = coretest.New(t)
	copied = r.AddWorktree("copied", "app.worktrees/copied")
	changed = r.AddWorktree("changed", "app.worktrees/changed")
	commit := func(dir, file, content string) string {
		coretest.WriteFile(t, filepath.Join(dir, file), content)
		r.Git(dir, "add", file)
		r.Git(dir, "commit", "-qm", "add "+file)
		return r.Git(dir, "rev-parse", "HEAD")
	}
	c1, c2 := commit(copied, "a.txt", "a\n"), commit(copied, "b.txt", "b\n")
	d1, _ := commit(changed, "c.txt", "c\n"), commit(changed, "d.txt", "d\n")
	commit(r.Root, "main.txt", "main moved on\n") // so the copies get new parents and ids
	r.Git(r.Root, "cherry-pick", c1, c2)
	r.Git(r.Root, "cherry-pick", d1)
	commit(r.Root, "d.txt", "d, but different\n") // d's change is not the one on main
	for _, id := range []string{"copied", "changed"} {
		age(t, r, id, 100*time.Hour)
	}
	return r, copied, changed
}

func TestPruneRecognisesLandedCopies(t *testing.T) {
	t.Parallel()
	r, _, changed := landedCopies(t)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Unchanged(before)
	got := reasons(out.Prune)
	if got["copied"] != "removed:idle" {
		t.Errorf("copied (every change on main): %q, want removed:idle", got["copied"])
	}
	if got["changed"] != "kept:unique_commits" {
		t.Fatalf("changed (one change differs): %q, want kept:unique_commits", got["changed"])
	}
	for _, e := range out.Prune.Kept {
		if e.Path == changed && !strings.Contains(e.Detail, "1 commit on no other branch") {
			t.Errorf("changed: detail %q, want the one commit whose change is not on main", e.Detail)
		}
	}

	if _, err := do(t, s, core.PruneRequest{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/copied"); err == nil {
		t.Error("branch copied not deleted though every change of it is on main")
	}
	r.Git(r.Root, "rev-parse", "--verify", "refs/heads/changed")
}

func TestRemoveDeleteBranchRecognisesLandedCopies(t *testing.T) {
	t.Parallel()
	r, copied, changed := landedCopies(t)
	s := open(t, r, r.Root)

	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(changed), DeleteBranch: true})
	wantCode(t, err, core.KindRefused, "unmerged_branch")
	if !strings.Contains(err.Error(), "1 commit") {
		t.Errorf("refusal %q, want the one commit whose change is not on main", err)
	}
	r.Unchanged(before)

	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(copied), DeleteBranch: true}); err != nil {
		t.Fatalf("remove --delete-branch of a branch landed as copies: %v", err)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/copied"); err == nil {
		t.Error("branch copied not deleted")
	}
}
