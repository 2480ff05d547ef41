package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/testexec"
)

func TestSnapshotBuildersArgv(t *testing.T) {
	t.Parallel()
	must := func(c Cmd, err error) Cmd {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name string
		cmd  Cmd
		want []string
		env  []string
		read bool
	}{
		{"IndexPath", must(IndexPath("/wt")),
			[]string{"git", "-C", "/wt", "rev-parse", "--path-format=absolute", "--git-path", "index"}, nil, true},
		{"AddAllTo", must(AddAllTo("/wt", "/tmp/i")),
			[]string{"git", "-C", "/wt", "-c", "core.autocrlf=false", "add", "--all", "--", ":/"}, []string{"GIT_INDEX_FILE=/tmp/i"}, false},
		{"AddAllTo skipping", must(AddAllTo("/wt", "/tmp/i", "inner repo/", "a)b/")),
			[]string{"git", "-C", "/wt", "-c", "core.autocrlf=false", "add", "--all", "--", ":/",
				":(top,exclude,literal)inner repo/", ":(top,exclude,literal)a)b/"}, []string{"GIT_INDEX_FILE=/tmp/i"}, false},
		{"NestedRepositories", must(NestedRepositories("/wt")),
			[]string{"git", "-C", "/wt", "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", ":/"}, nil, true},
		{"ClearIndexFlag assume", must(ClearIndexFlag("/wt", "/tmp/i", false, []string{"a b", "-x"})),
			[]string{"git", "-C", "/wt", "update-index", "--no-assume-unchanged", "--", "a b", "-x"}, []string{"GIT_INDEX_FILE=/tmp/i"}, false},
		{"ClearIndexFlag skip", must(ClearIndexFlag("/wt", "/tmp/i", true, []string{"s"})),
			[]string{"git", "-C", "/wt", "update-index", "--no-skip-worktree", "--", "s"}, []string{"GIT_INDEX_FILE=/tmp/i"}, false},
		{"WriteTreeFrom", must(WriteTreeFrom("/wt", "/tmp/i")),
			[]string{"git", "-C", "/wt", "write-tree"}, []string{"GIT_INDEX_FILE=/tmp/i"}, false},
		{"CommitTree", must(CommitTree("/wt", oid, []string{oid, oid}, "msg\nline")),
			[]string{"git", "-C", "/wt", "commit-tree", "--no-gpg-sign", "-p", oid, "-p", oid, "-m", "msg\nline", oid}, snapshotIdentity, false},
		{"CommitTree root", must(CommitTree("/wt", oid, nil, "m")),
			[]string{"git", "-C", "/wt", "commit-tree", "--no-gpg-sign", "-m", "m", oid}, snapshotIdentity, false},
		{"UpdateRefCreate", must(UpdateRefCreate("/r", "refs/copse/removed/abc", oid)),
			[]string{"git", "-C", "/r", "update-ref", "--no-deref", "--", "refs/copse/removed/abc", oid, ""}, nil, false},
		{"UpdateRefDelete", must(UpdateRefDelete("/r", "refs/copse/removed/abc", oid)),
			[]string{"git", "-C", "/r", "update-ref", "--no-deref", "-d", "--", "refs/copse/removed/abc", oid}, nil, false},
		{"RemovedRefs", must(RemovedRefs("/r")),
			[]string{"git", "-C", "/r", "for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00", "refs/copse/removed/"}, nil, true},
		{"DiffTreeNames", must(DiffTreeNames("/r", oid, oid)),
			[]string{"git", "-C", "/r", "diff-tree", "-r", "-z", "--no-renames", "--name-only", oid, oid}, nil, true},
		{"WorktreeAddNoCheckout detached", must(WorktreeAddNoCheckout("/r", "/p", AddDetached, "", oid)),
			[]string{"git", "-C", "/r", "worktree", "add", "--no-checkout", "--detach", "--", "/p", oid}, nil, false},
		{"WorktreeAddNoCheckout new", must(WorktreeAddNoCheckout("/r", "/p", AddNewBranch, "feat/x", oid)),
			[]string{"git", "-C", "/r", "worktree", "add", "--no-checkout", "-b", "feat/x", "--", "/p", oid}, nil, false},
		{"WorktreeAddNoCheckout existing", must(WorktreeAddNoCheckout("/r", "/p", AddExistingRef, "feat/x", oid)),
			[]string{"git", "-C", "/r", "worktree", "add", "--no-checkout", "--", "/p", "feat/x"}, nil, false},
		{"ReadTreeCheckout", must(ReadTreeCheckout("/p", oid)),
			[]string{"git", "-C", "/p", "-c", "core.autocrlf=false", "read-tree", "-m", "-u", oid}, nil, false},
		{"RevParseTree", must(RevParseTree("/p", oid)),
			[]string{"git", "-C", "/p", "rev-parse", "--verify", "--end-of-options", oid + "^{tree}"}, nil, true},
		{"ReadTreeIndex", must(ReadTreeIndex("/p", oid)),
			[]string{"git", "-C", "/p", "read-tree", oid}, nil, false},
	}
	for _, tt := range tests {
		if got := tt.cmd.Argv(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: argv %q, want %q", tt.name, got, tt.want)
		}
		if got := tt.cmd.Env(); !slices.Equal(got, tt.env) {
			t.Errorf("%s: env %q, want %q", tt.name, got, tt.env)
		}
		if tt.cmd.ReadOnly() != tt.read {
			t.Errorf("%s: read-only %v, want %v", tt.name, tt.cmd.ReadOnly(), tt.read)
		}
	}
	if s := must(WriteTreeFrom("/wt", "/tmp/my index")).String(); s != "GIT_INDEX_FILE='/tmp/my index' git -C /wt write-tree" {
		t.Errorf("String with env: %s", s)
	}
}

func TestSnapshotBuildersRefuse(t *testing.T) {
	t.Parallel()
	bad := []struct {
		name string
		err  error
	}{
		{"relative index", second(AddAllTo("/wt", "rel/i"))},
		{"absolute skip", second(AddAllTo("/wt", "/tmp/i", "/abs/"))},
		{"flag without paths", second(ClearIndexFlag("/wt", "/tmp/i", true, nil))},
		{"flag absolute path", second(ClearIndexFlag("/wt", "/tmp/i", false, []string{"/etc/passwd"}))},
		{"empty skip", second(AddAllTo("/wt", "/tmp/i", ""))},
		{"short tree", second(CommitTree("/wt", "abc", nil, "m"))},
		{"bad parent", second(CommitTree("/wt", oid, []string{"HEAD"}, "m"))},
		{"NUL in message", second(CommitTree("/wt", oid, nil, "a\x00b"))},
		{"empty message", second(CommitTree("/wt", oid, nil, ""))},
		{"ref outside refs/", second(UpdateRefCreate("/r", "HEAD", oid))},
		{"ref option", second(UpdateRefCreate("/r", "--stdin", oid))},
		{"ref range", second(UpdateRefDelete("/r", "refs/a..b", oid))},
		{"branch option", second(WorktreeAddNoCheckout("/r", "/p", AddNewBranch, "-f", oid))},
		{"unknown mode", second(WorktreeAddNoCheckout("/r", "/p", 9, "x", oid))},
		{"tree not an oid", second(ReadTreeCheckout("/p", "HEAD"))},
	}
	for _, b := range bad {
		var be *BuildError
		if !errors.As(b.err, &be) {
			t.Errorf("%s: want a BuildError, got %v", b.name, b.err)
		}
	}
}

func second(_ Cmd, err error) error { return err }

// The per-command GIT_INDEX_FILE must reach git even though the Runner drops an
// inherited GIT_INDEX_FILE (which would point at another repository's index). Not
// parallel: the inherited variable is in the process environment (t.Setenv).
func TestCmdEnvWinsOverInheritedRepoEnv(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fake-git")
	if err := testexec.WriteFile(fake, []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_INDEX_FILE", "/elsewhere/index")
	r := &Runner{Bin: fake, Env: []string{"GIT_AUTHOR_NAME=someone"}}
	env := func(c Cmd, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(out), "\n")
	}
	got := env(WriteTreeFrom("/wt", "/tmp/snap.index"))
	if !slices.Contains(got, "GIT_INDEX_FILE=/tmp/snap.index") || slices.Contains(got, "GIT_INDEX_FILE=/elsewhere/index") {
		t.Fatalf("GIT_INDEX_FILE not the command's own: %q", got)
	}
	if got := env(StatusCmd("/wt")); slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "GIT_INDEX_FILE=") }) {
		t.Fatalf("a command without env got GIT_INDEX_FILE: %q", got)
	}
	if got := env(CommitTree("/wt", oid, nil, "m")); !slices.Contains(got, "GIT_AUTHOR_NAME=copse") || slices.Contains(got, "GIT_AUTHOR_NAME=someone") {
		t.Fatalf("commit-tree identity: %q", got)
	}
}

// A worktree's changes survive the round trip through the builders on real git: the
// record is made without touching the worktree's index, and written back byte for byte.
func TestSnapshotRoundTripRealGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.commit(repo, "gone", "will be deleted\n", "add gone")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat", wt)
	s.write(filepath.Join(wt, "README"), "changed\r\n")
	s.git(wt, "add", "README")
	s.write(filepath.Join(wt, "README"), "changed again\r\n")
	s.write(filepath.Join(wt, "new file\nwith newline"), "untracked\n")
	if err := os.Remove(filepath.Join(wt, "gone")); err != nil {
		t.Fatal(err)
	}
	s.git(wt, "config", "core.autocrlf", "true") // must not change the recorded bytes
	r, ctx := s.runner(), context.Background()
	run := func(c Cmd, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(string(out), "\n")
	}
	oidOf := func(c Cmd, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.OutputOID(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	idxCmd, _ := IndexPath(wt)
	idx, err := r.OutputPath(ctx, idxCmd)
	if err != nil {
		t.Fatal(err)
	}
	realIndex, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "snap.index")
	if err := os.WriteFile(tmp, realIndex, 0o600); err != nil {
		t.Fatal(err)
	}
	run(AddAllTo(wt, tmp))
	w := oidOf(WriteTreeFrom(wt, tmp))
	if after, _ := os.ReadFile(idx); string(after) != string(realIndex) {
		t.Fatal("the snapshot wrote the worktree's own index")
	}
	if got := s.git(repo, "ls-tree", "-r", "--name-only", "-z", w); got != "README\x00new file\nwith newline\x00" {
		t.Fatalf("worktree tree lists %q", got)
	}
	head := headOf(s, wt)
	snap := oidOf(CommitTree(wt, w, []string{head}, "copse snapshot\n\nmeta: {}"))
	run(UpdateRefCreate(repo, RemovedRefPrefix+"x1", snap))
	if _, err := r.Run(ctx, must2(t)(UpdateRefCreate(repo, RemovedRefPrefix+"x1", snap))); err == nil {
		t.Fatal("create-only update-ref replaced an existing ref")
	}
	refs, err := r.ListRemoved(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Name != RemovedRefPrefix+"x1" || refs[0].Commit != snap || refs[0].Message != "copse snapshot\n\nmeta: {}\n" {
		t.Fatalf("ListRemoved = %+v", refs)
	}
	headTree := strings.TrimSpace(s.git(repo, "rev-parse", head+"^{tree}"))
	paths, err := r.ChangedPaths(ctx, repo, headTree, w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, []string{"README", "gone", "new file\nwith newline"}) {
		t.Fatalf("changed paths %q", paths)
	}

	s.git(repo, "worktree", "remove", "--force", wt)
	back := s.path("back")
	run(WorktreeAddNoCheckout(repo, back, AddDetached, "", head))
	run(ReadTreeCheckout(back, w))
	for name, want := range map[string]string{"README": "changed again\r\n", "new file\nwith newline": "untracked\n"} {
		if got, err := os.ReadFile(filepath.Join(back, name)); err != nil || string(got) != want {
			t.Errorf("%q = %q (%v), want %q", name, got, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(back, "gone")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted file came back: %v", err)
	}
	run(UpdateRefDelete(repo, RemovedRefPrefix+"x1", snap))
	if refs, _ := r.ListRemoved(ctx, repo); len(refs) != 0 {
		t.Fatalf("ref not deleted: %+v", refs)
	}
}

func must2(t *testing.T) func(Cmd, error) Cmd {
	return func(c Cmd, err error) Cmd {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func TestParseRemovedRefsRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"refs/copse/removed/a\x00" + oid + "\x00msg\x00",          // not terminated
		"refs/heads/a\x00" + oid + "\x00msg\x00\n",                // wrong namespace
		"refs/copse/removed/a\x00nope\x00msg\x00\n",               // not an oid
		"refs/copse/removed/a\x00" + oid + "\x00m\x00extra\x00\n", // extra field
	} {
		if _, err := parseRemovedRefs([]byte(in)); err == nil {
			t.Errorf("accepted %q", in)
		}
	}
	got, err := parseRemovedRefs([]byte("refs/copse/removed/a\x00" + oid + "\x00line\nline2\n\x00\n"))
	if err != nil || len(got) != 1 || got[0].Message != "line\nline2\n" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestNestedRepositoriesAreListedAndSkipped(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	s.git(s.root, "init", "-q", filepath.Join(repo, "empty repo"))
	full := filepath.Join(repo, "deps", "full")
	s.initRepo("repo", "deps", "full")
	s.write(filepath.Join(repo, "deps", "loose"), "untracked\n")
	s.write(filepath.Join(full, "inside"), "not ours\n")
	r, ctx := s.runner(), context.Background()
	nested, err := r.Nested(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nested, []string{"deps/full/", "empty repo/"}) {
		t.Fatalf("nested %q", nested)
	}
	tmp := filepath.Join(t.TempDir(), "i")
	// Without skipping, git refuses the repository that has no commit.
	if _, err := r.Run(ctx, must2(t)(AddAllTo(repo, tmp))); err == nil {
		t.Fatal("git add recorded a repository without a commit")
	}
	os.Remove(tmp)
	if _, err := r.Run(ctx, must2(t)(AddAllTo(repo, tmp, nested...))); err != nil {
		t.Fatal(err)
	}
	w, err := r.OutputOID(ctx, must2(t)(WriteTreeFrom(repo, tmp)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.git(repo, "ls-tree", "-r", "--name-only", "-z", w); got != "README\x00deps/loose\x00" {
		t.Fatalf("tree lists %q", got)
	}
}
