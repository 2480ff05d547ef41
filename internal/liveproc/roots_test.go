package liveproc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// canonicalAll resolves each root as canonical does, one by one: through a symlinked parent
// (resolved once for all its roots), a root that is itself a symbolic link, a missing root,
// a relative one and the root directory.
func TestCanonicalAllIsCanonicalOfEach(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	for _, d := range []string{"a", "b", "elsewhere/c"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "elsewhere", "c"), filepath.Join(real, "tolink")); err != nil {
		t.Fatal(err)
	}
	roots := []string{
		filepath.Join(link, "a"), filepath.Join(link, "b"), filepath.Join(link, "tolink"),
		filepath.Join(link, "gone"), filepath.Join(real, "a") + "/", "relative/x", "/", "",
	}
	var want []string
	for _, r := range roots {
		want = append(want, canonical(r))
	}
	got := canonicalAll(roots)
	if !slices.Equal(got, want) {
		t.Fatalf("canonicalAll\n%q\ncanonical of each\n%q", got, want)
	}
	if got[0] != filepath.Join(real, "a") || got[2] != filepath.Join(real, "elsewhere", "c") {
		t.Fatalf("symbolic links not resolved: %q", got)
	}
}

// rootSet.deepest gives a path to the longest root at or above it, never to a root that
// is only a prefix of its name, and -1 outside every root.
func TestRootSetDeepest(t *testing.T) {
	s := newRootSet([]string{"/w/app", "/w/app/nested", "/w/app.worktrees/b1", "", "/w/app"})
	for _, c := range []struct {
		path string
		want int
	}{
		{"/w/app", 0},
		{"/w/app/src/main.go", 0},
		{"/w/app/nested", 1},
		{"/w/app/nested/deep/file", 1},
		{"/w/app.worktrees/b1/f.txt", 2},
		{"/w/app.worktrees/b10", -1},
		{"/w/appendix", -1},
		{"/w", -1},
		{"/", -1},
		{"relative/w/app", -1},
	} {
		if got := s.deepest(c.path); got != c.want {
			t.Errorf("deepest(%q) = %d, want %d", c.path, got, c.want)
		}
	}
	if got := newRootSet([]string{"/"}).deepest("/anything/at/all"); got != 0 {
		t.Errorf("root / holds every path: got %d", got)
	}
}
