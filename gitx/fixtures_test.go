package gitx

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures in ../testdata/gitx are real output of the installed git,
// captured by TestRegenerateFixtures. Temporary directories are rewritten to
// /src so the files are stable; commit ids are stable because the sandbox
// fixes names and dates.
var regen = flag.Bool("gitx.regen", false, "rewrite ../testdata/gitx fixtures from the installed git")

const fixtureDir = "../testdata/gitx"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtures lists fixture files whose names start with prefix.
func fixtures(t testing.TB, prefix string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(fixtureDir, prefix+"*.z"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no %s*.z fixtures in %s (%v)", prefix, fixtureDir, err)
	}
	return m
}

func TestRegenerateFixtures(t *testing.T) {
	t.Parallel()
	if !*regen {
		t.Skip("run `go test ./gitx -run TestRegenerateFixtures -gitx.regen` to rewrite the fixtures")
	}
	s := newSandbox(t)
	save := func(name string, out []byte) {
		out = bytes.ReplaceAll(out, []byte(s.root), []byte("/src"))
		if err := os.WriteFile(filepath.Join(fixtureDir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wtList := func(dir string) []byte { return []byte(s.git(dir, "worktree", "list", "--porcelain", "-z")) }
	status := func(dir string) []byte { return []byte(s.git(dir, "status", "--porcelain=v2", "--branch", "-z")) }
	if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// ---- worktree lists ----
	app := s.initRepo("app")
	save("worktree-list-main.z", wtList(app))

	wts := s.path("app.worktrees")
	s.git(app, "worktree", "add", "-q", "-b", "feat/x", "--", filepath.Join(wts, "feat-x"), "main")
	s.git(app, "worktree", "add", "-q", "--detach", "--", filepath.Join(wts, "detached"), "main")
	s.git(app, "worktree", "lock", "--", filepath.Join(wts, "detached"))
	s.git(app, "worktree", "add", "-q", "-b", "usb", "--", filepath.Join(wts, "usb"), "main")
	s.git(app, "worktree", "lock", "--reason", "on a USB disk\nunplugged", "--", filepath.Join(wts, "usb"))
	s.git(app, "worktree", "add", "-q", "-b", "gone", "--", filepath.Join(wts, "gone"), "main")
	if err := os.RemoveAll(filepath.Join(wts, "gone")); err != nil {
		t.Fatal(err)
	}
	// A path whose newline would forge a record in the non -z format.
	s.git(app, "worktree", "add", "-q", "-b", "nl", "--", filepath.Join(wts, "nl\nworktree /forged\nbranch refs/heads/evil"), "main")
	save("worktree-list-linked.z", wtList(app))

	s.git(s.root, "clone", "-q", "--bare", app, s.path("bare.git"))
	s.git(s.path("bare.git"), "worktree", "add", "-q", "--", s.path("bare-wt"), "main")
	save("worktree-list-bare.z", wtList(s.path("bare.git")))

	unborn := s.path("unborn")
	s.git(s.root, "init", "-q", "-b", "main", unborn)
	save("worktree-list-unborn.z", wtList(unborn))

	// ---- status ----
	st := s.initRepo("st")
	s.commit(st, "a.txt", "a\n", "a")
	s.commit(st, "b.txt", "b\n", "b")
	save("status-clean.z", status(st))

	s.write(filepath.Join(st, "a.txt"), "a changed, staged\n")
	s.git(st, "add", "a.txt")
	s.write(filepath.Join(st, "a.txt"), "a changed again, unstaged\n") // staged and unstaged: MM
	s.write(filepath.Join(st, "b.txt"), "b changed, unstaged\n")       // .M
	s.write(filepath.Join(st, "new.txt"), "new\n")
	s.git(st, "add", "new.txt") // A.
	s.write(filepath.Join(st, "untracked one.txt"), "u\n")
	s.write(filepath.Join(st, "untracked\nnewline.txt"), "u\n")
	save("status-changes.z", status(st))
	s.git(st, "reset", "-q", "--hard")
	s.git(st, "clean", "-q", "-fd")

	s.git(st, "mv", "a.txt", "renamed a.txt")
	s.git(st, "mv", "b.txt", "renamed\nb.txt")
	save("status-rename.z", status(st))
	s.git(st, "reset", "-q", "--hard")

	s.git(st, "switch", "-q", "-c", "side")
	s.commit(st, "a.txt", "side\n", "side edit")
	s.commit(st, "both.txt", "side\n", "side add")
	s.git(st, "switch", "-q", "main")
	s.commit(st, "a.txt", "main\n", "main edit")
	s.commit(st, "both.txt", "main\n", "main add")
	if out, err := s.gitErr(st, "merge", "side"); err == nil {
		t.Fatalf("merge should conflict:\n%s", out)
	}
	save("status-conflict.z", status(st))
	s.git(st, "merge", "--abort")

	s.git(st, "switch", "-q", "--detach", "HEAD~1")
	save("status-detached.z", status(st))

	origin := s.initRepo("origin")
	clone := s.path("clone")
	s.git(s.root, "clone", "-q", origin, clone)
	s.commit(origin, "o1.txt", "1\n", "origin 1")
	s.commit(origin, "o2.txt", "2\n", "origin 2")
	s.git(clone, "fetch", "-q")
	s.commit(clone, "c1.txt", "1\n", "clone 1")
	save("status-upstream.z", status(clone))

	s.git(origin, "branch", "topic")
	s.git(clone, "fetch", "-q")
	s.git(clone, "switch", "-q", "-c", "topic", "--track", "origin/topic")
	s.git(clone, "update-ref", "-d", "refs/remotes/origin/topic")
	save("status-upstream-gone.z", status(clone))

	s.write(filepath.Join(unborn, "first.txt"), "first\n")
	s.git(unborn, "add", "first.txt")
	save("status-initial.z", status(unborn))

	t.Logf("fixtures written with %s", strings.TrimSpace(s.git(s.root, "version")))
}
