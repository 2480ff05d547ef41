package core

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestCopyGlobs(t *testing.T) {
	t.Parallel()
	got := copyGlobs([]string{".env*", ".vscode/", "config/local.yml", "/top-only", " ", "build/cache/"})
	want := []string{"**/.env*", "**/.vscode/**", "config/local.yml", "top-only", "build/cache/**"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("copyGlobs = %q, want %q", got, want)
	}
}

// The copy reads nothing from outside the main checkout: not through a link among a
// path's directories there, not through "..". Each is refused with its reason, nothing
// lands in the worktree for it, and the other files are copied.
func TestCopyFromMainStaysInside(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	main, wt, outside := filepath.Join(base, "main"), filepath.Join(base, "wt"), filepath.Join(base, "outside")
	for _, d := range []string{main, wt, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{filepath.Join(outside, "secret"): "TOKEN\n", filepath.Join(main, ".env"): "A=1\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(main, "shared")); err != nil {
		t.Fatal(err)
	}
	rep := &SetupReport{}
	if err := copyFromMain(main, wt, []string{"shared/secret", "../outside/secret", ".env"}, rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Copied, []string{".env"}) || len(rep.Kept) != 0 {
		t.Fatalf("copied %v, kept %v", rep.Copied, rep.Kept)
	}
	want := []SetupRefusal{
		{Path: "shared/secret", Reason: "shared in the main checkout is a symbolic link; copse.copy does not read through links"},
		{Path: "../outside/secret", Reason: "the path is not inside the main checkout"},
	}
	if !slices.Equal(rep.Refused, want) {
		t.Fatalf("refused %+v; want %+v", rep.Refused, want)
	}
	var inWT []string
	filepath.WalkDir(wt, func(p string, d fs.DirEntry, err error) error {
		if p != wt {
			inWT = append(inWT, strings.TrimPrefix(p, wt+"/"))
		}
		return err
	})
	if !slices.Equal(inWT, []string{".env"}) {
		t.Fatalf("the worktree holds %v; want only .env", inWT)
	}
}
