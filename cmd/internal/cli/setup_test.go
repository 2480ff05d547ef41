package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

func setupRepo(t *testing.T) *coretest.Repo {
	t.Helper()
	r := coretest.New(t)
	r.Write(".gitignore", ".env*\n.vscode/\nnode_modules/\n")
	r.Git(r.Root, "add", ".gitignore")
	r.Git(r.Root, "commit", "-q", "-m", "ignore")
	r.Write(".env", "SECRET=1\n")
	r.Write("sub/.env.local", "LOCAL=1\n")
	r.Write(".vscode/settings.json", "{}\n")
	r.Write("node_modules/big/index.js", "x\n") // not named by copse.copy
	if err := os.Symlink(".env", filepath.Join(r.Root, ".envlink")); err != nil {
		t.Fatal(err)
	}
	return r
}

// create copies what copse.copy names from the main checkout (symlinks as links, nothing
// else), then runs the copse.setup steps in the new worktree, in order.
func TestCreateCopiesAndRunsSetup(t *testing.T) {
	t.Parallel()
	r := setupRepo(t)
	r.Git(r.Root, "config", "--add", "copse.copy", ".env*")
	r.Git(r.Root, "config", "--add", "copse.copy", ".vscode/")
	r.Git(r.Root, "config", "--add", "copse.setup", "pwd > setup-ran")
	r.Git(r.Root, "config", "--add", "copse.setup", "echo second >> setup-ran; echo step-output")
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 0, "copse: setup 1/2: pwd > setup-ran", "step-output", "copied 4 files")
	wt := filepath.Join(r.Base, "app.worktrees", "feat")
	for rel, content := range map[string]string{".env": "SECRET=1\n", "sub/.env.local": "LOCAL=1\n", ".vscode/settings.json": "{}\n", "setup-ran": wt + "\nsecond\n"} {
		b, err := os.ReadFile(filepath.Join(wt, rel))
		if err != nil || string(b) != content {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, content)
		}
	}
	if target, err := os.Readlink(filepath.Join(wt, ".envlink")); err != nil || target != ".env" {
		t.Errorf(".envlink is not the same symlink: %q, %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(wt, "node_modules")); !os.IsNotExist(err) {
		t.Errorf("node_modules was copied although copse.copy does not name it (%v)", err)
	}

	// setup again: nothing is overwritten.
	if err := os.WriteFile(filepath.Join(wt, ".env"), []byte("EDITED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, r, r.Root, "setup", wt)
	want(t, res, 0, "kept 4 files")
	if b, _ := os.ReadFile(filepath.Join(wt, ".env")); string(b) != "EDITED\n" {
		t.Errorf("setup overwrote .env: %q", b)
	}

	// --no-setup skips both.
	res = run(t, r, r.Root, "create", "bare", "--no-setup")
	want(t, res, 0)
	if _, err := os.Stat(filepath.Join(r.Base, "app.worktrees", "bare", ".env")); !os.IsNotExist(err) {
		t.Errorf("--no-setup copied .env (%v)", err)
	}
}

// A failing step stops the setup: the worktree stays, and the error names the step and a
// rerun command that parses.
func TestSetupFailureKeepsWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "--add", "copse.setup", "true")
	r.Git(r.Root, "config", "--add", "copse.setup", "echo broken >&2; exit 7")
	r.Git(r.Root, "config", "--add", "copse.setup", "touch never")
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 1, "setup step 2 of 3 (echo broken >&2; exit 7) exited with status 7", "broken", "`copse setup ")
	wt := filepath.Join(r.Base, "app.worktrees", "feat")
	if !strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "worktree "+wt+"\n") {
		t.Fatal("the worktree was taken back; it must stay")
	}
	if _, err := os.Stat(filepath.Join(wt, "never")); !os.IsNotExist(err) {
		t.Error("the step after the failing one ran")
	}
}

// A step that outlives copse.setupTimeout is stopped with its whole process group.
func TestSetupTimeout(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pidFile := filepath.Join(r.Base, "sleep.pid")
	r.Git(r.Root, "config", "copse.setupTimeout", "1s")
	r.Git(r.Root, "config", "--add", "copse.setup", "sleep 60 & echo $! > "+pidFile+"; wait")
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 1, "did not finish within 1s and was stopped", "copse.setupTimeout")
	if pid := readPID(t, pidFile); alive(pid) {
		t.Errorf("the step's child %d is still running", pid)
	}
}

// create --switch lands the shell in the new worktree (through the shell integration's
// cd file), after the setup.
func TestCreateSwitch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	cdFile := filepath.Join(r.Base, "cd")
	res := runWith(t, r, r.Root, []string{"COPSE_CD_FILE=" + cdFile}, nil, "create", "-s", "feat")
	want(t, res, 0, "created feat")
	b, err := os.ReadFile(cdFile)
	if wt := filepath.Join(r.Base, "app.worktrees", "feat"); err != nil || string(b) != wt {
		t.Fatalf("cd file: %q, %v; want %s", b, err, wt)
	}
}

// A branch that commits conf as a link to a directory outside the worktree does not get
// the main checkout's conf/secret written through it: the copy skips it with a warning
// naming the path and why, copies the rest, and the setup succeeds.
func TestSetupCopyDoesNotWriteThroughALink(t *testing.T) {
	t.Parallel()
	r := setupRepo(t)
	outside := filepath.Join(r.Base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	// The branch, made in a worktree of its own so the main checkout keeps its conf/.
	tmp := filepath.Join(r.Base, "make-evil")
	r.Git(r.Root, "worktree", "add", "-q", "-b", "evil", tmp)
	if err := os.Symlink(outside, filepath.Join(tmp, "conf")); err != nil {
		t.Fatal(err)
	}
	r.Git(tmp, "add", "conf")
	r.Git(tmp, "commit", "-q", "-m", "conf is a link")
	r.Git(r.Root, "worktree", "remove", tmp)

	r.Write(".gitignore", ".env*\n.vscode/\nnode_modules/\nconf/\n")
	r.Git(r.Root, "commit", "-q", "-am", "ignore conf")
	r.Write("conf/secret", "TOKEN=1\n")
	r.Git(r.Root, "config", "--add", "copse.copy", "conf/")
	r.Git(r.Root, "config", "--add", "copse.copy", ".env")
	r.Git(r.Root, "config", "--add", "copse.copy", "../outside/*")
	res := run(t, r, r.Root, "create", "evil")
	want(t, res, 0, "did not copy conf/secret: conf in the new worktree is a symbolic link", "copied 1 file",
		"did not copy ../outside/*: the copse.copy pattern leads out of the main checkout")
	if entries, err := os.ReadDir(outside); err != nil || len(entries) != 0 {
		t.Fatalf("the copy wrote outside the worktree: %v, %v", entries, err)
	}
	wt := filepath.Join(r.Base, "app.worktrees", "evil")
	if b, err := os.ReadFile(filepath.Join(wt, ".env")); err != nil || string(b) != "SECRET=1\n" {
		t.Errorf(".env was not copied: %q, %v", b, err)
	}

	res = run(t, r, r.Root, "setup", wt, "--json")
	want(t, res, 0, `"refused":[`, `{"path":"conf/secret","reason":"conf in the new worktree is a symbolic link`)
	if entries, err := os.ReadDir(outside); err != nil || len(entries) != 0 {
		t.Fatalf("copse setup wrote outside the worktree: %v, %v", entries, err)
	}
}
