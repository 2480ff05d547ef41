package gitx

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseStatusFixtures(t *testing.T) {
	t.Parallel()
	const clean = "757f484108136364edf98f05d894c1341a41817b"
	tests := []struct {
		file string
		want Status
	}{
		// No upstream: HasUpstream false and no ahead/behind.
		{"status-clean.z", Status{OID: clean, Branch: "main"}},
		// a.txt MM (staged+unstaged), b.txt .M, new.txt A., two untracked
		// (one with a space, one with a newline in its name).
		{"status-changes.z", Status{OID: clean, Branch: "main", Staged: 2, Unstaged: 2, Untracked: 2}},
		// Two renames; each '2' entry is followed by its original path, and
		// one new name contains a newline.
		{"status-rename.z", Status{OID: clean, Branch: "main", Staged: 2}},
		{"status-conflict.z", Status{OID: "9c9dbbb1f24c71b3950353c931bfed49ab4220ae", Branch: "main", Conflicted: 2}},
		{"status-detached.z", Status{OID: "3b4bd5fc0e034c3782274098a364ed251f4cd40a"}},
		{"status-upstream.z", Status{OID: "c90d0f6ed634abee2d83f8bf6793514a995c2970", Branch: "main",
			Upstream: "origin/main", HasUpstream: true, Ahead: 1, Behind: 2}},
		// The upstream is configured but its ref is gone: git omits branch.ab.
		{"status-upstream-gone.z", Status{OID: "2a7f73b4b2b3b094f12c5aa7d869d055e71a3d91", Branch: "topic",
			Upstream: "origin/topic", HasUpstream: true}},
		{"status-initial.z", Status{Branch: "main", Staged: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseStatus(readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
			if got.Dirty() != (got.Staged+got.Unstaged+got.Untracked+got.Conflicted > 0) {
				t.Fatalf("Dirty() = %v for %+v", got.Dirty(), got)
			}
		})
	}
}

func TestParseStatusInline(t *testing.T) {
	t.Parallel()
	const head = "# branch.oid (initial)\x00# branch.head main\x00"
	const z40 = "0000000000000000000000000000000000000000"
	one := func(xy, path string) string {
		return "1 " + xy + " N... 100644 100644 100644 " + z40 + " " + z40 + " " + path + "\x00"
	}
	valid := []struct {
		name string
		in   string
		want Status
	}{
		{"ignored entries counted apart", head + "! build/out\x00? x\x00", Status{Branch: "main", Untracked: 1, Ignored: 1, IgnoredSample: []string{"build/out"}}},
		{"directories kept (nested repositories under -uall)", head + "? vendor/lib/\x00! node_modules/pkg/\x00", Status{Branch: "main", Untracked: 1, Ignored: 1,
			IgnoredSample: []string{"node_modules/pkg/"}, UntrackedDirs: []string{"vendor/lib/"}, IgnoredDirs: []string{"node_modules/pkg/"}}},
		{"deleted unstaged", head + one(".D", "gone.txt"), Status{Branch: "main", Unstaged: 1}},
		{"type change staged", head + one("T.", "link"), Status{Branch: "main", Staged: 1}},
		{"path with spaces", head + one("M.", "a b c"), Status{Branch: "main", Staged: 1}},
		{"submodule field", head + "1 .M SC.. 160000 160000 160000 " + z40 + " " + z40 + " sub\x00", Status{Branch: "main", Unstaged: 1}},
		{"unknown header ignored", head + "# stash 3\x00", Status{Branch: "main"}},
		{"ahead only", head + "# branch.upstream o/m\x00# branch.ab +3 -0\x00", Status{Branch: "main", Upstream: "o/m", HasUpstream: true, Ahead: 3}},
	}
	for _, tt := range valid {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatus([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}

	malformed := []struct{ name, in, wantErr string }{
		{"empty", "", "missing branch.oid"},
		{"no branch headers", "? x\x00", "missing branch.oid"},
		{"not -z", "# branch.oid (initial)\n# branch.head main\n", "not NUL-terminated"},
		{"truncated", head + "? x", "not NUL-terminated"},
		{"empty entry", head + "\x00", "empty entry"},
		{"unknown entry type", head + "3 something\x00", "unknown entry"},
		{"rename without original path", head + "2 R. N... 100644 100644 100644 " + z40 + " " + z40 + " R100 new\x00", "lacks its original path"},
		{"rename with empty original path", head + "2 R. N... 100644 100644 100644 " + z40 + " " + z40 + " R100 new\x00\x00", "lacks its original path"},
		{"short ordinary entry", head + "1 M. N... 100644\x00", "malformed entry"},
		{"bad XY", head + one("MX", "p"), "malformed XY"},
		{"one-char XY", "# branch.oid (initial)\x00# branch.head main\x001 M N... 100644 100644 100644 " + z40 + " " + z40 + " p q\x00", "malformed XY"},
		{"bad submodule field", head + "1 M. X... 100644 100644 100644 " + z40 + " " + z40 + " p\x00", "malformed submodule"},
		{"empty untracked path", head + "? \x00", "malformed entry"},
		{"bad oid", "# branch.oid abc\x00# branch.head main\x00", "not an object id"},
		{"repeated header", head + "# branch.head other\x00", "repeated"},
		{"bad ab", head + "# branch.upstream o/m\x00# branch.ab 1 2\x00", "malformed branch.ab"},
		{"negative ab", head + "# branch.upstream o/m\x00# branch.ab +-1 -2\x00", "malformed branch.ab"},
		{"ab without upstream", head + "# branch.ab +1 -2\x00", "without branch.upstream"},
		{"header without value", head + "# branch.upstream\x00", "malformed header"},
		{"hash without space", head + "#x y\x00", "malformed header"},
	}
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatus([]byte(tt.in))
			if err == nil {
				t.Fatalf("want error containing %q, got %+v", tt.wantErr, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func FuzzParseStatus(f *testing.F) {
	for _, p := range fixtures(f, "status-") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("# branch.oid (initial)\x00# branch.head main\x00! x\x00u UU N... 1 2 3 4 a b c p\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStatus(b)
		if err != nil {
			return
		}
		// Every counted entry used at least one NUL-terminated field.
		n := s.Staged + s.Unstaged + s.Untracked + s.Conflicted
		if s.Staged < 0 || s.Unstaged < 0 || s.Untracked < 0 || s.Conflicted < 0 || s.Ahead < 0 || s.Behind < 0 {
			t.Fatalf("negative count: %+v", s)
		}
		if n > 2*strings.Count(string(b), "\x00") {
			t.Fatalf("more entries than fields: %+v", s)
		}
		if s.Dirty() != (n > 0) {
			t.Fatalf("Dirty() = %v for %+v", s.Dirty(), s)
		}
		if s.OID != "" && !isOID(s.OID) {
			t.Fatalf("OID %q", s.OID)
		}
		if !s.HasUpstream && (s.Upstream != "" || s.Ahead != 0 || s.Behind != 0) {
			t.Fatalf("upstream data without an upstream: %+v", s)
		}
		if s.Rebasing || s.Merging {
			t.Fatalf("ParseStatus must not set Rebasing/Merging: %+v", s)
		}
	})
}

// conflictingBranches makes branches "ours" and "theirs" that both change
// README, so merging or rebasing one onto the other stops with a conflict.
func conflictingBranches(s *sandbox, repo string) {
	s.git(repo, "branch", "theirs")
	s.git(repo, "switch", "-q", "-c", "ours")
	s.commit(repo, "README", "ours\n", "ours")
	s.git(repo, "switch", "-q", "theirs")
	s.commit(repo, "README", "theirs\n", "theirs")
	s.git(repo, "switch", "-q", "main")
}

func TestRunnerStatusMerging(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	conflictingBranches(s, repo)
	r := s.runner()
	ctx := context.Background()

	st, err := r.Status(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirty() || st.Merging || st.Rebasing {
		t.Fatalf("fresh repo: %+v", st)
	}

	s.git(repo, "switch", "-q", "ours")
	if out, err := s.gitErr(repo, "merge", "theirs"); err == nil {
		t.Fatalf("merge should conflict:\n%s", out)
	}
	st, err = r.Status(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Merging || st.Rebasing || st.Conflicted != 1 || st.Branch != "ours" || !st.Dirty() {
		t.Fatalf("mid-merge: %+v", st)
	}
	// From a subdirectory the git directory is found by walking up.
	if err := os.Mkdir(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, err = r.Status(ctx, filepath.Join(repo, "sub")); err != nil || !st.Merging {
		t.Fatalf("from a subdirectory: %+v, %v", st, err)
	}
}

// TestRunnerStatusRebasing rebases in a linked worktree, whose .git is a
// "gitdir:" file: the marker lives in .git/worktrees/<name>/, and the main
// worktree must not report it.
func TestRunnerStatusRebasing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	conflictingBranches(s, repo)
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "--", wt, "ours")
	if out, err := s.gitErr(wt, "rebase", "theirs"); err == nil {
		t.Fatalf("rebase should conflict:\n%s", out)
	}
	r := s.runner()
	ctx := context.Background()

	st, err := r.Status(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Rebasing || st.Merging || st.Conflicted != 1 || st.Branch != "" {
		t.Fatalf("mid-rebase (detached during rebase): %+v", st)
	}
	if st, err = r.Status(ctx, repo); err != nil || st.Rebasing || st.Merging || st.Dirty() {
		t.Fatalf("main worktree: %+v, %v", st, err)
	}
	// StatusIn without a known state reads it as Status does; with one it takes it as given
	// (the caller read it just before) and reads nothing of the git directory.
	for _, dir := range []string{wt, repo} {
		want, err := r.Status(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.StatusIn(ctx, dir, nil); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("StatusIn(%s, nil) = %+v, %v; Status says %+v", dir, got, err, want)
		}
	}
	known := &GitDirState{Dir: filepath.Join(repo, ".git"), Merging: true}
	if st, err = r.StatusIn(ctx, wt, known); err != nil || st.Rebasing || !st.Merging {
		t.Fatalf("StatusIn with a known state: %+v, %v (did it read the git directory again?)", st, err)
	}
}

func TestWorktreeGitDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, ".git"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("gitdir: ../main/.git/worktrees/x\n")
	if got, err := worktreeGitDir(dir); err != nil || got != filepath.Join(filepath.Dir(dir), "main/.git/worktrees/x") {
		t.Fatalf("relative gitdir: %q, %v", got, err)
	}
	write("gitdir: /abs/.git/worktrees/y\r\n")
	if got, err := worktreeGitDir(dir); err != nil || got != "/abs/.git/worktrees/y" {
		t.Fatalf("absolute gitdir: %q, %v", got, err)
	}
	write("not a gitfile\n")
	if _, err := worktreeGitDir(dir); err == nil {
		t.Fatal("garbage .git file accepted")
	}
}
