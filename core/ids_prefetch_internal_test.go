package core

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// The guess must name the common dir git uses, from every place copse may start, and
// give up ("") where the layout is not a plain one, so that list asks git instead.
func TestGuessCommonDir(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	common := filepath.Join(r.Root, ".git")
	wt := r.AddWorktree("feat", filepath.Join(r.Base, "wt", "feat"))
	if err := os.MkdirAll(filepath.Join(wt, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.Root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(r.Base, "bare.git")
	r.Git(r.Base, "clone", "-q", "--bare", r.Root, bare)
	sep := filepath.Join(r.Base, "sep")
	sepGit := filepath.Join(r.Base, "sep-git")
	r.Git(r.Base, "init", "-q", "--separate-git-dir", sepGit, sep)

	for _, c := range []struct{ dir, want string }{
		{r.Root, common},
		{filepath.Join(r.Root, "src"), common},
		{wt, common},
		{filepath.Join(wt, "sub", "deeper"), common},
		{sep, sepGit},
		{bare, ""},
		{common, ""},
		{r.Base, ""},
	} {
		if got := guessCommonDir(c.dir); got != c.want {
			t.Errorf("guessCommonDir(%s) = %q, want %q", c.dir, got, c.want)
		}
		// What git itself says, where the guess gives one.
		if c.want != "" {
			out := r.Git(c.dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
			if out != c.want {
				t.Errorf("git says %q for %s, the test expects %q", out, c.dir, c.want)
			}
		}
	}
}

// List takes the ids read during git's list only when they come from the common dir
// list settles on; started through a symlink, the guess differs and the ids are read
// again, so every row still has its id.
func TestListIDsWithPrefetch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	var want []string
	for _, b := range []string{"a", "b", "c"} {
		r.AddWorktree(b, filepath.Join(r.Base, "wt", b))
		want = append(want, b)
	}
	link := filepath.Join(r.Base, "link")
	if err := os.Symlink(r.Root, link); err != nil {
		t.Fatal(err)
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// With git's own path named, the list comes from git and the ids from the prefetch;
	// with the default, both come from reading git's files, the ids with the list, usable
	// from every dir.
	for _, bin := range []string{gitBin, ""} {
		for _, dir := range []string{r.Root, filepath.Join(r.Base, "wt", "b"), link} {
			listIDsFrom(t, r, bin, dir, want, bin == "" || dir != link)
		}
	}
}

func listIDsFrom(t *testing.T, r *coretest.Repo, bin, dir string, want []string, wantUsed bool) {
	t.Helper()
	s, err := Open(context.Background(), Options{Registry: testOps, Dir: dir, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), ListFirst: true, GitBin: bin})
	if err != nil {
		t.Fatal(err)
	}
	first := s.impl.First
	if first == nil || first.ids == nil {
		t.Fatalf("from %s: Open kept no prefetch", dir)
	}
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range l.Worktrees {
		if !w.Main {
			got = append(got, w.ID)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("from %s: ids %v, want %v", dir, got, want)
	}
	_, used := first.ids.idsFor(filepath.Join(r.Root, ".git"))
	if used != wantUsed {
		t.Errorf("from %s (git %q): prefetched ids usable = %v, want %v", dir, bin, used, wantUsed)
	}
}

// Without ListFirst, Open reads no ids ahead (a command that does not list would read them
// for nothing), and a list still gets every id.
func TestNoPrefetchWithoutListFirst(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("a", filepath.Join(r.Base, "wt", "a"))
	s, err := Open(context.Background(), Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	if first := s.impl.First; first == nil || first.ids != nil {
		t.Fatal("Open read ids ahead for a caller that did not ask")
	}
	l, err := s.List(context.Background(), false)
	if err != nil || len(l.Worktrees) != 2 || l.Worktrees[1].ID != "a" {
		t.Fatalf("list without the prefetch: %v %+v", err, l)
	}
}

// readSmall reads whole files of any size, like os.ReadFile.
func TestReadSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		p := filepath.Join(dir, "f")
		data := []byte(strings.Repeat("x", n))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readSmall(p)
		if err != nil || string(got) != string(data) {
			t.Errorf("size %d: got %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := readSmall(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}
