package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

type jsonErr struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

// decodeError reads a --json error reply: exactly {"error":{"code","message","hint"}}.
func decodeError(t *testing.T, res result) jsonErr {
	t.Helper()
	var raw map[string]map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &raw); err != nil {
		t.Fatalf("stdout is not one JSON error: %v\n%s", err, res)
	}
	e, ok := raw["error"]
	if !ok || len(raw) != 1 {
		t.Fatalf("want {\"error\":…}:\n%s", res)
	}
	if got := keys(e); !reflect.DeepEqual(got, []string{"code", "hint", "message"}) {
		t.Fatalf("error keys %v:\n%s", got, res)
	}
	var out struct{ Error jsonErr }
	json.Unmarshal([]byte(res.stdout), &out)
	return out.Error
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// refusalRepo has: dirty (untracked file), locked (with a reason), unmerged (a unique
// commit), here (the worktree a test runs copse in), clean.
type refusalRepo struct {
	*coretest.Repo
	dirty, locked, unmerged, here, clean string
}

func newRefusalRepo(t *testing.T) refusalRepo {
	r := coretest.New(t)
	rr := refusalRepo{Repo: r}
	rr.dirty = r.AddWorktree("dirty", "dirty")
	coretest.WriteFile(t, filepath.Join(rr.dirty, "new.txt"), "untracked")
	rr.locked = r.AddWorktree("locked", "locked")
	r.Git(r.Root, "worktree", "lock", "--reason", "agent 7 is working", rr.locked)
	rr.unmerged = r.AddWorktree("unmerged", "unmerged")
	coretest.WriteFile(t, filepath.Join(rr.unmerged, "u.txt"), "u")
	r.Git(rr.unmerged, "add", ".")
	r.Git(rr.unmerged, "commit", "-qm", "unique work")
	rr.here = r.AddWorktree("here", "here")
	coretest.WriteFile(t, filepath.Join(rr.here, "sub", "keep.txt"), "k")
	r.Git(rr.here, "add", ".")
	r.Git(rr.here, "commit", "-qm", "sub")
	rr.clean = r.AddWorktree("clean", "clean")
	return rr
}

// Every refusal of DESIGN "Safety core" 4, through the CLI: exit 1, a message that names
// what was protected and how to proceed, nothing changed.
func TestSafetyRefusals(t *testing.T) {
	t.Parallel()
	r := newRefusalRepo(t)
	occupied := filepath.Join(r.Base, "occupied")
	coretest.WriteFile(t, filepath.Join(occupied, "f"), "x")
	cases := []struct {
		name     string
		dir      string
		args     []string
		mentions []string
	}{
		{"create: branch checked out", r.Root, []string{"create", "dirty"}, []string{"branch dirty is already checked out at " + r.dirty, "copse switch dirty"}},
		{"create: @{-1} checked out", r.Root, []string{"create", "main"}, []string{"branch main is already checked out"}},
		{"create: path exists, not empty", r.Root, []string{"create", "n", "--yes", "--path", occupied}, []string{occupied + " already exists and is not empty"}},
		{"create: path is a file", r.Root, []string{"create", "n", "--yes", "--path", filepath.Join(occupied, "f")}, []string{"is not a directory"}},
		{"create: path is a worktree", r.Root, []string{"create", "n", "--yes", "--path", r.clean}, []string{"is already the worktree of branch clean"}},
		{"remove: main checkout", r.Root, []string{"remove", "--yes", "--force", r.Root}, []string{"is the main checkout", "never removes it"}},
		{"remove: main by branch", r.clean, []string{"remove", "--yes", "--force", "main"}, []string{"is the main checkout"}},
		{"remove: current (-C)", r.Root, []string{"-C", r.here, "remove", "--yes", "--force", "here"}, []string{r.here + " (branch here) is the worktree copse is running in", "switch to another worktree first"}},
		{"remove: current (-C subdirectory)", r.Root, []string{"-C", filepath.Join(r.here, "sub"), "remove", "--yes", "--force", r.here}, []string{"is the worktree copse is running in"}},
		{"remove: current (cwd)", filepath.Join(r.here, "sub"), []string{"remove", "--yes", "--force", "here"}, []string{"is the worktree copse is running in"}},
		{"remove: dirty without --force", r.Root, []string{"remove", "--yes", "dirty"}, []string{"has uncommitted changes: 1 untracked", "--force"}},
		{"remove: locked without --force", r.Root, []string{"remove", "--yes", r.locked}, []string{"is locked: agent 7 is working", "git worktree unlock"}},
		{"remove: unmerged with --delete-branch", r.Root, []string{"remove", "--yes", "--delete-branch", "unmerged"}, []string{"branch unmerged has 1 commit on no other branch or remote", "--force"}},
		{"remove: no such worktree", r.Root, []string{"remove", "--yes", "nope"}, []string{"no worktree has branch nope"}},
		{"remove: no such path", r.Root, []string{"remove", "--yes", filepath.Join(r.Base, "nowhere")}, []string{"no worktree at"}},
		{"switch: already here", r.here, []string{"switch", "here"}, []string{"you are already in " + r.here}},
		{"switch: no such branch", r.Root, []string{"switch", "nope"}, []string{"no worktree has branch nope", "copse create nope"}},
		{"open: no such worktree", r.Root, []string{"open", "--branch", "nope"}, []string{"no worktree has branch nope"}},
		{"back: no previous worktree", r.Root, []string{"back"}, []string{"no previous worktree"}},
		{"dry run refuses too", r.Root, []string{"remove", "--dry-run", "dirty"}, []string{"uncommitted changes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each refused: none changes anything
			before := r.Snapshot()
			res := run(t, r.Repo, tc.dir, tc.args...)
			want(t, res, 1, tc.mentions...)
			if !strings.Contains(res.stderr, "hint: ") || res.stdout != "" {
				t.Fatalf("a refusal says how to proceed, on stderr:\n%s", res)
			}
			r.Unchanged(before)
			// The same refusal as --json: one error object on stdout.
			res = run(t, r.Repo, tc.dir, append([]string{"--json"}, tc.args...)...)
			want(t, res, 1)
			if e := decodeError(t, res); e.Hint == "" || e.Code == "" {
				t.Fatalf("json refusal without code or hint: %+v", e)
			}
			r.Unchanged(before)
		})
	}
}

func TestForceAndDeleteBranch(t *testing.T) {
	t.Parallel()
	r := newRefusalRepo(t)
	res := run(t, r.Repo, r.Root, "remove", "--yes", "--force", "dirty")
	want(t, res, 0, "removed "+r.dirty+" (branch dirty)")
	res = run(t, r.Repo, r.Root, "remove", "--yes", "--force", "locked")
	want(t, res, 0, "removed")
	res = run(t, r.Repo, r.Root, "--json", "remove", "--yes", "--force", "--delete-branch", "unmerged")
	want(t, res, 0)
	var out map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out["operation"] != "remove" || out["branch_deleted"] != true || out["path"] != r.unmerged {
		t.Fatalf("remove --json: %v %v\n%s", out, err, res)
	}
	for _, p := range []string{r.dirty, r.locked, r.unmerged} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still on disk", p)
		}
	}
	if strings.Contains(r.Git(r.Root, "branch"), "unmerged") {
		t.Fatal("branch unmerged not deleted")
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	r := newRefusalRepo(t)
	newPath := filepath.Join(r.Base, "explicit")
	cases := []struct {
		name     string
		dir      string
		args     []string
		commands []string
	}{
		{"create", r.Root, []string{"create", "feat/new", "--dry-run"}, []string{"git -C " + r.Root + " worktree add -b feat/new -- " + filepath.Join(r.Base, "app.worktrees", "feat-new") + " "}},
		{"create --path without --yes", r.Root, []string{"create", "feat/new", "--path", newPath, "--dry-run"}, []string{"worktree add -b feat/new -- " + newPath}},
		{"create --base", r.Root, []string{"create", "feat/new", "--base", "unmerged", "--dry-run"}, []string{r.Git(r.Root, "rev-parse", "unmerged")}},
		{"create existing branch", r.Root, []string{"create", "--dry-run", "existing"}, []string{"worktree add -- " + filepath.Join(r.Base, "app.worktrees", "existing") + " existing"}},
		{"switch", r.Root, []string{"switch", "clean", "--dry-run"}, []string{"cd " + r.clean}},
		{"open", r.Root, []string{"open", "--branch", "clean", "--dry-run"}, []string{"cd " + r.clean}},
		{"remove without --yes", r.Root, []string{"remove", "clean", "--dry-run"}, []string{"worktree remove -- " + r.clean}},
		{"remove --force --delete-branch", r.Root, []string{"remove", "--force", "--delete-branch", "dirty", "--dry-run"}, []string{"worktree remove --force -- " + r.dirty, "branch -D -- dirty"}},
		{"remove locked --force", r.Root, []string{"remove", "--force", r.locked, "--dry-run"}, []string{"worktree remove --force --force -- " + r.locked}},
		// back runs from a worktree no other case removes: the cases run in parallel, and a
		// copse process working inside "clean" is, rightly, a live process to remove's check.
		{"back", r.here, []string{"back", "--dry-run"}, []string{"cd " + r.Root}},
	}
	r.Git(r.Root, "branch", "existing")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // dry runs: none changes anything
			cdFile := filepath.Join(t.TempDir(), "cd")
			env := []string{"COPSE_PREVIOUS=" + r.Root, "COPSE_CD_FILE=" + cdFile}
			os.WriteFile(cdFile, nil, 0o600)
			before := r.Snapshot()
			res := runWith(t, r.Repo, tc.dir, env, nil, tc.args...)
			want(t, res, 0, "checks passed")
			for _, c := range tc.commands {
				if !strings.Contains(res.stdout, c) {
					t.Fatalf("dry run does not show %q:\n%s", c, res)
				}
			}
			res = runWith(t, r.Repo, tc.dir, env, nil, append(tc.args, "--json")...)
			want(t, res, 0)
			var out struct {
				Operation string   `json:"operation"`
				DryRun    bool     `json:"dry_run"`
				Commands  []string `json:"commands"`
			}
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || !out.DryRun || len(out.Commands) == 0 {
				t.Fatalf("dry run --json: %+v %v\n%s", out, err, res)
			}
			r.Unchanged(before)
			if b, _ := os.ReadFile(cdFile); len(b) != 0 {
				t.Fatalf("a dry run wrote the cd file: %q", b)
			}
		})
	}
}

// Without a terminal on stdin, remove and create --path need --yes.
func TestYesNeededWithoutTerminal(t *testing.T) {
	t.Parallel()
	r := newRefusalRepo(t)
	newPath := filepath.Join(r.Base, "explicit")
	for _, args := range [][]string{
		{"remove", "clean"},
		{"remove", r.clean, "--delete-branch"},
		{"create", "feat/p", "--path", newPath},
	} {
		before := r.Snapshot()
		res := run(t, r.Repo, r.Root, args...)
		want(t, res, 1, "needs confirmation: pass --yes")
		r.Unchanged(before)
		res = run(t, r.Repo, r.Root, append(args, "--json")...)
		want(t, res, 1)
		if e := decodeError(t, res); e.Code != "needs_confirmation" || !strings.Contains(e.Hint, "--yes") {
			t.Fatalf("%+v", e)
		}
		r.Unchanged(before)
	}
	res := run(t, r.Repo, r.Root, "create", "feat/p", "--path", newPath, "--yes")
	want(t, res, 0, "created feat/p at "+newPath)
	res = run(t, r.Repo, r.Root, "remove", "-y", "clean")
	want(t, res, 0, "removed "+r.clean)
	if _, err := os.Stat(r.clean); !os.IsNotExist(err) {
		t.Fatal("clean still on disk")
	}
}

func TestListJSONShape(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat/x", "x")
	det := filepath.Join(r.Base, "det")
	r.Git(r.Root, "worktree", "add", "-q", "--detach", det)
	locked := r.AddWorktree("locked", "locked")
	r.Git(r.Root, "worktree", "lock", "--reason", "busy", locked)
	gone := r.AddWorktree("gone", "gone")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(feat, "a.txt"), "a")

	for _, status := range []bool{false, true} {
		args := []string{"list", "--json"}
		if status {
			args = append(args, "--status")
		}
		res := run(t, r, feat, args...)
		want(t, res, 0)
		var top map[string]json.RawMessage
		if err := json.Unmarshal([]byte(res.stdout), &top); err != nil {
			t.Fatal(err, res)
		}
		if got := keys(top); !reflect.DeepEqual(got, []string{"backend", "repo_root", "state_token", "worktrees"}) {
			t.Fatalf("top-level keys %v", got)
		}
		var l struct {
			RepoRoot  string           `json:"repo_root"`
			Backend   string           `json:"backend"`
			Worktrees []map[string]any `json:"worktrees"`
		}
		json.Unmarshal([]byte(res.stdout), &l)
		if l.RepoRoot != r.Root || l.Backend != "git" || len(l.Worktrees) != 5 {
			t.Fatalf("listing %+v", l)
		}
		all := []string{"branch", "claim", "current", "detached", "head", "id", "land", "locked", "main", "path", "prunable", "status", "workspace_id"}
		byPath := map[string]map[string]any{}
		for _, w := range l.Worktrees {
			byPath[w["path"].(string)] = w
			wantKeys := all
			if w["detached"] == true {
				wantKeys = slicesWithout(all, "branch")
			}
			if w["main"] == true {
				wantKeys = slicesWithout(wantKeys, "id") // the main checkout has no id
			} else if id, _ := w["id"].(string); id != filepath.Base(w["path"].(string)) {
				t.Fatalf("id %v, want the admin directory name %s", w["id"], filepath.Base(w["path"].(string)))
			}
			if status && runtime.GOOS == "linux" && w["prunable"] == nil {
				// Counted with the status where copse can tell (Linux); a gone directory has none.
				wantKeys = append([]string{"processes"}, wantKeys...)
				sort.Strings(wantKeys)
			}
			if w["claim"] != nil {
				t.Fatalf("claim without copse claim: %v", w)
			}
			if got := keys(w); !reflect.DeepEqual(got, wantKeys) {
				t.Fatalf("row keys %v, want %v: %v", got, wantKeys, w)
			}
			if w["workspace_id"] != nil {
				t.Fatalf("workspace_id under git: %v", w)
			}
			if len(w["head"].(string)) != 40 {
				t.Fatalf("head %v", w["head"])
			}
			if !status && w["status"] != nil {
				t.Fatalf("status without --status: %v", w)
			}
			if status {
				st, ok := w["status"].(map[string]any)
				if !ok {
					t.Fatalf("no status with --status: %v", w)
				}
				for _, k := range []string{"staged", "unstaged", "untracked", "conflicted", "ahead", "behind"} {
					if _, ok := st[k]; !ok {
						t.Fatalf("status lacks %s: %v", k, st)
					}
				}
			}
		}
		if l.Worktrees[0]["path"] != r.Root || l.Worktrees[0]["main"] != true || l.Worktrees[0]["branch"] != "main" {
			t.Fatalf("first row is the main checkout: %v", l.Worktrees[0])
		}
		if w := byPath[feat]; w["current"] != true || w["branch"] != "feat/x" || w["locked"] != nil || w["prunable"] != nil {
			t.Fatalf("feat row %v", w)
		}
		if w := byPath[det]; w["detached"] != true || w["current"] != false {
			t.Fatalf("detached row %v", w)
		}
		if w := byPath[locked]; w["locked"] != "busy" {
			t.Fatalf("locked row %v", w)
		}
		if w := byPath[gone]; w["prunable"] == nil {
			t.Fatalf("prunable row %v", w)
		}
		if status {
			if st := byPath[feat]["status"].(map[string]any); st["untracked"] != 1.0 {
				t.Fatalf("feat status %v", st)
			}
			if st := byPath[gone]["status"].(map[string]any); st["error"] == nil {
				t.Fatalf("a missing worktree's status is an error, never clean: %v", st)
			}
		}
	}
}

func slicesWithout(s []string, drop string) []string {
	var out []string
	for _, v := range s {
		if v != drop {
			out = append(out, v)
		}
	}
	return out
}

func TestListHuman(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	login := r.AddWorktree("feat/login", filepath.Join(r.Base, "app.worktrees", "feat-login"))
	r.Git(login, "branch", "--set-upstream-to=main")
	for _, f := range []string{"a", "b"} {
		coretest.WriteFile(t, filepath.Join(login, f), f)
		r.Git(login, "add", f)
		r.Git(login, "commit", "-qm", f)
	}
	for _, f := range []string{"c", "d", "e"} {
		coretest.WriteFile(t, filepath.Join(login, f), f)
	}
	det := filepath.Join(r.Base, "det")
	r.Git(r.Root, "worktree", "add", "-q", "--detach", det)
	r.Git(r.Root, "worktree", "lock", det)
	head := r.Git(r.Root, "rev-parse", "--short=7", "HEAD")

	res := runWith(t, r, login, []string{"HOME=" + r.Base}, nil, "list", "--status")
	want(t, res, 0)
	wantOut := strings.Join([]string{
		"  main                ~/app                       main ✓",
		"* feat/login          ~/app.worktrees/feat-login  ✚3 ↑2",
		"  (detached " + head + ")  ~/det                       locked ✓",
		"",
	}, "\n")
	if res.stdout != wantOut {
		t.Fatalf("list:\n%s\nwant:\n%s", res.stdout, wantOut)
	}
	res = runWith(t, r, r.Root, []string{"HOME=" + r.Base}, nil, "list")
	if !strings.HasPrefix(res.stdout, "* main ") || strings.Contains(res.stdout, "✚") {
		t.Fatalf("list without status:\n%s", res)
	}
}

func TestSwitchPrintsOrWritesCDFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(r.Root, "wip.txt"), "wip")

	res := run(t, r, r.Root, "switch", "feat")
	want(t, res, 0)
	if res.stdout != feat+"\n" {
		t.Fatalf("switch prints the path:\n%s", res)
	}
	if !strings.Contains(res.stderr, "warning: "+r.Root+" has 1 uncommitted change; they stay there") {
		t.Fatalf("leaving uncommitted work is a warning on stderr:\n%s", res)
	}

	cdFile := filepath.Join(r.Home, "cdfile")
	os.WriteFile(cdFile, []byte("old content that is longer than the path, to be truncated entirely"), 0o644)
	res = runWith(t, r, r.Root, []string{"COPSE_CD_FILE=" + cdFile}, nil, "switch", feat)
	want(t, res, 0)
	if res.stdout != "" {
		t.Fatalf("with COPSE_CD_FILE nothing goes to stdout:\n%s", res)
	}
	b, _ := os.ReadFile(cdFile)
	st, _ := os.Stat(cdFile)
	if string(b) != feat || st.Mode().Perm() != 0o600 {
		t.Fatalf("cd file %q mode %v", b, st.Mode())
	}

	// --json prints the outcome and still hands the path to the shell.
	os.WriteFile(cdFile, nil, 0o600)
	res = runWith(t, r, r.Root, []string{"COPSE_CD_FILE=" + cdFile}, nil, "--json", "switch", "feat")
	want(t, res, 0)
	var out map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out["operation"] != "switch" || out["path"] != feat {
		t.Fatalf("switch --json %v:\n%s", err, res)
	}
	if b, _ := os.ReadFile(cdFile); string(b) != feat {
		t.Fatalf("cd file %q", b)
	}

	// The cd file is never written through a symlink.
	victim := filepath.Join(r.Home, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(r.Home, "link")
	os.Symlink(victim, link)
	res = runWith(t, r, r.Root, []string{"COPSE_CD_FILE=" + link}, nil, "switch", "feat")
	want(t, res, 1, "cannot write COPSE_CD_FILE")
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("wrote through the symlink: %q", b)
	}
}

func TestOpenIsSwitchWithoutWorkspaces(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat", "feat")
	res := run(t, r, r.Root, "open", "--path", feat, "--label", "x")
	want(t, res, 0, "label and focus apply only inside Herdr or tmux")
	if res.stdout != feat+"\n" {
		t.Fatalf("open prints the path:\n%s", res)
	}
}

func TestBackUsesShellPrevious(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat", "feat")
	sub := filepath.Join(r.Root, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// The shell recorded the very directory it left: back returns there.
	res := runWith(t, r, feat, []string{"COPSE_PREVIOUS=" + sub}, nil, "back")
	want(t, res, 0)
	if res.stdout != sub+"\n" {
		t.Fatalf("back:\n%s", res)
	}
	res = runWith(t, r, feat, []string{"COPSE_PREVIOUS=" + r.Root}, nil, "--json", "back")
	want(t, res, 0, `"operation":"back"`, `"path":"`+r.Root+`"`)
	// A previous directory in no worktree, or a removed one, is no previous worktree.
	for _, prev := range []string{r.Home, filepath.Join(r.Base, "removed"), "relative/dir"} {
		res = runWith(t, r, feat, []string{"COPSE_PREVIOUS=" + prev}, nil, "back")
		want(t, res, 1, "no previous worktree")
	}
	// Back to where you are is refused.
	res = runWith(t, r, feat, []string{"COPSE_PREVIOUS=" + feat}, nil, "back")
	want(t, res, 1, "already in")
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "version")
	want(t, res, 0, "copse ", runtime.Version())
	line := res.stdout
	res = run(t, r, r.Root, "--version")
	want(t, res, 0)
	if res.stdout != line {
		t.Fatalf("copse --version printed %q, copse version %q", res.stdout, line)
	}
	res = run(t, r, r.Root, "version", "--json")
	want(t, res, 0, `"version":`, `"commit":`, `"date":`, `"go":"`+runtime.Version()+`"`)
	res = run(t, r, r.Root, "--help")
	want(t, res, 0, "Exit codes", "create", "remove", "switch", "back", "init", "tool", "mcp")
	res = run(t, r, r.Root, "init", "bash")
	want(t, res, 0, "copse()", "COPSE_CD_FILE", "command copse")
}

// The picker needs a terminal; without one it says so (exit 1) instead of hanging.
func TestPickerWithoutTerminal(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	cmd := []string{"pick"}
	res := runWithSetsid(t, r, r.Root, cmd...)
	want(t, res, 1, "needs a terminal")
}

// Start-up failures print to stderr and exit 1 without opening the picker.
func TestPickerOutsideRepository(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	for _, cmd := range [][]string{{"-C", r.Home}, {"-C", r.Home, "pick"}} {
		res := runWithSetsid(t, r, r.Root, cmd...)
		want(t, res, 1, "is not inside a git repository")
		if res.stdout != "" {
			t.Fatalf("stdout must stay empty: %s", res)
		}
	}
}

// Piped output has no colour unless CLICOLOR_FORCE asks for it; NO_COLOR and --no-color
// win over CLICOLOR_FORCE.
func TestColourConventions(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/a", "feat-a")
	cases := []struct {
		env    []string
		args   []string
		colour bool
	}{
		{nil, []string{"list"}, false},
		{[]string{"CLICOLOR_FORCE=1"}, []string{"list"}, true},
		{[]string{"CLICOLOR_FORCE=0"}, []string{"list"}, false},
		{[]string{"CLICOLOR_FORCE=1", "NO_COLOR=1"}, []string{"list"}, false},
		{[]string{"CLICOLOR_FORCE=1"}, []string{"--no-color", "list"}, false},
	}
	for _, c := range cases {
		res := runWith(t, r, r.Root, c.env, nil, c.args...)
		want(t, res, 0, "feat/a")
		if got := strings.Contains(res.stdout, "\x1b["); got != c.colour {
			t.Errorf("%v %v: colour %v, want %v:\n%q", c.env, c.args, got, c.colour, res.stdout)
		}
	}
}

// The shell a person runs copse from is not counted among the processes working in its
// worktree (it is not news to them), while remove's live-process rule still sees it: a
// listing run from a shell sitting in a worktree shows 0 there, and removing that worktree
// from the same shell is refused for that shell.
func TestListLeavesOutTheShellCopseRunsFrom(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/sh", "app.worktrees/sh")
	script := `"$COPSE" -C "$ROOT" list --json --status; echo; (cd "$ROOT" && "$COPSE" remove --yes --dry-run feat/sh); echo "remove=$?"; :`
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = wt
	cmd.Env = cleanEnv(r.Home, "COPSE="+copseBin, "ROOT="+r.Root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	listing, rest, _ := strings.Cut(string(out), "\n")
	var l struct {
		Worktrees []struct {
			Path      string `json:"path"`
			Processes *int   `json:"processes"`
		} `json:"worktrees"`
	}
	if err := json.Unmarshal([]byte(listing), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	counted := false
	for _, w := range l.Worktrees {
		if w.Path == wt {
			counted = true
			if w.Processes == nil || *w.Processes != 0 {
				t.Fatalf("the shell copse ran from counts as a process in %s: %v\n%s", wt, w.Processes, out)
			}
		}
	}
	if !counted {
		t.Fatalf("%s not listed:\n%s", wt, out)
	}
	if !strings.Contains(rest, "has 1 process working in it") || !strings.Contains(rest, "remove=1") {
		t.Fatalf("remove from the shell in the worktree was not refused for that shell:\n%s", rest)
	}
}
