package herdr

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// Tests of the double itself, run directly, against the protocol reference.

func TestFakeVersion(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, arg := range []string{"--version", "-V"} {
		out, _, code := w.runDouble(t, herdrdouble.Knobs{}, w.Repo, arg)
		if out != "herdr 0.8.2\n" || code != 0 {
			t.Fatalf("%s: %q exit %d", arg, out, code)
		}
	}
	out, _, _ := w.runDouble(t, herdrdouble.Knobs{Version: "0.9.3-preview.4"}, w.Repo, "--version")
	if out != "herdr 0.9.3-preview.4\n" {
		t.Fatalf("--version = %q", out)
	}
}

// §2: local argument errors are plain text on stderr, exit 2, before any server use.
func TestFakeGrammar(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"worktree"}, 2, "Usage: herdr worktree"},
		{[]string{"worktree", "help"}, 0, "Usage: herdr worktree"},
		{[]string{"worktree", "--help"}, 0, "Usage: herdr worktree"},
		{[]string{"worktree", "-h"}, 0, "Usage: herdr worktree"},
		{[]string{"worktree", "frobnicate"}, 2, "Usage: herdr worktree"},
		{[]string{"worktree", "create", "--branch=x"}, 2, "unknown option: --branch=x"},
		{[]string{"worktree", "create", "--branch"}, 2, "missing value for --branch"},
		{[]string{"worktree", "create", "--env", "A=B"}, 2, "unknown option: --env"},
		{[]string{"worktree", "list", "--trust-repository"}, 2, "unknown option: --trust-repository"},
		{[]string{"worktree", "list", "extra"}, 2, "unknown option: extra"},
		{[]string{"worktree", "list", "--cwd", w.Repo, "--workspace", "w1"}, 2, "usage: herdr worktree list"},
		{[]string{"worktree", "open", "--cwd", w.Repo}, 2, "usage: herdr worktree open"},
		{[]string{"worktree", "open", "--cwd", w.Repo, "--path", w.Repo, "--branch", "main"}, 2, "usage: herdr worktree open"},
		{[]string{"worktree", "remove"}, 2, "usage: herdr worktree remove"},
		{[]string{"worktree", "remove", "--workspace", "w1", "--focus"}, 2, "unknown option: --focus"},
		{[]string{"worktree", "remove", "--workspace", "w1", "--cwd", w.Repo}, 2, "unknown option: --cwd"},
		{[]string{"frob"}, 2, "unknown command"},
	}
	for _, c := range cases {
		// ServerDown proves local errors come first.
		out, stderr, code := w.runDouble(t, herdrdouble.Knobs{ServerDown: true}, w.Repo, c.args...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, stderr)
		}
	}
	if len(w.state(t).Workspaces) != 0 {
		t.Fatal("a usage error changed state")
	}
}

// §2.4/§2.5/§2.10: one compact line, keys sorted at every level; errors on stderr.
func TestFakeOutputFormat(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// --json is a silent no-op; a relative --cwd is resolved against the process directory.
	out, stderr, code := w.runDouble(t, herdrdouble.Knobs{}, w.Repo, "worktree", "list", "--json", "--cwd", ".")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	assertCanonicalLine(t, out)
	if !strings.HasPrefix(out, `{"id":"cli:worktree:list","result":{"source":{"repo_key":`) {
		t.Fatalf("stdout = %s", out)
	}
	out, stderr, code = w.runDouble(t, herdrdouble.Knobs{}, w.Repo, "worktree", "open", "--cwd", w.Repo, "--branch", "nope", "--no-focus")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	assertCanonicalLine(t, stderr)
	if want := `{"error":{"code":"worktree_not_found","message":"worktree branch not found"},"id":"cli:worktree:open"}` + "\n"; stderr != want {
		t.Fatalf("stderr = %s", stderr)
	}
	// A created reply: sorted, and what a client relies on is there.
	out, _, code = w.runDouble(t, herdrdouble.Knobs{}, w.Repo, "worktree", "create", "--cwd", w.Repo, "--branch", "feat/<&>", "--no-focus")
	if code != 0 {
		t.Fatalf("create exit %d", code)
	}
	assertCanonicalLine(t, out)
	for _, want := range []string{`"branch":"feat/<&>"`, `"pane_id":"w1:p1"`, `"tab_id":"w1:t1"`, `"terminal_id":"term_`, `"type":"worktree_created"`} {
		if !strings.Contains(out, want) {
			t.Errorf("create reply lacks %s: %s", want, out)
		}
	}
}

// assertCanonicalLine checks s is one JSON line as Go writes map[string]any: sorted keys,
// no HTML escaping (serde_json has none).
func assertCanonicalLine(t *testing.T, s string) {
	t.Helper()
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Fatalf("not one line: %q", s)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	if buf.String() != s {
		t.Fatalf("keys not sorted or not compact:\n%s\nwant\n%s", s, buf.String())
	}
}

// §3/§6: a generated branch worktree/<adj>-<noun>-<hhhh>, under $HOME/.herdr/worktrees
// when no root is configured, or under FAKE_HERDR_WORKTREES_DIR.
func TestFakeCreateDefaults(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cmd := []string{"worktree", "create", "--cwd", w.Repo}
	var r struct {
		Result OpenResult `json:"result"`
	}
	// FAKE_HERDR_WORKTREES_DIR unset: the default root under HOME.
	env := slices.DeleteFunc(w.Env(herdrdouble.Knobs{}), func(kv string) bool { return strings.HasPrefix(kv, "FAKE_HERDR_WORKTREES_DIR=") })
	out := runWithEnv(t, w.Bin, env, w.Repo, cmd...)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err, out)
	}
	branch := r.Result.Worktree.Branch
	if !regexp.MustCompile(`^worktree/[a-z]+-[a-z]+-[0-9a-f]{4}$`).MatchString(branch) {
		t.Fatalf("generated branch %q", branch)
	}
	slug := strings.ReplaceAll(branch, "/", "-")
	if want := filepath.Join(w.Home, ".herdr", "worktrees", "app", slug); r.Result.Worktree.Path != want || !w.gitHas(t, want) {
		t.Fatalf("path %s, want %s", r.Result.Worktree.Path, want)
	}
	if r.Result.Workspace.Label != slug {
		t.Fatalf("default workspace label %q, want the directory name", r.Result.Workspace.Label)
	}
}

func runWithEnv(t *testing.T, bin string, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return string(out)
}

// §3: scoping by --workspace (exact id or sidebar position) and by the focused workspace.
func TestFakeWorkspaceScoping(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	k := herdrdouble.Knobs{}
	_, stderr, code := w.runDouble(t, k, w.Repo, "worktree", "list")
	if code != 1 || !strings.Contains(stderr, `"invalid_request"`) {
		t.Fatalf("unscoped list on an empty server: %d %s", code, stderr)
	}
	if _, _, code := w.runDouble(t, k, w.Repo, "worktree", "create", "--cwd", w.Repo, "--branch", "a"); code != 0 {
		t.Fatal("create failed")
	} // w1 = linked a, w2 = parent
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"worktree", "list"}, 0, `"type":"worktree_list"`},                                           // focused/first workspace
		{[]string{"worktree", "list", "--workspace", "w1"}, 0, `"repo_root":"` + w.Repo},                      // linked is fine for list
		{[]string{"worktree", "create", "--workspace", "w1", "--branch", "b"}, 1, `"linked_worktree_source"`}, // Herdr #1739
		{[]string{"worktree", "create", "--workspace", "2", "--branch", "b"}, 0, `"worktree_created"`},        // position 2 = w2
		{[]string{"worktree", "list", "--workspace", "wX"}, 1, `"workspace_not_found"`},
		{[]string{"worktree", "remove", "--workspace", "99"}, 1, `"not_linked_worktree"`}, // upstream quirk
		{[]string{"worktree", "remove", "--workspace", "w9"}, 1, `"workspace_not_found"`},
	} {
		out, stderr, code := w.runDouble(t, k, w.Repo, c.args...)
		if code != c.code || !strings.Contains(out+stderr, c.want) {
			t.Errorf("%q: exit %d, %s%s", c.args, code, out, stderr)
		}
	}
}

// §3 open: ambiguous branches, prunable and detached checkouts.
func TestFakeOpenEdgeCases(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	a, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/a"})
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(filepath.Dir(w.Repo), "twin")
	w.Git(t, w.Repo, "worktree", "add", "-q", "-f", twin, "feat/a")
	_, err = c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "feat/a"})
	replyErr(t, err, "ambiguous_worktree_branch")

	detached := filepath.Join(filepath.Dir(w.Repo), "detached")
	w.Git(t, w.Repo, "worktree", "add", "-q", "--detach", detached)
	if err := os.RemoveAll(twin); err != nil {
		t.Fatal(err)
	}
	l, err := c.List(bg, w.Repo)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]WorktreeInfo{}
	for _, wt := range l.Worktrees {
		byPath[wt.Path] = wt
	}
	if d := byPath[detached]; !d.IsDetached || d.Branch != "" || !d.IsLinkedWorktree {
		t.Fatalf("detached = %+v", d)
	}
	if p := byPath[twin]; !p.IsPrunable {
		t.Fatalf("twin = %+v", p)
	}
	_, err = c.Open(bg, OpenArgs{Cwd: w.Repo, Path: twin})
	he := replyErr(t, err, "worktree_not_found")
	if he.Message != "worktree cannot be opened" {
		t.Fatalf("message = %q", he.Message)
	}
	// With the twin prunable, the branch is no longer ambiguous.
	o, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "feat/a"})
	if err != nil || o.Worktree.Path != a.Worktree.Path || !o.AlreadyOpen {
		t.Fatalf("open = %+v, %v", o, err)
	}
	// Opening a detached checkout makes a new workspace with membership.
	o, err = c.Open(bg, OpenArgs{Cwd: w.Repo, Path: detached})
	if err != nil || o.AlreadyOpen || o.Workspace.Worktree == nil || !o.Workspace.Worktree.IsLinkedWorktree {
		t.Fatalf("open detached = %+v, %v", o, err)
	}
}
