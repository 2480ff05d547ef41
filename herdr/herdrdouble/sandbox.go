package herdrdouble

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Sandbox is an isolated world for one test: a HOME of its own, a git repository with one
// commit on main, a state file and a worktree root for the double. Nothing is read from
// the user's git configuration and nothing is set in the test process's environment, so
// sandboxes can run in parallel.
type Sandbox struct {
	Bin       string // the double
	Home      string
	Repo      string // main checkout, symlinks resolved (git reports resolved paths)
	State     string // FAKE_HERDR_STATE
	Worktrees string // FAKE_HERDR_WORKTREES_DIR
}

// NewSandbox builds the double (once) and sets up a fresh sandbox.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{
		Bin:       Build(t),
		Home:      filepath.Join(root, "home"),
		Repo:      filepath.Join(root, "src", "app"),
		State:     filepath.Join(root, "herdr-state.json"),
		Worktrees: filepath.Join(root, "worktrees"), // not Herdr's default, so tests see the knob work
	}
	for _, d := range []string{s.Home, s.Repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.Git(t, s.Repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(s.Repo, "README"), []byte("app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Git(t, s.Repo, "add", "README")
	s.Git(t, s.Repo, "commit", "-q", "-m", "init")
	return s
}

// GitEnv is the process environment with git isolated in the sandbox: inherited GIT_*
// variables dropped (a test run from a git hook would otherwise act on the hook's
// repository), HOME moved, no system config, a fixed identity.
func (s *Sandbox) GitEnv() []string {
	env := without(os.Environ(), "GIT_", "HOME=", "XDG_CONFIG_HOME=")
	return append(env,
		"HOME="+s.Home, "XDG_CONFIG_HOME="+filepath.Join(s.Home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=copse test", "GIT_AUTHOR_EMAIL=test@copse.invalid",
		"GIT_COMMITTER_NAME=copse test", "GIT_COMMITTER_EMAIL=test@copse.invalid",
	)
}

// Env is the environment for running the double in this sandbox: GitEnv plus Env's
// Herdr and knob variables. Knobs.WorktreesDir defaults to s.Worktrees.
func (s *Sandbox) Env(k Knobs) []string {
	if k.WorktreesDir == "" {
		k.WorktreesDir = s.Worktrees
	}
	return append(without(s.GitEnv(), "FAKE_HERDR_", "HERDR_"), knobEnv(s.Bin, s.State, k)...)
}

// Git runs git in dir inside the sandbox and returns its trimmed stdout.
func (s *Sandbox) Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = s.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(string(out))
}

// WorktreePaths lists the paths git knows for the sandbox repository (the main checkout first).
func (s *Sandbox) WorktreePaths(t testing.TB) []string {
	t.Helper()
	var paths []string
	for _, line := range strings.Split(s.Git(t, s.Repo, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			paths = append(paths, p)
		}
	}
	return paths
}
