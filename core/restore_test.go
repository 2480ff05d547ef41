package core_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// treeState is every file under dir but .git, byte for byte: mode, and content or link
// target. It is what a restore must give back.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%q symlink -> %q", rel, tgt))
		case fi.IsDir():
			lines = append(lines, fmt.Sprintf("%q dir", rel))
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%q %v %q", rel, fi.Mode().Perm(), b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// gitState is what git says about a worktree's index and changes.
func gitState(r *coretest.Repo, dir string) string {
	return strings.Join([]string{
		r.Git(dir, "ls-files", "-s", "-z"),
		r.Git(dir, "diff", "--cached", "--binary"),
		r.Git(dir, "diff", "--binary"),
		r.Git(dir, "status", "--porcelain=v1", "-z", "--untracked-files=all"),
		r.Git(dir, "rev-parse", "HEAD"),
		r.Git(dir, "symbolic-ref", "-q", "--short", "HEAD"),
	}, "\n--\n")
}

func removedRefs(r *coretest.Repo) string {
	return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/")
}

// dirtyWorktree makes a worktree on branch with every kind of change git can hold.
func dirtyWorktree(t *testing.T, r *coretest.Repo, branch, name string) string {
	t.Helper()
	r.Write("mod", "one\n")
	r.Write("gone", "to delete\n")
	r.Write("staged-gone", "to git rm\n")
	r.Write("tool", "#!/bin/sh\n")
	r.Write(".gitignore", ".env\n")
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "files")
	wt := r.AddWorktree(branch, name)
	w := func(rel, content string) { coretest.WriteFile(t, filepath.Join(wt, rel), content) }
	w("mod", "one\nstaged line\n")
	r.Git(wt, "add", "mod")
	w("mod", "one\nstaged line\nunstaged line\n")
	w("new-staged", "staged new file\n")
	r.Git(wt, "add", "new-staged")
	w("untracked file with spaces\nand a newline", "untracked\x00binary\xff\n")
	w("deep/dir/untracked", "deep\n")
	w(".env", "SECRET=ignored\n")
	if err := os.Remove(filepath.Join(wt, "gone")); err != nil {
		t.Fatal(err)
	}
	r.Git(wt, "rm", "-q", "staged-gone")
	if err := os.Chmod(filepath.Join(wt, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mod", filepath.Join(wt, "link")); err != nil {
		t.Fatal(err)
	}
	return wt
}

func TestForcedRemoveRestoresWorktreeByteForByte(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := dirtyWorktree(t, r, "feat/undo", "undo")
	files, state := treeState(t, wt), gitState(r, wt)
	s := open(t, r, r.Root)

	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.RestoreID == "" {
		t.Fatal("a forced remove of a dirty worktree gave no restore id")
	}
	if _, err := os.Lstat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if got := removedRefs(r); got != "refs/copse/removed/"+out.RestoreID {
		t.Fatalf("refs: %q", got)
	}

	plan, err := s.Prepare(context.Background(), core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Confirm != nil {
		t.Fatalf("a restore to its own free path asked: %v", plan.Confirm.Line())
	}
	back, err := s.Execute(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if back.Path != wt || back.Worktree.Branch != "feat/undo" || back.Restored == nil || back.Restored.ID != out.RestoreID {
		t.Fatalf("restored %+v", back)
	}
	// Ignored files are not recorded (git would not keep them either): the one difference.
	wantFiles := strings.Join(removeLine(strings.Split(files, "\n"), `".env"`), "\n")
	if got := treeState(t, wt); got != wantFiles {
		t.Fatalf("files differ:\nbefore:\n%s\nafter:\n%s", wantFiles, got)
	}
	if got := gitState(r, wt); got != state {
		t.Fatalf("git state differs:\nbefore:\n%s\nafter:\n%s", state, got)
	}
	if got := removedRefs(r); got != "" {
		t.Fatalf("the record was kept after a verified restore: %q", got)
	}
	if l := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(l, "worktree "+wt+"\n") {
		t.Fatalf("git does not list the restored worktree:\n%s", l)
	}
}

func removeLine(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix+" ") {
			out = append(out, l)
		}
	}
	return out
}

func TestRemoveWithoutForceRecordsNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/clean", "clean")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	if err != nil {
		t.Fatal(err)
	}
	if out.RestoreID != "" || removedRefs(r) != "" {
		t.Fatalf("a plain remove of a clean worktree made a record: %q %q", out.RestoreID, removedRefs(r))
	}
}

func TestDeletedBranchIsRestored(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/gone", "gone")
	coretest.WriteFile(t, filepath.Join(wt, "work"), "committed on the branch\n")
	r.Git(wt, "add", "work")
	r.Git(wt, "commit", "-q", "-m", "unique work")
	tip := r.Git(wt, "rev-parse", "HEAD")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat/gone"), DeleteBranch: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if !out.BranchDeleted || out.RestoreID == "" {
		t.Fatalf("remove: %+v", out)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/feat/gone"); err == nil {
		t.Fatal("the branch was not deleted")
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if back.Worktree.Branch != "feat/gone" || back.Worktree.Head != tip {
		t.Fatalf("restored %+v, want feat/gone at %s", back.Worktree, tip)
	}
	if got := r.Git(r.Root, "rev-parse", "refs/heads/feat/gone"); got != tip {
		t.Fatalf("branch recreated at %s, want %s", got, tip)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "work")); string(got) != "committed on the branch\n" {
		t.Fatalf("work = %q", got)
	}
}

func TestRestoreDetachedWhenBranchIsTakenOrMoved(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/y", "y")
	coretest.WriteFile(t, filepath.Join(wt, "draft"), "draft\n")
	head := r.Git(wt, "rev-parse", "HEAD")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile someone checks the branch out elsewhere.
	other := filepath.Join(r.Base, "other")
	r.Git(r.Root, "worktree", "add", "-q", other, "feat/y")
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Worktree.Detached || back.Worktree.Head != head || back.Worktree.Branch != "" {
		t.Fatalf("restored %+v, want detached at %s", back.Worktree, head)
	}
	if !strings.Contains(strings.Join(back.Warnings, "\n"), "checked out at "+other) {
		t.Fatalf("warnings do not say why it is detached: %q", back.Warnings)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "draft")); string(got) != "draft\n" {
		t.Fatalf("draft = %q", got)
	}

	// The branch moved on (and is free): restoring on it would not be what was removed.
	wt2 := r.AddWorktree("feat/w", "w")
	coretest.WriteFile(t, filepath.Join(wt2, "draft"), "draft\n")
	out, err = do(t, s, core.RemoveRequest{Path: core.Str(wt2), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Write("README.md", "moves main\n")
	r.Git(r.Root, "commit", "-q", "-am", "moves main")
	r.Git(r.Root, "branch", "-f", "feat/w", "main")
	back, err = do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Worktree.Detached || back.Worktree.Head != head || !strings.Contains(strings.Join(back.Warnings, "\n"), "has moved") {
		t.Fatalf("restored %+v %q, want detached at %s because the branch moved", back.Worktree, back.Warnings, head)
	}
	if got := r.Git(r.Root, "rev-parse", "feat/w"); got == head {
		t.Fatal("the restore moved the branch back")
	}
}

func TestRestoreListShowsAgeAndSize(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", "a")
	b := r.AddWorktree("feat/b", "b")
	coretest.WriteFile(t, filepath.Join(a, "five"), "12345")
	coretest.WriteFile(t, filepath.Join(b, "x"), "1234567890")
	coretest.WriteFile(t, filepath.Join(b, "y"), "12")
	r.Write("README.md", "changed in main only\n") // never part of a record
	s := open(t, r, r.Root)
	outA, err := do(t, s, core.RemoveRequest{Path: core.Str(a), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	outB, err := do(t, s, core.RemoveRequest{Path: core.Str(b), Force: true, DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	list, err := do(t, s, core.RestoreRequest{List: true})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := list.Result().(*core.RemovedListing)
	if !ok {
		t.Fatalf("list result is %T", list.Result())
	}
	if len(l.Removed) != 2 || l.Removed[0].ID != outB.RestoreID || l.Removed[1].ID != outA.RestoreID {
		t.Fatalf("entries %+v", l.Removed)
	}
	eb, ea := l.Removed[0], l.Removed[1]
	if eb.Files != 2 || eb.Bytes != 12 || eb.Branch != "feat/b" || !eb.BranchDeleted || eb.Path != b {
		t.Fatalf("entry b %+v", eb)
	}
	if ea.Files != 1 || ea.Bytes != 5 || ea.BranchDeleted {
		t.Fatalf("entry a %+v", ea)
	}
	if age := time.Since(ea.Time); age < 0 || age > time.Minute || ea.Expires.Sub(ea.Time) != 14*24*time.Hour || l.Keep != "14d" {
		t.Fatalf("time %v expires %v keep %s", ea.Time, ea.Expires, l.Keep)
	}
	// No id restores the most recent one.
	back, err := do(t, s, core.RestoreRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Restored.ID != outB.RestoreID {
		t.Fatalf("restored %s, want the newest %s", back.Restored.ID, outB.RestoreID)
	}
}

func TestRestoreRefusalsChangeNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/z", "z")
	coretest.WriteFile(t, filepath.Join(wt, "keep"), "keep me\n")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(wt, "squatter"), "someone else's\n")
	id := out.RestoreID
	inside := filepath.Join(r.Root, "nested")
	cases := []struct {
		name string
		req  core.RestoreRequest
		kind core.Kind
		code string
	}{
		{"original path taken", core.RestoreRequest{ID: &id}, core.KindRefused, "original_path_taken"},
		{"path inside a worktree", core.RestoreRequest{ID: &id, Path: &inside}, core.KindUsage, "path_inside_worktree"},
		{"unknown id", core.RestoreRequest{ID: core.Str("abcdef012345")}, core.KindRefused, "no_such_removed"},
		{"not an id", core.RestoreRequest{ID: core.Str("feat/z")}, core.KindUsage, "invalid_id"},
		{"relative path", core.RestoreRequest{ID: &id, Path: core.Str("rel")}, core.KindUsage, "relative_path"},
		{"list with id", core.RestoreRequest{ID: &id, List: true}, core.KindUsage, "list_with_id"},
		{"stale token", core.RestoreRequest{ID: &id, Path: core.Str(filepath.Join(r.Base, "free")), ExpectedStateToken: core.Str("0123456789abcdef01234567")}, core.KindRefused, "stale_state"},
		{"malformed token", core.RestoreRequest{ID: &id, ExpectedStateToken: core.Str("0123")}, core.KindUsage, "bad_state_token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := r.Snapshot()
			_, err := do(t, s, c.req)
			wantCode(t, err, c.kind, c.code)
			r.Unchanged(before)
		})
	}
	_, err = do(t, s, core.RestoreRequest{ID: &id})
	if e := core.AsError(err); !strings.Contains(e.Hint, "`copse restore "+id+" --path") || !strings.Contains(e.Message, wt) {
		t.Fatalf("refusal must name the path and the way out: %v", err)
	}
	// Elsewhere, with --path: asks first, then restores.
	dest := filepath.Join(r.Base, "elsewhere")
	plan, err := s.Prepare(context.Background(), core.RestoreRequest{ID: &id, Path: &dest})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Confirm == nil || !strings.Contains(plan.Confirm.Line(), dest) {
		t.Fatalf("restore with --path must ask: %+v", plan.Confirm)
	}
	before := r.Snapshot()
	_, err = s.Do(context.Background(), core.RestoreRequest{ID: &id, Path: &dest}, false)
	wantCode(t, err, core.KindRefused, "needs_approval")
	r.Unchanged(before)
	if _, err := s.Execute(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "keep")); string(got) != "keep me\n" {
		t.Fatalf("keep = %q", got)
	}
}

// A remove that cannot record what it would delete deletes nothing.
// Not parallel: the record's temporary directory comes from the process's TMPDIR
// (os.MkdirTemp), which only t.Setenv can point elsewhere.
func TestSnapshotFailureRemovesNothing(t *testing.T) {
	r := coretest.New(t)
	wt := r.AddWorktree("feat/nowhere", "nowhere")
	coretest.WriteFile(t, filepath.Join(wt, "work"), "uncommitted\n")
	s := open(t, r, r.Root)
	// The record is made with temporary index files; with nowhere to put them it fails.
	t.Setenv("TMPDIR", filepath.Join(r.Base, "no-such-dir"))
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindFailed, "snapshot_failed")
	if e := core.AsError(err); !strings.Contains(e.Message, "nothing was removed") || !strings.Contains(e.Message, wt) {
		t.Fatalf("message: %s", e.Message)
	}
	r.Unchanged(before)
	if removedRefs(r) != "" {
		t.Fatal("a failed snapshot left a record")
	}
}

// Nested repositories cannot be recorded (git would keep only their commit id): the
// record leaves them out and says so, and everything else still comes back.
func TestSnapshotSkipsNestedRepositories(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/nest", "nest")
	coretest.WriteFile(t, filepath.Join(wt, "work"), "uncommitted\n")
	r.Git(r.Base, "init", "-q", filepath.Join(wt, "empty repo"))
	full := filepath.Join(wt, "deps", "full")
	r.Git(r.Base, "init", "-q", full)
	coretest.WriteFile(t, filepath.Join(full, "x"), "x\n")
	r.Git(full, "add", "x")
	r.Git(full, "commit", "-q", "-m", "x")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(back.Restored.NotRecorded, ","); got != "deps/full/,empty repo/" {
		t.Fatalf("not recorded: %q", got)
	}
	if w := strings.Join(back.Warnings, "\n"); !strings.Contains(w, "2 nested repositories") || !strings.Contains(w, "empty repo/") {
		t.Fatalf("warnings: %q", back.Warnings)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "work")); string(got) != "uncommitted\n" {
		t.Fatalf("work = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(wt, "deps", "full")); !os.IsNotExist(err) {
		t.Fatalf("a nested repository came back as something: %v", err)
	}
}

// A record with an index in conflict comes back with HEAD's tree as index and the files
// (conflict markers included) as they were.
func TestSnapshotOfConflictedWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/c", "c")
	coretest.WriteFile(t, filepath.Join(wt, "README.md"), "ours\n")
	r.Git(wt, "commit", "-q", "-am", "ours")
	r.Write("README.md", "theirs\n")
	r.Git(r.Root, "commit", "-q", "-am", "theirs")
	if _, err := r.TryGit(wt, "merge", "-q", "main"); err == nil {
		t.Fatal("expected a conflict")
	}
	conflicted, _ := os.ReadFile(filepath.Join(wt, "README.md"))
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Restored.IndexConflicted || !strings.Contains(strings.Join(back.Warnings, "\n"), "conflicts") {
		t.Fatalf("restored %+v %q", back.Restored, back.Warnings)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "README.md")); string(got) != string(conflicted) {
		t.Fatalf("README.md = %q, want %q", got, conflicted)
	}
}

// A worktree whose directory is already gone still has a branch to lose: the record
// keeps the branch tip, and restore checks it out again.
func TestPrunableWorktreeWithDeletedBranchComesBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/p", "p")
	coretest.WriteFile(t, filepath.Join(wt, "done"), "committed\n")
	r.Git(wt, "add", "done")
	r.Git(wt, "commit", "-q", "-m", "work")
	tip := r.Git(wt, "rev-parse", "HEAD")
	if err := os.RemoveAll(wt); err != nil {
		t.Fatal(err)
	}
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat/p"), DeleteBranch: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.RestoreID == "" {
		t.Fatal("deleting a branch with unique commits made no record")
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Restored.DirMissing || back.Worktree.Branch != "feat/p" || back.Worktree.Head != tip {
		t.Fatalf("restored %+v from %+v", back.Worktree, back.Restored)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "done")); string(got) != "committed\n" {
		t.Fatalf("done = %q", got)
	}
}

// Commits only a detached HEAD held survive a forced remove and git's garbage collection:
// the record reaches them.
func TestDetachedCommitsSurviveGC(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := filepath.Join(r.Base, "det")
	r.Git(r.Root, "worktree", "add", "-q", "--detach", wt)
	coretest.WriteFile(t, filepath.Join(wt, "agent"), "an agent committed without a branch\n")
	r.Git(wt, "add", "agent")
	r.Git(wt, "commit", "-q", "-m", "orphaned work")
	head := r.Git(wt, "rev-parse", "HEAD")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "reflog", "expire", "--expire=now", "--all")
	r.Git(r.Root, "gc", "-q", "--prune=now")
	if _, err := r.TryGit(r.Root, "cat-file", "-e", head+"^{commit}"); err != nil {
		t.Fatalf("gc removed the commit the record holds: %v", err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Worktree.Detached || back.Worktree.Head != head {
		t.Fatalf("restored %+v", back.Worktree)
	}
}

// git lists a worktree whose path holds a newline; its record comes back there too.
func TestRestoreToPathWithNewline(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/nl", "odd\nname")
	coretest.WriteFile(t, filepath.Join(wt, "f"), "x\n")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat/nl"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if back.Path != wt || back.Worktree.Branch != "feat/nl" {
		t.Fatalf("restored %+v", back.Worktree)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "f")); string(got) != "x\n" {
		t.Fatalf("f = %q", got)
	}
}

// Files git is told not to look at (assume-unchanged, skip-worktree) still come back as
// they were on disk: changed, or absent.
func TestRestoreKeepsFlaggedFiles(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Write("assumed", "index version\n")
	r.Write("sparse", "not checked out\n")
	r.Write("skipped", "index version\n")
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "flagged files")
	wt := r.AddWorktree("feat/flags", "flags")
	r.Git(wt, "update-index", "--assume-unchanged", "assumed")
	r.Git(wt, "update-index", "--skip-worktree", "sparse", "skipped")
	coretest.WriteFile(t, filepath.Join(wt, "assumed"), "changed behind git's back\n")
	coretest.WriteFile(t, filepath.Join(wt, "skipped"), "changed too\n")
	if err := os.Remove(filepath.Join(wt, "sparse")); err != nil {
		t.Fatal(err)
	}
	if st := r.Git(wt, "status", "--porcelain"); st != "" {
		t.Fatalf("setup: git status should see nothing, got %q", st)
	}
	files, index := treeState(t, wt), r.Git(wt, "ls-files", "-s", "-z")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)}); err != nil {
		t.Fatal(err)
	}
	if got := treeState(t, wt); got != files {
		t.Fatalf("files differ:\nbefore:\n%s\nafter:\n%s", files, got)
	}
	if got := r.Git(wt, "ls-files", "-s", "-z"); got != index {
		t.Fatalf("index differs:\nbefore:\n%q\nafter:\n%q", index, got)
	}
}

// A worktree stopped mid-rebase is listed under its branch while HEAD is elsewhere: a
// forced remove with --delete-branch records both, and restore brings the branch back at
// its tip and the worktree detached at HEAD, conflict markers and all.
func TestRestoreMidRebaseWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/rb", "rb")
	coretest.WriteFile(t, filepath.Join(wt, "README.md"), "ours\n")
	r.Git(wt, "commit", "-q", "-am", "ours")
	tip := r.Git(wt, "rev-parse", "HEAD")
	r.Write("README.md", "theirs\n")
	r.Git(r.Root, "commit", "-q", "-am", "theirs")
	if _, err := r.TryGit(wt, "rebase", "main"); err == nil {
		t.Fatal("expected a conflict")
	}
	head := r.Git(wt, "rev-parse", "HEAD")
	files := treeState(t, wt)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat/rb"), Force: true, DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Worktree.Detached || back.Worktree.Head != head {
		t.Fatalf("restored %+v, want detached at %s", back.Worktree, head)
	}
	if got := r.Git(r.Root, "rev-parse", "refs/heads/feat/rb"); got != tip {
		t.Fatalf("branch at %s, want %s", got, tip)
	}
	if got := treeState(t, wt); got != files {
		t.Fatalf("files differ:\nbefore:\n%s\nafter:\n%s", files, got)
	}
}

// A restore brings back no ignored file, so the .env that .worktreeinclude copied at
// create is not back: the result says so and names copse setup (for that very path), which
// copies it again. A repository that copies nothing gets no such warning.
func TestRestoreSaysTheIncludedFilesAreNotBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	plain, err := do(t, s, core.CreateRequest{Branch: "feat/plain"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := do(t, s, core.RemoveRequest{Path: core.Str(plain.Path), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(gone.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range back.Warnings {
		if strings.Contains(w, "copse setup") {
			t.Fatalf("a repository that copies nothing is told to copy again: %q", back.Warnings)
		}
	}

	coretest.WriteFile(t, filepath.Join(r.Root, ".gitignore"), ".env\n")
	coretest.WriteFile(t, filepath.Join(r.Root, ".worktreeinclude"), ".env\n")
	r.Git(r.Root, "add", ".gitignore", ".worktreeinclude")
	r.Git(r.Root, "commit", "-q", "-m", "copy .env into new worktrees")
	coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=1\n")
	out, err := do(t, s, core.CreateRequest{Branch: "feat/env"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SetupConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Setup(context.Background(), out.Path, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out.Path, ".env")); err != nil {
		t.Fatalf("create did not copy .env: %v", err)
	}
	gone, err = do(t, s, core.RemoveRequest{Path: core.Str(out.Path), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err = do(t, s, core.RestoreRequest{ID: core.Str(gone.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out.Path, ".env")); !os.IsNotExist(err) {
		t.Fatalf("the test assumes a restore leaves ignored files out, but .env: %v", err)
	}
	w := strings.Join(back.Warnings, "\n")
	if !strings.Contains(w, "ignored files are not restored") || !strings.Contains(w, ".worktreeinclude") || !strings.Contains(w, "`copse setup "+out.Path+"`") {
		t.Fatalf("the restore does not say the copied files are not back: %q", back.Warnings)
	}
}
