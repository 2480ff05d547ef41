package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// includeRepo is a main checkout with an ignored .env, an untracked notes.txt, a tracked
// config.yml edited but not committed, and a committed .worktreeinclude naming them.
func includeRepo(t *testing.T) *coretest.Repo {
	t.Helper()
	r := coretest.New(t)
	r.Write(".gitignore", ".env\nsecrets/\n")
	r.Write("config.yml", "committed\n")
	r.Write(".worktreeinclude", "# what a worktree needs\n.env\nnotes.txt\nconfig.yml\nsecrets/*\n!secrets/skip.key\n")
	r.Git(r.Root, "add", ".gitignore", "config.yml", ".worktreeinclude")
	r.Git(r.Root, "commit", "-q", "-m", "include")
	r.Write(".env", "SECRET=1\n")
	r.Write("notes.txt", "mine\n")
	r.Write("config.yml", "edited in the main checkout\n")
	r.Write("secrets/a.key", "A\n")
	r.Write("secrets/skip.key", "SKIP\n")
	r.Write("other.txt", "not named\n")
	return r
}

// projectRepo commits a .copse.conf whose one setup step touches a marker outside the
// worktrees, so a test sees whether it ran.
func projectRepo(t *testing.T, r *coretest.Repo, marker string) {
	t.Helper()
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, ".copse.conf"), "--add", "copse.setup", "touch '"+marker+"'")
	r.Git(r.Root, "add", ".copse.conf")
	r.Git(r.Root, "commit", "-q", "-m", "project setup")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// .worktreeinclude copies what git does not track and the file names (an ignored .env, an
// untracked notes.txt, a named directory's files, less a negated one); a tracked file is
// never copied over the branch's version, and nothing else comes along.
func TestWorktreeIncludeCopiesWhatGitDoesNotTrack(t *testing.T) {
	t.Parallel()
	r := includeRepo(t)
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 0, "copied 3 files")
	wt := filepath.Join(r.Base, "app.worktrees", "feat")
	for rel, content := range map[string]string{".env": "SECRET=1\n", "notes.txt": "mine\n", "secrets/a.key": "A\n", "config.yml": "committed\n"} {
		if b, err := os.ReadFile(filepath.Join(wt, rel)); err != nil || string(b) != content {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, content)
		}
	}
	for _, rel := range []string{"secrets/skip.key", "other.txt"} {
		if exists(filepath.Join(wt, rel)) {
			t.Errorf("%s was copied although .worktreeinclude does not select it", rel)
		}
	}
	// copse setup reads it too, and keeps what is there.
	res = run(t, r, r.Root, "setup", wt)
	want(t, res, 0, "kept 3 files")
}

// A branch that commits secrets as a link to a directory outside the worktree does not get
// the main checkout's secrets/ written through it: the .worktreeinclude copy keeps
// copse.copy's refusal.
func TestWorktreeIncludeDoesNotWriteThroughALink(t *testing.T) {
	t.Parallel()
	r := includeRepo(t)
	outside := filepath.Join(r.Base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(r.Base, "make-evil")
	r.Git(r.Root, "worktree", "add", "-q", "-b", "evil", tmp)
	if err := os.Symlink(outside, filepath.Join(tmp, "secrets")); err != nil {
		t.Fatal(err)
	}
	r.Git(tmp, "add", "-f", "secrets")
	r.Git(tmp, "commit", "-q", "-m", "secrets is a link")
	r.Git(r.Root, "worktree", "remove", tmp)

	res := run(t, r, r.Root, "create", "evil")
	want(t, res, 0, "did not copy secrets/a.key: secrets in the new worktree is a symbolic link", "copied 2 files")
	if entries, err := os.ReadDir(outside); err != nil || len(entries) != 0 {
		t.Fatalf("the copy wrote outside the worktree: %v, %v", entries, err)
	}
}

// Without a terminal, a create whose .copse.conf asks for an unapproved setup command is
// refused before anything changes: no worktree, no copy, the command did not run. setup of
// an existing worktree refuses the same way, and copse approve will not approve without a
// terminal.
func TestProjectSetupRefusedWithoutApproval(t *testing.T) {
	t.Parallel()
	r := includeRepo(t)
	marker := filepath.Join(r.Base, "project-setup-ran")
	projectRepo(t, r, marker)
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 1, ".copse.conf asks to run 1 setup command no one approved on this machine", "touch", "`copse approve`")
	if exists(marker) {
		t.Fatal("the unapproved project command ran")
	}
	r.Unchanged(before)

	res = run(t, r, r.Root, "create", "feat", "--yes", "--json")
	want(t, res, 1, `"code":"project_command_unapproved"`)
	r.Unchanged(before)

	res = run(t, r, r.Root, "approve", "--json")
	want(t, res, 1, `"code":"approval_needs_terminal"`, "only a person at a terminal")
	if exists(filepath.Join(r.Home, ".config", "copse", "approved")) {
		t.Fatal("copse approve without a terminal wrote an approval")
	}

	res = run(t, r, r.Root, "create", "feat", "--no-setup")
	want(t, res, 0)
	wt := filepath.Join(r.Base, "app.worktrees", "feat")
	res = run(t, r, r.Root, "setup", wt, "--json")
	want(t, res, 1, `"code":"project_command_unapproved"`)
	if exists(marker) || exists(filepath.Join(wt, ".env")) {
		t.Fatal("a refused setup ran the command or copied files")
	}
}

// An agent's create (copse tool) never runs the project's setup commands, says so in the
// reply's warnings, and no listing or open runs them either.
func TestAgentsAndListingsNeverRunProjectSetup(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(r.Base, "project-setup-ran")
	projectRepo(t, r, marker)
	res := runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"create","branch":"agent"}`), "tool")
	want(t, res, 0)
	var reply struct {
		OK     bool `json:"ok"`
		Result struct {
			Warnings []string `json:"warnings"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &reply); err != nil || !reply.OK {
		t.Fatalf("tool reply: %v\n%s", err, res)
	}
	if len(reply.Result.Warnings) != 1 || !strings.Contains(reply.Result.Warnings[0], ".copse.conf setup commands were not run: an agent cannot") {
		t.Fatalf("the reply does not say why the project setup did not run: %q", reply.Result.Warnings)
	}
	wt := filepath.Join(r.Base, "app.worktrees", "agent")
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"open", "--path", wt}} {
		res := run(t, r, r.Root, args...)
		want(t, res, 0)
	}
	if exists(marker) {
		t.Fatal("a project setup command ran for an agent's create, a list or an open")
	}
}

// create --dry-run shows the setup the create would make (the files it copies, the steps
// it runs, in order) and refuses exactly where the create refuses before changing anything:
// a .copse.conf command no person approved (exit 1, project_command_unapproved); --no-setup
// shows no setup. Nothing changes.
func TestCreateDryRunShowsTheSetupAndRefusesWhereCreateRefuses(t *testing.T) {
	t.Parallel()
	r := includeRepo(t)
	r.Git(r.Root, "config", "--add", "copse.setup", "echo first step")
	r.Git(r.Root, "config", "--add", "copse.setup", "echo second step")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "--dry-run", "feat")
	want(t, res, 0, "checks passed; nothing was changed", "git -C",
		"then set it up: copy 3 files from the main checkout (never overwriting):\n  .env\n  notes.txt\n  secrets/a.key\n",
		"then run 2 setup steps in it (sh -c), in order:\n  1. echo first step\n  2. echo second step\n")
	res = run(t, r, r.Root, "--json", "create", "--dry-run", "feat")
	var reply struct {
		DryRun bool `json:"dry_run"`
		Setup  struct {
			Copy  []string `json:"copy"`
			Steps []string `json:"steps"`
		} `json:"setup"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &reply); err != nil || !reply.DryRun || len(reply.Setup.Copy) != 3 || len(reply.Setup.Steps) != 2 {
		t.Fatalf("--json dry run: %+v %v\n%s", reply, err, res)
	}
	res = run(t, r, r.Root, "create", "--dry-run", "--no-setup", "feat")
	want(t, res, 0, "checks passed")
	if strings.Contains(res.stdout, "set it up") || strings.Contains(res.stdout, "setup step") {
		t.Errorf("--no-setup dry run shows a setup:\n%s", res)
	}
	r.Unchanged(before)

	marker := filepath.Join(r.Base, "project-setup-ran")
	projectRepo(t, r, marker)
	before = r.Snapshot()
	res = run(t, r, r.Root, "--json", "create", "--dry-run", "feat")
	want(t, res, 1, `"code":"project_command_unapproved"`, "no one approved on this machine", "touch")
	real := run(t, r, r.Root, "--json", "create", "feat")
	want(t, real, 1, `"code":"project_command_unapproved"`)
	if exists(marker) {
		t.Fatal("the unapproved project command ran")
	}
	r.Unchanged(before)
}
