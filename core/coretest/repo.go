// Package coretest makes real git repositories for tests and snapshots their state, so a
// test can prove that a refused request changed nothing. It is for tests only and never
// imitates git: every repository is made and read by the real git.
package coretest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/testexec"
)

// Env is the environment every test git process gets on top of the process's: no system
// config, a global config of the test's own, a fixed identity, no prompts. Tests pass it as
// core.Options.Env (and gitx.Runner.Env) instead of changing the process environment, so
// they can run in parallel.
func Env(home string) []string {
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		// Named outright: a GIT_CONFIG_GLOBAL in the process environment would otherwise
		// win over HOME (and Main poisons it, to catch a git that missed this list).
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=copse test", "GIT_AUTHOR_EMAIL=test@copse.invalid",
		"GIT_COMMITTER_NAME=copse test", "GIT_COMMITTER_EMAIL=test@copse.invalid",
		"GIT_TERMINAL_PROMPT=0",
		// Every list copse reads from git's files is checked against git's own
		// (core.VerifyDirectListEnv, read through Options.Getenv; spelled out, as core's
		// tests import coretest).
		"COPSE_VERIFY_DIRECT_LIST=1",
	}
}

// Repo is a temporary repository: Root is the main checkout, inside Base (a directory that
// also holds the default worktree folder, so Snapshot sees everything copse could touch).
type Repo struct {
	T    testing.TB
	Base string
	Root string
	Home string
}

// Getenv is Env(r.Home) and nothing else, for core.Options.Getenv: what core reads comes
// from the test, never from the process (no HERDR_ENV, COPSE_CD_FILE or COPSE_SESSION).
func (r *Repo) Getenv(key string) string {
	for _, kv := range Env(r.Home) {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// New makes a repository with one commit on main. It leaves the process environment alone:
// a test hands Env(r.Home) to core as Options.Env and r.Getenv as Options.Getenv.
func New(t testing.TB) *Repo {
	t.Helper()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{T: t, Base: base, Root: filepath.Join(base, "app"), Home: home}
	r.Git(base, "init", "-q", "-b", "main", r.Root)
	r.Write("README.md", "hello\n")
	r.Git(r.Root, "add", "README.md")
	r.Git(r.Root, "commit", "-q", "-m", "initial")
	return r
}

// Git runs git in dir and returns its trimmed stdout; a failure fails the test.
func (r *Repo) Git(dir string, args ...string) string {
	r.T.Helper()
	out, err := r.TryGit(dir, args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs git in dir and returns combined output and the error.
func (r *Repo) TryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), Env(r.Home)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Write writes a file relative to the main checkout.
func (r *Repo) Write(rel, content string) {
	r.T.Helper()
	WriteFile(r.T, filepath.Join(r.Root, rel), content)
}

// WriteFile writes a file, making its directory; no fork of this process copies its
// descriptor while it is open, so a script written here can be run at once (testexec).
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testexec.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// AddWorktree makes a linked worktree on a new branch at path (relative to Base when not absolute).
func (r *Repo) AddWorktree(branch, path string) string {
	r.T.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.Base, path)
	}
	r.Git(r.Root, "worktree", "add", "-q", "-b", branch, path)
	return path
}

// Snapshot is everything a copse mutation could change: git's worktree list, the branches
// and their commits, and every file under Base (except .git internals that git itself
// touches on reads, like the index stat cache, copse's own lock file, and packed-refs,
// whose content Branches already compares ref by ref).
type Snapshot struct {
	Worktrees string
	Branches  string
	Files     string
}

// Snapshot reads the repository's state now.
func (r *Repo) Snapshot() Snapshot {
	r.T.Helper()
	var files []string
	filepath.WalkDir(r.Base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			files = append(files, p+" !"+err.Error())
			return nil
		}
		rel, _ := filepath.Rel(r.Base, p)
		if strings.HasPrefix(rel, "home") {
			return nil
		}
		name := d.Name()
		if d.IsDir() && name == "copse-status" {
			return fs.SkipDir // copse's status cache: display only, not the repository's state
		}
		if name == "index" || name == "copse.lock" || name == "ORIG_HEAD" || name == "packed-refs" || name == "FETCH_HEAD" || name == "logs" && d.IsDir() {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		line := rel
		if d.Type()&fs.ModeSymlink != 0 {
			tgt, _ := os.Readlink(p)
			line += " -> " + tgt
		} else if !d.IsDir() {
			b, _ := os.ReadFile(p)
			line += " = " + string(b)
		} else {
			line += "/"
		}
		files = append(files, line)
		return nil
	})
	sort.Strings(files)
	return Snapshot{
		Worktrees: r.Git(r.Root, "worktree", "list", "--porcelain"),
		Branches:  r.Git(r.Root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"),
		Files:     strings.Join(files, "\n"),
	}
}

// Unchanged fails the test if the state differs from before.
func (r *Repo) Unchanged(before Snapshot) {
	r.T.Helper()
	after := r.Snapshot()
	if after.Worktrees != before.Worktrees {
		r.T.Errorf("worktree list changed:\nbefore:\n%s\nafter:\n%s", before.Worktrees, after.Worktrees)
	}
	if after.Branches != before.Branches {
		r.T.Errorf("branches changed:\nbefore:\n%s\nafter:\n%s", before.Branches, after.Branches)
	}
	if after.Files != before.Files {
		r.T.Errorf("files changed:\n%s", diffLines(before.Files, after.Files))
	}
}

func diffLines(a, b string) string {
	as := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		as[l] = true
	}
	bs := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		bs[l] = true
	}
	var out []string
	for l := range as {
		if !bs[l] {
			out = append(out, "- "+truncate(l))
		}
	}
	for l := range bs {
		if !as[l] {
			out = append(out, "+ "+truncate(l))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// RacyEntries lists the index entries of the worktree at dir that git must treat as racily
// clean: their recorded mtime is not older than the index file's own (by the second, as git
// compares without nanosecond support), so every status re-reads those files. It reads the
// entries with git's own `ls-files --debug`.
func (r *Repo) RacyEntries(dir string) []string {
	r.T.Helper()
	index := r.Git(dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	st, err := os.Stat(index)
	if err != nil {
		r.T.Fatal(err)
	}
	indexSec := st.ModTime().Unix()
	var racy []string
	path := ""
	for _, line := range strings.Split(r.Git(dir, "ls-files", "--debug"), "\n") {
		if !strings.HasPrefix(line, " ") {
			path = line
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "mtime: "); ok {
			sec, _, _ := strings.Cut(v, ":")
			n, err := strconv.ParseInt(sec, 10, 64)
			if err != nil {
				r.T.Fatalf("ls-files --debug: %q", line)
			}
			if n >= indexSec {
				racy = append(racy, path)
			}
		}
	}
	return racy
}

// Main runs a package's tests (call it from TestMain: os.Exit(coretest.Main(m))) with a
// process environment that git refuses: GIT_CONFIG_GLOBAL names a file git cannot parse.
// The tests run in parallel and none changes the process environment, so every git a test
// or copse under test starts must get Env(home) (core.Options.Env, gitx.Runner.Env); one
// that inherits the process's instead fails, naming this file, rather than quietly reading
// the user's own config.
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "coretest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	poison := filepath.Join(dir, "process-environment-reached-git.gitconfig")
	if err := os.WriteFile(poison, []byte("[not git config: pass coretest.Env as the child's environment\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Before any test runs, so no goroutine reads the environment while it changes.
	os.Setenv("GIT_CONFIG_GLOBAL", poison)
	// And for a copse run as a program (its Getenv is the process's).
	os.Setenv("COPSE_VERIFY_DIRECT_LIST", "1")
	return m.Run()
}
