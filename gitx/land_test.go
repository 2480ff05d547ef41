package gitx

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLandHelpersAgainstGit(t *testing.T) {
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
