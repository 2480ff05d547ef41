package gitx

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// RecordWorktree on real git: the record commit's tree is the working files as they are on
// disk (untracked and assume-unchanged changes included, a deletion gone), its index
// commit's tree is the index as it was, its parents are HEAD, the index commit, the branch
// tip and the kept commits, the ref is created once, and the worktree's own index is
// never written.
func TestRecordWorktreeRealGit(t *testing.T) {
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.commit(repo, "gone", "will be deleted\n", "add gone")
	s.commit(repo, "quiet", "committed\n", "add quiet")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat", wt)
	head := headOf(s, wt)
	headTree := strings.TrimSpace(s.git(repo, "rev-parse", head+"^{tree}"))
	// A branch tip away from HEAD (as in a rebase) and a commit only the worktree holds.
	s.git(wt, "checkout", "-q", "--detach")
	tip := strings.TrimSpace(s.git(repo, "commit-tree", "-p", head, "-m", "tip", headTree))
	s.git(repo, "update-ref", "refs/heads/feat", tip)
	keep := strings.TrimSpace(s.git(repo, "commit-tree", "-m", "kept", headTree))
	s.write(filepath.Join(wt, "README"), "staged\n")
	s.git(wt, "add", "README")
	s.write(filepath.Join(wt, "README"), "staged, then changed\n")
	s.write(filepath.Join(wt, "new"), "untracked\n")
	if err := os.Remove(filepath.Join(wt, "gone")); err != nil {
		t.Fatal(err)
	}
	s.git(wt, "update-index", "--assume-unchanged", "quiet")
	s.write(filepath.Join(wt, "quiet"), "changed behind git's back\n")
	indexFile := filepath.Join(repo, ".git", "worktrees", "wt", "index")
	before, err := os.ReadFile(indexFile)
	if err != nil {
		t.Fatal(err)
	}

	r, ctx := s.runner(), context.Background()
	var seen RecordedWorktree
	rec, err := r.RecordWorktree(ctx, WorktreeRecord{
		Root: repo, Dir: wt, Head: head, BranchTip: tip, Keep: []string{keep, head},
		IndexMessage: "index of wt",
		Message: func(got RecordedWorktree) (string, error) {
			seen = got
			return "removed wt\n\nmeta: " + got.Worktree + "\n", nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(indexFile); string(after) != string(before) {
		t.Fatal("the record wrote the worktree's own index")
	}
	if got := s.git(repo, "rev-parse", RemovedRefPrefix+rec.ID); strings.TrimSpace(got) != rec.Commit || len(rec.ID) != RemovedIDLen || !strings.HasPrefix(rec.Commit, rec.ID) {
		t.Fatalf("ref %s points at %s, record %+v", rec.ID, got, rec)
	}
	if seen.Worktree != rec.Worktree || seen.Index != rec.Index || seen.IndexCommit != rec.IndexCommit || seen.Files != rec.Files {
		t.Fatalf("the message saw %+v, the record is %+v", seen, rec)
	}
	if got := s.git(repo, "log", "-1", "--format=%B", rec.Commit); got != "removed wt\n\nmeta: "+rec.Worktree+"\n\n" {
		t.Fatalf("record message %q", got)
	}
	if got := strings.Fields(s.git(repo, "log", "-1", "--format=%P", rec.Commit)); strings.Join(got, " ") != strings.Join([]string{head, rec.IndexCommit, tip, keep}, " ") {
		t.Fatalf("record parents %q, want HEAD, index commit, tip, kept", got)
	}
	if got := strings.TrimSpace(s.git(repo, "rev-parse", rec.Commit+"^{tree}")); got != rec.Worktree {
		t.Fatalf("record tree %s, want %s", got, rec.Worktree)
	}
	if got := strings.TrimSpace(s.git(repo, "rev-parse", rec.IndexCommit+"^{tree}")); got != rec.Index {
		t.Fatalf("index commit tree %s, want %s", got, rec.Index)
	}
	for tree, files := range map[string]map[string]string{
		rec.Worktree: {"README": "staged, then changed\n", "new": "untracked\n", "quiet": "changed behind git's back\n"},
		rec.Index:    {"README": "staged\n", "gone": "will be deleted\n", "quiet": "committed\n"},
	} {
		if got, want := s.git(repo, "ls-tree", "-r", "--name-only", "-z", tree), strings.Join(slices.Sorted(maps.Keys(files)), "\x00")+"\x00"; got != want {
			t.Errorf("tree %s lists %q, want %q", tree, got, want)
		}
		for name, want := range files {
			if got := s.git(repo, "cat-file", "blob", tree+":"+name); got != want {
				t.Errorf("%s:%s = %q, want %q", tree, name, got, want)
			}
		}
	}
	// README, new, gone and quiet differ from HEAD; the working files still there count.
	if rec.Files != 4 || rec.Bytes != int64(len("staged, then changed\n")+len("untracked\n")+len("changed behind git's back\n")) {
		t.Fatalf("measured %d files, %d bytes", rec.Files, rec.Bytes)
	}
	if rec.Base != headTree || rec.IndexConflicted {
		t.Fatalf("base %s, conflicted %v", rec.Base, rec.IndexConflicted)
	}

	// The same record again is a new commit (another message), never a replaced ref; one
	// whose commit exists already is refused by the create-only update-ref.
	if _, err := r.RecordWorktree(ctx, WorktreeRecord{Root: repo, Dir: wt, Head: head, BranchTip: tip, Keep: []string{keep},
		IndexMessage: "index of wt", Message: func(RecordedWorktree) (string, error) { return "removed wt\n\nmeta: " + rec.Worktree + "\n", nil }}); err == nil {
		t.Fatal("a second record with the same commit replaced the ref")
	}
}

// A worktree whose directory is gone records HEAD's tree for both trees; an unborn HEAD
// records the empty tree and has no HEAD parent; an index with conflicts records HEAD's
// tree as its index, and says so.
func TestRecordWorktreeMissingUnbornConflicted(t *testing.T) {
	s := newSandbox(t)
	repo := s.initRepo("repo")
	r, ctx := s.runner(), context.Background()
	msg := func(m string) func(RecordedWorktree) (string, error) {
		return func(RecordedWorktree) (string, error) { return m, nil }
	}
	head := headOf(s, repo)
	headTree := strings.TrimSpace(s.git(repo, "rev-parse", head+"^{tree}"))
	gone, err := r.RecordWorktree(ctx, WorktreeRecord{Root: repo, Dir: s.path("nowhere"), Missing: true, Head: head,
		IndexMessage: "index", Message: msg("gone")})
	if err != nil {
		t.Fatal(err)
	}
	if gone.Worktree != headTree || gone.Index != headTree || gone.Files != 0 {
		t.Fatalf("missing directory recorded %+v, want HEAD's tree %s", gone, headTree)
	}

	fresh := s.path("fresh")
	s.git(s.root, "init", "-q", "-b", "main", fresh)
	s.write(filepath.Join(fresh, "first"), "first\n")
	unborn, err := r.RecordWorktree(ctx, WorktreeRecord{Root: fresh, Dir: fresh, IndexMessage: "index", Message: msg("unborn")})
	if err != nil {
		t.Fatal(err)
	}
	empty := strings.TrimSpace(s.git(fresh, "hash-object", "-t", "tree", "/dev/null"))
	if unborn.Base != empty || unborn.Index != empty || unborn.Files != 1 {
		t.Fatalf("unborn recorded %+v, want base and index the empty tree %s", unborn, empty)
	}
	if got := strings.TrimSpace(s.git(fresh, "log", "-1", "--format=%P", unborn.Commit)); got != unborn.IndexCommit {
		t.Fatalf("unborn record parents %q, want only the index commit", got)
	}

	s.git(repo, "checkout", "-q", "-b", "other")
	s.commit(repo, "README", "other\n", "other")
	s.git(repo, "checkout", "-q", "main")
	s.commit(repo, "README", "main\n", "main")
	if out, err := s.gitErr(repo, "merge", "other"); err == nil {
		t.Fatalf("merge did not conflict: %s", out)
	}
	main := headOf(s, repo)
	conflicted, err := r.RecordWorktree(ctx, WorktreeRecord{Root: repo, Dir: repo, Head: main, IndexMessage: "index", Message: msg("conflicted")})
	if err != nil {
		t.Fatal(err)
	}
	if !conflicted.IndexConflicted || conflicted.Index != strings.TrimSpace(s.git(repo, "rev-parse", main+"^{tree}")) {
		t.Fatalf("conflicted index recorded %+v", conflicted)
	}
	if got := s.git(repo, "cat-file", "blob", conflicted.Worktree+":README"); !strings.Contains(got, "<<<<<<<") {
		t.Fatalf("the working file with conflict markers was recorded as %q", got)
	}
}
