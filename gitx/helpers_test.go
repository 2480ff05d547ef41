package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sandbox is an isolated place to run real git: its own HOME, no system
// config, a fixed identity and fixed dates (so commit ids are reproducible).
type sandbox struct {
	t    *testing.T
	root string   // symlink-free temporary directory
	env  []string // appended to every git run, and used as Runner.Env
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// git resolves symlinks in the paths it prints; compare against the same.
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	const date = "2024-01-02T03:04:05Z"
	return &sandbox{t: t, root: root, env: []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"), // over TestMain's unreadable one
		"GIT_AUTHOR_NAME=Copse Test", "GIT_AUTHOR_EMAIL=test@example.invalid", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=Copse Test", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_COMMITTER_DATE=" + date,
		"GIT_EDITOR=true", // rebase/merge must never open an editor
	}}
}

func (s *sandbox) runner() *Runner { return &Runner{Env: s.env} }

func (s *sandbox) path(elem ...string) string {
	return filepath.Join(append([]string{s.root}, elem...)...)
}

// git runs `git -C dir args...` and fails the test unless it exits 0.
func (s *sandbox) git(dir string, args ...string) string {
	s.t.Helper()
	out, err := s.gitErr(dir, args...)
	if err != nil {
		s.t.Fatalf("git -C %s %s: %v\n%s", dir, strings.Join(args, " "), err, out)
	}
	return out
}

// gitErr runs git and returns combined output; for steps expected to fail
// (a conflicting merge).
func (s *sandbox) gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), s.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// write creates or replaces a file, making parent directories.
func (s *sandbox) write(path, content string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// initRepo creates a repository on branch main with one commit.
func (s *sandbox) initRepo(elem ...string) string {
	s.t.Helper()
	dir := s.path(elem...)
	s.git(s.root, "init", "-q", "-b", "main", dir)
	s.write(filepath.Join(dir, "README"), "hello\n")
	s.git(dir, "add", "README")
	s.git(dir, "commit", "-q", "-m", "initial")
	return dir
}

// commit writes a file and commits it.
func (s *sandbox) commit(dir, file, content, msg string) {
	s.t.Helper()
	s.write(filepath.Join(dir, file), content)
	s.git(dir, "add", "--", file)
	s.git(dir, "commit", "-q", "-m", msg)
}

// hook installs an executable hook script in the repository's common dir.
func (s *sandbox) hook(repo, name, script string) {
	s.t.Helper()
	p := filepath.Join(repo, ".git", "hooks", name)
	s.write(p, "#!/bin/sh\n"+script)
	if err := os.Chmod(p, 0o755); err != nil {
		s.t.Fatal(err)
	}
}

func strp(s string) *string { return &s }
