package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHeldBuildersArgv(t *testing.T) {
	t.Parallel()
	must := func(c Cmd, err error) Cmd {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	o2 := strings.Repeat("b", 40)
	tests := []struct {
		name string
		cmd  Cmd
		want []string
		read bool
	}{
		{"SafetyStatusCmd pins the monitor off", must(SafetyStatusCmd("/wt")),
			[]string{"git", "-C", "/wt", "-c", "core.untrackedCache=false", "-c", "core.fsmonitor=false", "status", "--porcelain=v2", "--branch", "-z",
				"--untracked-files=all", "--ignored=traditional", "--ignore-submodules=none"}, true},
		{"UnkeptCommitsCmd", must(UnkeptCommitsCmd("/wt", []string{oid, o2})),
			[]string{"git", "-C", "/wt", "rev-list", "--ignore-missing", oid, o2, "--not", "--branches", "--tags", "--remotes"}, true},
		{"NewPatchesCmd", must(NewPatchesCmd("/wt", oid, o2)),
			[]string{"git", "-C", "/wt", "rev-list", "--cherry-pick", "--right-only", "--no-merges", oid + "..." + o2}, true},
		{"WorktreeRefsCmd", must(WorktreeRefsCmd("/wt")),
			[]string{"git", "-C", "/wt", "for-each-ref", "--format=%(objectname) %(refname)", "refs/worktree/", "refs/bisect/", "refs/rewritten/"}, true},
		{"RepoTipsCmd", must(RepoTipsCmd("/n")),
			[]string{"git", "-C", "/n", "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/stash"}, true},
		{"UnpushedCountCmd", must(UnpushedCountCmd("/n")),
			[]string{"git", "-C", "/n", "rev-list", "--count", "--all", "--not", "--remotes"}, true},
		{"GitlinksCmd", must(GitlinksCmd("/wt")),
			[]string{"git", "-C", "/wt", "ls-files", "-z", "-s", "--full-name", "--", ":/"}, true},
		{"FetchObjects", must(FetchObjects("/r", "/wt/deps/lib", []string{oid})),
			[]string{"git", "-C", "/r", "-c", "protocol.file.allow=always", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
				"--no-recurse-submodules", "--no-auto-gc", "--", "/wt/deps/lib", oid}, false},
	}
	for _, tc := range tests {
		if got := tc.cmd.Argv(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: argv\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if tc.cmd.read != tc.read {
			t.Errorf("%s: read = %v, want %v", tc.name, tc.cmd.read, tc.read)
		}
	}
	for name, err := range map[string]error{
		"no commits":          second(UnkeptCommitsCmd("/wt", nil)),
		"a commit not an oid": second(UnkeptCommitsCmd("/wt", []string{"HEAD"})),
		"an option as tip":    second(NewPatchesCmd("/wt", oid, "--all")),
		"relative source":     second(FetchObjects("/r", "deps/lib", []string{oid})),
		"fetch nothing":       second(FetchObjects("/r", "/wt/x", nil)),
		"fetch a ref name":    second(FetchObjects("/r", "/wt/x", []string{"refs/heads/main"})),
	} {
		var be *BuildError
		if !errors.As(err, &be) {
			t.Errorf("%s: want a BuildError, got %v", name, err)
		}
	}
}

func TestParseReflog(t *testing.T) {
	t.Parallel()
	z := strings.Repeat("0", 40)
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	log := z + " " + a + " me <m@x> 1 +0000\tclone\n" +
		a + " " + b + " me <m@x> 2 +0000\tcommit: b\n" +
		b + " " + c + " me <m@x> 3 +0000\tcheckout: moving\n" +
		c + " " + a + " me <m@x> 4 +0000\treset: back\n"
	got, err := ParseReflog([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	// Newest first, each once, no zero id.
	if want := []string{a, c, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"nonsense\n", a + " HEAD me 1 +0000\tx\n", a + "\n"} {
		if _, err := ParseReflog([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if got, err := ReflogCommits(filepath.Join(t.TempDir(), "absent")); err != nil || got != nil {
		t.Fatalf("a missing reflog: %q %v", got, err)
	}
}

func TestParseGitlinksAndRefLines(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("a", 40)
	out := "160000 " + a + " 0\tsub/one\x00" + "160000 " + a + " 1\twith space\x00" + "160000 " + a + " 2\twith space\x00"
	got, err := ParseGitlinks([]byte(out))
	if err != nil || !reflect.DeepEqual(got, []string{"sub/one", "with space"}) {
		t.Fatalf("gitlinks %q %v", got, err)
	}
	for _, bad := range []string{"160000 " + a + " 0\tx", "100644 " + a + " 0\tf\x00", "160000 xyz 0\tx\x00"} {
		if _, err := ParseGitlinks([]byte(bad)); err == nil {
			t.Errorf("gitlinks %q parsed", bad)
		}
	}
	refs, err := ParseRefLines([]byte(a + " refs/worktree/keep\n" + a + " refs/bisect/bad\n"))
	if err != nil || len(refs) != 2 || refs[0] != (HeldRef{Name: "refs/worktree/keep", Commit: a}) {
		t.Fatalf("refs %+v %v", refs, err)
	}
	for _, bad := range []string{"x refs/a\n", a + " HEAD\n", a + "\n"} {
		if _, err := ParseRefLines([]byte(bad)); err == nil {
			t.Errorf("ref line %q parsed", bad)
		}
	}
}

// With real git: the per-worktree refs of a linked worktree are its own, the gitlinks
// name the submodules, and FetchObjects brings a commit no ref names into another
// repository without writing a ref there.
func TestHeldReadsRealGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("r")
	s.commit(repo, "f", "x\n", "first")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat", wt)
	c := strings.TrimSpace(s.git(wt, "commit-tree", "-p", "HEAD", "-m", "loose", "HEAD^{tree}"))
	s.git(wt, "update-ref", "refs/worktree/keep", c)
	r := s.runner()
	ctx := context.Background()
	mine, err := r.WorktreeRefs(ctx, wt)
	if err != nil || len(mine) != 1 || mine[0].Name != "refs/worktree/keep" || mine[0].Commit != c {
		t.Fatalf("worktree refs %+v %v", mine, err)
	}
	if main, err := r.WorktreeRefs(ctx, repo); err != nil || len(main) != 0 {
		t.Fatalf("the main checkout sees the linked worktree's refs: %+v %v", main, err)
	}
	unkept, err := r.UnkeptCommits(ctx, wt, []string{c})
	if err != nil || !reflect.DeepEqual(unkept, []string{c}) {
		t.Fatalf("unkept %q %v", unkept, err)
	}
	other := s.initRepo("other")
	refsBefore := s.git(other, "for-each-ref")
	unpushedBefore, err := r.UnpushedCount(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FetchObjects(other, wt, []string{c})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, f); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(s.git(other, "cat-file", "-t", c)); got != "commit" {
		t.Fatalf("fetched object is %q", got)
	}
	if refs := s.git(other, "for-each-ref"); refs != refsBefore {
		t.Fatalf("the fetch wrote refs: %s", refs)
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "FETCH_HEAD")); !os.IsNotExist(err) {
		t.Fatalf("the fetch wrote FETCH_HEAD: %v", err)
	}
	if n, err := r.UnpushedCount(ctx, other); err != nil || n != unpushedBefore || n == 0 {
		t.Fatalf("unpushed %d %v; want %d as before the fetch (its own commits, on no remote; not the fetched object no ref names)", n, err, unpushedBefore)
	}
}

// A long reflog is read whole: its oldest entries are where a forgotten commit hides.
func TestParseReflogReadsEveryEntry(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	z := strings.Repeat("0", 40)
	for i := range 5000 {
		fmt.Fprintf(&b, "%s %040x me <m@x> %d +0000\tcommit\n", z, i+1, i)
	}
	got, err := ParseReflog([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5000 || got[4999] != fmt.Sprintf("%040x", 1) {
		t.Fatalf("read %d commits (oldest %q), want all 5000", len(got), got[len(got)-1])
	}
}

// The per-worktree refs of a worktree whose directory is gone are read from its admin
// directory's files: commits, not symbolic refs; a reftable is not guessed at.
func TestAdminRefs(t *testing.T) {
	t.Parallel()
	admin := t.TempDir()
	a := strings.Repeat("a", 40)
	for p, v := range map[string]string{
		"refs/worktree/keep":    a + "\n",
		"refs/worktree/sub/dir": a + "\n",
		"refs/bisect/bad":       a + "\n",
		"refs/worktree/sym":     "ref: refs/heads/main\n",
		"refs/heads/not-mine":   a + "\n", // not a per-worktree namespace
	} {
		f := filepath.Join(admin, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := AdminRefs(admin)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range refs {
		if r.Commit != a {
			t.Errorf("%s at %q", r.Name, r.Commit)
		}
		names = append(names, r.Name)
	}
	if want := []string{"refs/worktree/keep", "refs/worktree/sub/dir", "refs/bisect/bad"}; !reflect.DeepEqual(names, want) {
		t.Errorf("refs %q, want %q", names, want)
	}
	if err := os.WriteFile(filepath.Join(admin, "refs", "worktree", "bad"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AdminRefs(admin); err == nil {
		t.Error("a ref file that names no commit was read as nothing")
	}
	table := t.TempDir()
	if err := os.Mkdir(filepath.Join(table, "reftable"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := AdminRefs(table); err == nil {
		t.Error("a reftable admin directory was read as holding no refs")
	}
}

// AdminModules finds every submodule repository a worktree's admin directory keeps: one
// whose name has a slash (modules/libs/a) and a submodule's own (…/modules/deep); and
// ModuleUnkeptCount reads them once the checkout is gone (their core.worktree points
// nowhere), counting a commit none of their remotes has.
func TestAdminModulesAndTheirUnkeptCommitsOnceTheCheckoutIsGone(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	inner := s.initRepo("inner")
	outer := s.initRepo("outer")
	s.git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "deep")
	s.git(outer, "commit", "-q", "-m", "add deep")
	repo := s.initRepo("repo")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat", wt)
	s.git(wt, "-c", "protocol.file.allow=always", "submodule", "add", "-q", outer, "libs/a")
	s.git(wt, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q")
	admin := filepath.Join(repo, ".git", "worktrees", "wt")
	got, err := AdminModules(admin)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"modules/libs/a", "modules/libs/a/modules/deep"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("AdminModules = %q, want %q", got, want)
	}
	deep := filepath.Join(admin, "modules", "libs", "a", "modules", "deep")
	c := s.git(filepath.Join(wt, "libs", "a", "deep"), "commit-tree", "-p", "HEAD", "-m", "only here", "HEAD^{tree}")
	s.git(filepath.Join(wt, "libs", "a", "deep"), "update-ref", "refs/heads/side", strings.TrimSpace(c))
	if err := os.Rename(wt, wt+"-moved"); err != nil {
		t.Fatal(err)
	}
	for dir, n := range map[string]int{filepath.Join(admin, "modules", "libs", "a"): 0, deep: 1} {
		got, err := s.runner().ModuleUnkeptCount(context.Background(), dir)
		if err != nil || got != n {
			t.Errorf("ModuleUnkeptCount(%s) = %d, %v; want %d", dir, got, err, n)
		}
	}
	if none, err := AdminModules(s.path("repo", ".git")); err != nil || len(none) != 0 {
		t.Errorf("an admin directory without modules/ holds %q, %v; want none", none, err)
	}
}
