package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// CommonDir finds the common git directory from the main checkout and from a linked
// worktree's subdirectory, and fails outside a repository.
func TestCommonDir(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat", "--", wt, "main")
	if err := os.Mkdir(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, ctx := s.runner(), context.Background()
	for _, dir := range []string{repo, filepath.Join(wt, "sub")} {
		got, err := r.CommonDir(ctx, dir)
		if err != nil || got != filepath.Join(repo, ".git") {
			t.Errorf("CommonDir(%s) = %q, %v; want %s", dir, got, err, filepath.Join(repo, ".git"))
		}
	}
	if _, err := r.CommonDir(ctx, s.root); err == nil {
		t.Error("CommonDir outside a repository succeeded")
	}
}

func TestConfigValue(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.git(repo, "config", "copse.root", " /src/my worktrees ")
	s.git(repo, "config", "copse.multi", "line one\nline two")
	r, ctx := s.runner(), context.Background()

	for key, want := range map[string]string{"copse.root": " /src/my worktrees ", "copse.multi": "line one\nline two", "COPSE.ROOT": " /src/my worktrees "} {
		if v, ok, err := r.ConfigValue(ctx, repo, key); err != nil || !ok || v != want {
			t.Errorf("%s = %q, %v, %v; want %q", key, v, ok, err, want)
		}
	}
	if v, ok, err := r.ConfigValue(ctx, repo, "copse.backend"); err != nil || ok || v != "" {
		t.Errorf("unset key = %q, %v, %v", v, ok, err)
	}
	// git also exits 1 for a malformed key, but with a message: an error, not "unset".
	_, ok, err := r.ConfigValue(ctx, repo, "copse.bad key")
	if e := asError(t, err, ErrExit); ok || e.ExitCode != 1 || e.Stderr == "" {
		t.Errorf("malformed key: ok=%v err=%v", ok, err)
	}
}

func TestBranchesAndBranchExists(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.git(repo, "branch", "feat/x")
	s.git(repo, "branch", "zeta")
	s.git(repo, "tag", "feat/x") // refname:short would print "heads/feat/x" now
	s.git(repo, "tag", "only-a-tag")
	r, ctx := s.runner(), context.Background()

	got, err := r.Branches(ctx, repo)
	if want := []string{"feat/x", "main", "zeta"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Branches = %q, %v; want %q", got, err, want)
	}
	for branch, want := range map[string]bool{"feat/x": true, "main": true, "feat": false, "only-a-tag": false, "nope": false} {
		if ok, err := r.BranchExists(ctx, repo, branch); err != nil || ok != want {
			t.Errorf("BranchExists(%q) = %v, %v; want %v", branch, ok, err, want)
		}
	}
	var be *BuildError
	if _, err := r.BranchExists(ctx, repo, "-x"); !errors.As(err, &be) {
		t.Errorf("BranchExists(-x): %v", err)
	}
}

func TestResolveBranchNameAndCommit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	head := headOf(s, repo)
	s.git(repo, "switch", "-q", "-c", "feat/x")
	s.git(repo, "switch", "-q", "main")
	s.git(repo, "tag", "-a", "-m", "annotated", "v1")
	r, ctx := s.runner(), context.Background()

	if got, err := r.ResolveBranchName(ctx, repo, "@{-1}"); err != nil || got != "feat/x" {
		t.Errorf("@{-1} = %q, %v", got, err)
	}
	if got, err := r.ResolveBranchName(ctx, repo, "new/branch"); err != nil || got != "new/branch" {
		t.Errorf("new/branch = %q, %v", got, err)
	}
	if _, err := r.ResolveBranchName(ctx, repo, "a..b"); err == nil {
		t.Error("a..b accepted")
	}
	for _, ref := range []string{"main", "v1", "feat/x", head, head[:7]} {
		if got, err := r.ResolveCommit(ctx, repo, ref); err != nil || got != head {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %s", ref, got, err, head)
		}
	}
	_, err := r.ResolveCommit(ctx, repo, "HEAD^{tree}") // not a commit
	asError(t, err, ErrExit)
}

func TestAncestorAndUniqueCommits(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	origin := s.initRepo("origin")
	repo := s.path("repo")
	s.git(s.root, "clone", "-q", origin, repo)
	s.git(repo, "switch", "-q", "-c", "feat")
	s.commit(repo, "f1", "1\n", "f1")
	s.commit(repo, "f2", "2\n", "f2")
	s.git(repo, "switch", "-q", "main")
	r, ctx := s.runner(), context.Background()

	yes, err := r.Ancestor(ctx, repo, "main", "feat")
	no, err2 := r.Ancestor(ctx, repo, "feat", "main")
	if err != nil || err2 != nil || !yes || no {
		t.Fatalf("Ancestor: main<=feat %v (%v), feat<=main %v (%v)", yes, err, no, err2)
	}
	_, err = r.Ancestor(ctx, repo, "main", "no-such-ref")
	asError(t, err, ErrExit) // exit 128 with a message, not "no"

	count := func(branch string) int {
		t.Helper()
		n, err := r.UniqueCommits(ctx, repo, branch)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The two feat commits exist on no other branch or remote. (With
	// --exclude=refs/heads/feat this would be 0: see UniqueCommitCount.)
	if n := count("feat"); n != 2 {
		t.Fatalf("unique commits on feat = %d, want 2", n)
	}
	if n := count("main"); n != 0 {
		t.Fatalf("main is also origin/main: unique = %d, want 0", n)
	}
	s.git(repo, "branch", "feat-copy", "feat")
	if n := count("feat"); n != 0 {
		t.Fatalf("feat-copy holds the commits: unique = %d, want 0", n)
	}
	s.git(repo, "branch", "-D", "feat-copy")
	s.git(repo, "push", "-q", "origin", "feat:refs/heads/feat") // now on origin/feat
	if n := count("feat"); n != 0 {
		t.Fatalf("pushed: unique = %d, want 0", n)
	}
}

// TestMutationsWithRealGit proves this git accepts each mutation's argv,
// including the "--" before user values.
func TestMutationsWithRealGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	head := headOf(s, repo)
	r, ctx := s.runner(), context.Background()
	run := func(c Cmd, err error) error {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Run(ctx, c)
		return err
	}
	wantOK := func(c Cmd, err error) {
		t.Helper()
		if err := run(c, err); err != nil {
			t.Fatal(err)
		}
	}

	newWT, existingWT := s.path("new wt"), s.path("existing")
	wantOK(WorktreeAddNew(repo, newWT, "feat/new", head))
	s.git(repo, "branch", "old")
	wantOK(WorktreeAddExisting(repo, existingWT, "old"))
	list, _, err := r.Worktrees(ctx, repo)
	if err != nil || len(list) != 3 || list[1].Path != existingWT || list[1].Branch != "old" ||
		list[2].Path != newWT || list[2].Branch != "feat/new" || list[2].Head != head {
		t.Fatalf("after add: %s %v", dumpWorktrees(list), err)
	}

	// A locked worktree needs --force twice.
	s.git(repo, "worktree", "lock", "--", existingWT)
	if e := asError(t, run(WorktreeRemove(repo, existingWT, true, false)), ErrExit); !strings.Contains(e.Stderr, "locked") {
		t.Fatalf("single --force on a locked worktree: %v", e)
	}
	wantOK(WorktreeRemove(repo, existingWT, true, true))

	// A dirty worktree needs --force.
	s.write(filepath.Join(newWT, "dirt"), "x\n")
	asError(t, run(WorktreeRemove(repo, newWT, false, false)), ErrExit)
	wantOK(WorktreeRemove(repo, newWT, true, false))

	// -d refuses an unmerged branch; -D deletes it.
	s.git(repo, "switch", "-q", "feat/new")
	s.commit(repo, "f", "f\n", "unmerged")
	s.git(repo, "switch", "-q", "main")
	if e := asError(t, run(BranchDelete(repo, "feat/new", false)), ErrExit); !strings.Contains(e.Stderr, "not fully merged") {
		t.Fatalf("branch -d on an unmerged branch: %v", e)
	}
	wantOK(BranchDelete(repo, "feat/new", true))
	wantOK(BranchDelete(repo, "old", false))
	if b, err := r.Branches(ctx, repo); err != nil || !slices.Equal(b, []string{"main"}) {
		t.Fatalf("branches left: %q, %v", b, err)
	}
}

// CommonDir works in a bare repository too (where --show-toplevel would fail).
func TestCommonDirInBareRepository(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	bare := s.path("repo.git")
	s.git(s.root, "init", "-q", "--bare", bare)
	got, err := s.runner().CommonDir(context.Background(), bare)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(bare)
	if g, _ := filepath.EvalSymlinks(got); g != want {
		t.Fatalf("common dir %q, want %q", got, want)
	}
}

// FilesIncluded lists what the patterns select among the files git does not track, in
// gitignore semantics: a "!" line takes a file back, a tracked file is never listed however
// the patterns name it.
func TestFilesIncluded(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.commit(repo, "tracked.env", "t\n", "tracked")
	s.write(filepath.Join(repo, ".gitignore"), "*.env\n")
	s.write(filepath.Join(repo, "a.env"), "a\n")
	s.write(filepath.Join(repo, "sub", "b.env"), "b\n")
	s.write(filepath.Join(repo, "sub", "keep.env"), "k\n")
	s.write(filepath.Join(repo, "notes.txt"), "n\n")
	r, ctx := s.runner(), context.Background()
	got, err := r.FilesIncluded(ctx, repo, []string{"*.env", "!sub/keep.env", "/notes.txt"})
	slices.Sort(got)
	if want := []string{"a.env", "notes.txt", "sub/b.env"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("FilesIncluded = %q, %v; want %q", got, err, want)
	}
	if _, err := UntrackedIncluded(repo, []string{"two\nlines"}); err == nil {
		t.Fatal("a pattern with a newline was accepted")
	}
}

// ConfigFileValues reads one file only: the repository's own config does not leak in, and
// an include in the file is not followed.
func TestConfigFileValues(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.git(repo, "config", "copse.setup", "from-repo-config")
	other := s.path("other.conf")
	s.write(other, "[copse]\n\tsetup = from-include\n")
	file := filepath.Join(repo, ".copse.conf")
	s.write(file, "[copse]\n\tsetup = one\n\tsetup = two\n[include]\n\tpath = "+other+"\n")
	got, err := s.runner().ConfigFileValues(context.Background(), repo, file, "copse.setup")
	if err != nil || !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("ConfigFileValues = %q, %v; want [one two]", got, err)
	}
}

// A commit whose patch another branch holds (a land's rebased copy) is not unique; an
// empty commit (every empty commit has the same patch id) and a merge commit (no single
// patch) still are, and so is a copy whose change was altered.
func TestUniqueCommitsByPatch(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	r, ctx := s.runner(), context.Background()
	count := func(branch string) int {
		t.Helper()
		n, err := r.UniqueCommits(ctx, repo, branch)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	s.git(repo, "switch", "-q", "-c", "feat")
	s.commit(repo, "a", "a\n", "a")
	s.commit(repo, "b", "b\n", "b")
	s.git(repo, "commit", "-q", "--allow-empty", "-m", "an empty note")
	s.git(repo, "switch", "-q", "-c", "side", "main")
	s.commit(repo, "s", "s\n", "s")
	s.git(repo, "switch", "-q", "-c", "merged", "main")
	s.commit(repo, "m", "m\n", "m")
	s.git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	s.git(repo, "switch", "-q", "main")
	s.commit(repo, "main", "moved on\n", "main moves on")
	if n := count("feat"); n != 3 {
		t.Fatalf("before the copies: feat unique = %d, want 3", n)
	}
	s.git(repo, "cherry-pick", "feat~2", "merged^1")
	s.git(repo, "commit", "-q", "--allow-empty", "-m", "another empty commit")
	s.commit(repo, "b", "b, changed\n", "b, but changed")
	// a is copied; b's copy differs; the empty commit is kept however many empty ones main has.
	if n := count("feat"); n != 2 {
		t.Fatalf("feat unique = %d, want 2 (the changed b, the empty commit)", n)
	}
	// m is copied; the merge commit still counts (side holds s).
	if n := count("merged"); n != 1 {
		t.Fatalf("merged unique = %d, want 1 (the merge commit)", n)
	}
	// An exact copy of b on another branch than main's copy of a counts too.
	s.git(repo, "switch", "-q", "-c", "other", "side")
	s.git(repo, "cherry-pick", "feat~1")
	s.git(repo, "switch", "-q", "main")
	if n := count("feat"); n != 1 {
		t.Fatalf("feat unique = %d, want 1 (the empty commit): a on main, b on other", n)
	}
}

// SetGlobalConfig writes the user's global config and leaves the repository's alone;
// LocalConfigValue sees only the repository's own value.
func TestGlobalAndLocalConfig(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	r, ctx := s.runner(), context.Background()
	if err := r.SetGlobalConfig(ctx, repo, "copse.sort", "recent"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.ConfigValue(ctx, repo, "copse.sort"); err != nil || !ok || v != "recent" {
		t.Fatalf("copse.sort after the global write = %q, %v, %v", v, ok, err)
	}
	if v, ok, err := r.LocalConfigValue(ctx, repo, "copse.sort"); err != nil || ok {
		t.Fatalf("the global write reached the repository's config: %q, %v, %v", v, ok, err)
	}
	s.git(repo, "config", "--local", "copse.sort", "path")
	if v, ok, err := r.LocalConfigValue(ctx, repo, "copse.sort"); err != nil || !ok || v != "path" {
		t.Fatalf("LocalConfigValue = %q, %v, %v; want path", v, ok, err)
	}
	if global := strings.TrimSpace(s.git(repo, "config", "--global", "copse.sort")); global != "recent" {
		t.Fatalf("the global value changed: %q", global)
	}
}
