package gitx

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLandHelpersAgainstGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	rev := func(dir, ref string) string { return strings.TrimSpace(s.git(dir, "rev-parse", ref)) }
	repo := s.initRepo("repo")
	r := s.runner()
	ctx := context.Background()
	s.commit(repo, "a file.txt", "a\n", "one")
	s.commit(repo, "b.txt", "b\n", "two")
	s.git(repo, "config", "copse.test", "make check")
	s.git(repo, "config", "copse.testTimeout", "90s")
	cfg, err := r.ConfigMatching(ctx, repo, `^copse\.(test|testtimeout|landretries)$`)
	if err != nil || cfg["copse.test"] != "make check" || cfg["copse.testtimeout"] != "90s" || len(cfg) != 2 {
		t.Fatalf("config %v %v", cfg, err)
	}
	none, err := r.ConfigMatching(ctx, repo, `^nothing\.here$`)
	if err != nil || len(none) != 0 {
		t.Fatalf("unset: %v %v", none, err)
	}

	// Dirty paths: a staged rename lists both names; untracked files are listed one by one.
	s.git(repo, "mv", "a file.txt", "renamed file.txt")
	s.write(filepath.Join(repo, "new dir", "x"), "x")
	s.write(filepath.Join(repo, "b.txt"), "changed\n")
	dirty, err := r.DirtyPaths(ctx, repo)
	slices.Sort(dirty)
	want := []string{"a file.txt", "b.txt", "new dir/x", "renamed file.txt"}
	if err != nil || !slices.Equal(dirty, want) {
		t.Fatalf("dirty %q, want %q (%v)", dirty, want, err)
	}
	s.git(repo, "reset", "-q", "--hard")
	s.git(repo, "clean", "-qfd")

	// A conflicting rebase: state files, the busy branch, the conflicted paths.
	s.git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
	s.commit(repo, "b.txt", "side\n", "side")
	head := rev(repo, "HEAD")
	onto := rev(repo, "main")
	c, err := Rebase(repo, onto)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, c); err == nil {
		t.Fatal("rebase should conflict")
	}
	gd, err := WorktreeGitDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ReadRebase(gd)
	if err != nil || rb == nil || rb.HeadName != "refs/heads/side" || rb.OrigHead != head || rb.Onto != onto {
		t.Fatalf("rebase state %+v %v (head %s onto %s)", rb, err, head, onto)
	}
	if op, _ := Operation(gd); op != "rebase" {
		t.Fatalf("operation %q", op)
	}
	if b := BusyBranch(gd); b != "refs/heads/side" {
		t.Fatalf("busy branch %q", b)
	}
	if got, err := r.Conflicted(ctx, repo); err != nil || !slices.Equal(got, []string{"b.txt"}) {
		t.Fatalf("conflicted %q %v", got, err)
	}
	abort, _ := RebaseAbort(repo)
	if _, err := r.Run(ctx, abort); err != nil {
		t.Fatal(err)
	}
	if rb, _ := ReadRebase(gd); rb != nil || rev(repo, "HEAD") != head {
		t.Fatal("abort did not restore the branch")
	}

	// Compare-and-swap: a stale old value is refused.
	main := rev(repo, "main")
	bad, _ := UpdateRefCAS(repo, "main", head, head, "test")
	if _, err := r.Run(ctx, bad); err == nil {
		t.Fatal("a stale CAS succeeded")
	}
	good, _ := UpdateRefCAS(repo, "main", head, main, "test")
	if _, err := r.Run(ctx, good); err != nil || rev(repo, "main") != head {
		t.Fatalf("CAS: %v", err)
	}
	del, _ := DeleteRefCAS(repo, "main", main)
	if _, err := r.Run(ctx, del); err == nil {
		t.Fatal("a stale delete succeeded")
	}
	if _, err := UpdateRefCAS(repo, "main", head, main, "two\nlines"); err == nil {
		t.Fatal("a message with a newline was accepted")
	}
	if _, err := Rebase(repo, "main"); err == nil {
		t.Fatal("rebase onto a name instead of an object id was accepted")
	}
}

func TestLandProofHelpersAgainstGit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	rev := func(dir, ref string) string { return strings.TrimSpace(s.git(dir, "rev-parse", ref)) }
	repo := s.initRepo("repo")
	r := s.runner()
	ctx := context.Background()
	s.commit(repo, "a.txt", "a\n", "base")
	base := rev(repo, "HEAD")
	s.git(repo, "checkout", "-q", "-b", "side")
	s.commit(repo, "s.txt", "s\n", "side")
	s.git(repo, "checkout", "-q", "main")
	s.commit(repo, "m.txt", "m\n", "main")
	s.git(repo, "merge", "-q", "--no-edit", "side")
	merge := rev(repo, "HEAD")

	merges, err := r.MergeCommits(ctx, repo, base, merge)
	if err != nil || !slices.Equal(merges, []string{merge}) {
		t.Fatalf("merges %q, want [%s] (%v)", merges, merge, err)
	}
	if none, err := r.MergeCommits(ctx, repo, base, rev(repo, "side")); err != nil || len(none) != 0 {
		t.Fatalf("merges of a linear range: %q %v", none, err)
	}
	touched, err := r.TouchedPaths(ctx, repo, base, merge)
	slices.Sort(touched)
	if err != nil || !slices.Equal(touched, []string{"m.txt", "s.txt"}) {
		t.Fatalf("touched %q (%v)", touched, err)
	}

	// A clean merge-tree prints the tree a real merge made; a conflicting one says so.
	tree, clean, err := r.MergeTree(ctx, repo, rev(repo, "main~1"), rev(repo, "side"))
	if want, _ := r.TreeOf(ctx, repo, merge); err != nil || !clean || tree != want {
		t.Fatalf("merge-tree %s clean=%v (%v), want tree %s", tree, clean, err, want)
	}
	s.git(repo, "checkout", "-q", "-b", "other", base)
	s.commit(repo, "a.txt", "other\n", "other")
	s.git(repo, "checkout", "-q", "-b", "another", base)
	s.commit(repo, "a.txt", "another\n", "another")
	if _, clean, err := r.MergeTree(ctx, repo, rev(repo, "other"), rev(repo, "another")); err != nil || clean {
		t.Fatalf("a conflicting merge-tree: clean=%v %v", clean, err)
	}

	// reset --keep moves the branch back and its files with it, and refuses (changing
	// nothing) when a local change is in the way.
	c, err := ResetKeep(repo, base)
	if err != nil {
		t.Fatal(err)
	}
	s.write(filepath.Join(repo, "a.txt"), "local\n")
	if _, err := r.Run(ctx, c); err == nil || rev(repo, "HEAD") == base {
		t.Fatalf("reset --keep over a local change: %v", err)
	}
	s.git(repo, "checkout", "-q", "--", "a.txt")
	if _, err := r.Run(ctx, c); err != nil || rev(repo, "HEAD") != base || rev(repo, "another") != base {
		t.Fatalf("reset --keep: %v", err)
	}
	if st := s.git(repo, "status", "--porcelain"); st != "" {
		t.Fatalf("reset --keep left %q", st)
	}
}

func TestChangedAndIgnoredSplitsIgnoredWhateverConfigHides(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("repo")
	r := s.runner()
	ctx := context.Background()
	s.commit(repo, ".gitignore", ".env\nbuild/\n", "ignore")
	s.commit(repo, "t.txt", "t\n", "tracked")
	s.git(repo, "config", "status.showUntrackedFiles", "no")
	s.write(filepath.Join(repo, ".env"), "secret\n")
	s.write(filepath.Join(repo, "build", "deep", "out.o"), "o")
	s.write(filepath.Join(repo, "new.txt"), "n")
	s.write(filepath.Join(repo, "t.txt"), "changed\n")
	dirty, ignored, err := r.ChangedAndIgnored(ctx, repo)
	slices.Sort(dirty)
	slices.Sort(ignored)
	if err != nil || !slices.Equal(dirty, []string{"new.txt", "t.txt"}) || !slices.Equal(ignored, []string{".env", "build/"}) {
		t.Fatalf("dirty %q ignored %q (%v)", dirty, ignored, err)
	}
}

func TestParseStatusWithIgnored(t *testing.T) {
	t.Parallel()
	dirty, ignored, err := ParseStatusWithIgnored([]byte("R  new name\x00old name\x00!! .env\x00?? a b\x00!! build/\x00"))
	if err != nil || !slices.Equal(dirty, []string{"new name", "old name", "a b"}) || !slices.Equal(ignored, []string{".env", "build/"}) {
		t.Fatalf("dirty %q ignored %q (%v)", dirty, ignored, err)
	}
	for _, bad := range []string{"!! x", "R  only\x00", "x\x00"} {
		if _, _, err := ParseStatusWithIgnored([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// ParseStatusEntries reads each kind of porcelain v2 entry with its path (spaces kept, a
// rename's original path joined to its line) and says which have a worktree side.
func TestParseStatusEntries(t *testing.T) {
	t.Parallel()
	oid := strings.Repeat("a", 40)
	out := "# branch.oid " + oid + "\x00# branch.head (detached)\x00" +
		"1 M. N... 100644 100644 100644 " + oid + " " + oid + " staged file.txt\x00" +
		"1 .M N... 100644 100644 100644 " + oid + " " + oid + " edited.txt\x00" +
		"2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 new name\x00old name\x00" +
		"u UU N... 100644 100644 100644 100644 " + oid + " " + oid + " " + oid + " con flict.md\x00" +
		"? untracked dir/\x00"
	head, es, err := ParseStatusEntries([]byte(out))
	if err != nil || head != oid {
		t.Fatalf("head %q, err %v", head, err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Path+map[bool]string{true: " +w", false: ""}[e.WorktreeSide])
	}
	want := []string{"staged file.txt", "edited.txt +w", "new name", "con flict.md +w", "untracked dir/ +w"}
	if !slices.Equal(got, want) || !strings.HasSuffix(es[2].Line, "\x00old name") {
		t.Fatalf("entries %q, want %q (rename line %q)", got, want, es[2].Line)
	}
	if _, _, err := ParseStatusEntries([]byte("1 M. short\x00")); err == nil {
		t.Error("a malformed entry parsed")
	}
}
