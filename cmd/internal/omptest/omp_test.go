package omptest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/hosttest"
	"github.com/copse-dev/copse/herdr/herdrdouble"
	"github.com/copse-dev/copse/internal/gobuild"
)

// ompDir is testdata/omp: package.json and lockfile pinning omp and bun, the fake model.
var ompDir, _ = filepath.Abs(filepath.Join("..", "..", "..", "testdata", "omp"))

func TestMain(m *testing.M) {
	code := m.Run()
	herdrdouble.Cleanup()
	os.Exit(code)
}

func need(t *testing.T, name string) string {
	t.Helper()
	return hosttest.Need(t, name, "the omp end-to-end test (node, npm and tmux)")
}

// installOmp runs npm install in testdata/omp unless the pinned omp is already there (.ci/run
// installs it before go test). It returns the folder holding omp and bun.
func installOmp(t *testing.T) string {
	t.Helper()
	need(t, "node")
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(ompDir, "package.json"), &manifest)
	pinned := manifest.Dependencies["@oh-my-pi/pi-coding-agent"]
	var installed struct {
		Version string `json:"version"`
	}
	pkg := filepath.Join(ompDir, "node_modules", "@oh-my-pi", "pi-coding-agent", "package.json")
	if b, err := os.ReadFile(pkg); err != nil || json.Unmarshal(b, &installed) != nil || installed.Version != pinned {
		npm := need(t, "npm")
		t.Logf("installing omp %s with npm install in %s", pinned, ompDir)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		// npm install with the lockfile, not npm ci: omp's native packages for other platforms
		// are not served, so the lockfile cannot list them and npm ci refuses it. Scripts run:
		// the bun package's postinstall puts the platform's bun binary in place.
		cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund")
		cmd.Dir = ompDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", ompDir, err, out)
		}
	}
	return filepath.Join(ompDir, "node_modules", ".bin")
}

var readJSON = hosttest.ReadJSON

// copseBin builds copse once per test binary. COPSE_TEST_BIN=/path/to/copse tests that binary.
var copseBuilt struct {
	dir string
	err error
}

func buildCopse(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("COPSE_TEST_BIN"); bin != "" {
		return bin
	}
	if copseBuilt.dir == "" && copseBuilt.err == nil {
		copseBuilt.dir, copseBuilt.err = os.MkdirTemp("", "omptest-copse-")
		if copseBuilt.err == nil {
			copseBuilt.err = gobuild.Build(filepath.Join(copseBuilt.dir, "copse"), "github.com/copse-dev/copse/cmd/copse")
		}
	}
	if copseBuilt.err != nil {
		t.Fatalf("building copse: %v", copseBuilt.err)
	}
	return filepath.Join(copseBuilt.dir, "copse")
}

// world is one test's sandbox: a repository, a HOME with the extension installed, the
// Herdr double's state, and a log of every `copse tool` request the extension sent.
type world struct {
	t        *testing.T
	s        *herdrdouble.Sandbox
	bin      string // node_modules/.bin: omp and bun
	copse    string // a wrapper that logs `copse tool` runs, then runs copse
	toolLog  string
	herdrLog string
	ext      string
	inHerdr  bool
	knobs    herdrdouble.Knobs // the Herdr double's knobs (Log is always herdrLog)
	herdr    string            // when set, the herdr omp runs (HERDR_BIN_PATH) instead of the double
}

func newWorld(t *testing.T, inHerdr bool) *world {
	t.Helper()
	bin := installOmp(t)
	s := herdrdouble.NewSandbox(t)
	w := &world{t: t, s: s, bin: bin, inHerdr: inHerdr,
		toolLog: filepath.Join(t.TempDir(), "copse-tool.log"), herdrLog: filepath.Join(t.TempDir(), "herdr.log")}
	real := buildCopse(t)
	w.copse = filepath.Join(t.TempDir(), "copse")
	// Logs each request `copse tool` gets (its flags and stdin), so a test can prove that
	// nothing reached copse; version and schema probes are not requests. copse replaces the
	// shell (exec, the request on its stdin), so the process omp signals is copse itself.
	script := "#!/bin/sh\nif [ \"$1\" = tool ] && [ \"$2\" != --schema ]; then\n" +
		"  in=$(cat); printf '%s %s\\n' \"$*\" \"$in\" >> " + shq(w.toolLog) + "\n" +
		"  exec " + shq(real) + " \"$@\" <<COPSE_REQUEST\n$in\nCOPSE_REQUEST\nfi\nexec " + shq(real) + " \"$@\"\n"
	if err := os.WriteFile(w.copse, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	install := exec.Command(w.copse, "init", "omp", "--install")
	install.Env = append(s.GitEnv(), "PATH="+os.Getenv("PATH"))
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "wrote ~/.omp/agent/extensions/copse-worktree.ts") {
		t.Fatalf("copse init omp --install: %v\n%s", err, out)
	}
	w.ext = filepath.Join(s.Home, ".omp", "agent", "extensions", "copse-worktree.ts")
	return w
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (w *world) env() []string {
	var env []string
	if w.inHerdr {
		k := w.knobs
		k.Log = w.herdrLog
		env = w.s.Env(k)
		if w.herdr != "" {
			env = append(env, "HERDR_BIN_PATH="+w.herdr) // the last of a name wins
		}
	} else {
		for _, kv := range w.s.GitEnv() {
			if !strings.HasPrefix(kv, "HERDR_") && !strings.HasPrefix(kv, "FAKE_HERDR_") {
				env = append(env, kv)
			}
		}
	}
	return append(env, "PATH="+w.bin+":"+os.Getenv("PATH"), "COPSE_BIN="+w.copse, "COPSE_SESSION=")
}

// yolo sets omp's approval mode, the one that approves every tier by itself.
func (w *world) yolo() {
	w.t.Helper()
	cfg := filepath.Join(w.s.Home, ".omp", "agent", "config.yml")
	if err := os.WriteFile(cfg, []byte("tools:\n  approvalMode: yolo\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// omp runs one print-mode turn in the main checkout and returns omp's output.
func (w *world) omp(prompt string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(w.bin, "omp"), "--no-extensions",
		"-e", filepath.Join(ompDir, "fake-model.ts"), "-e", w.ext, "--model", "fake/echo", "-p", prompt)
	cmd.Dir = w.s.Repo
	cmd.Env = w.env()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		w.t.Fatalf("omp did not finish: %s", out)
	}
	_ = err // a failed tool call is a reply, not a failure of omp
	return string(out)
}

// call has the fake model call tool with args and returns what the tool answered.
func (w *world) call(tool, args string) string {
	w.t.Helper()
	out := w.omp("call " + tool + " " + args)
	i := strings.Index(out, "tool "+tool+" ")
	if i < 0 {
		return out // refused by omp before the tool: its own message
	}
	return out[i:]
}

func (w *world) requests() string {
	b, err := os.ReadFile(w.toolLog)
	if err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w *world) herdrCalls() string {
	b, err := os.ReadFile(w.herdrLog)
	if err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
	return string(b)
}

// snapshot is what a refused call must leave alone: git's worktrees and refs, the Herdr
// double's workspaces, and the files under the sandbox's worktree folders.
func (w *world) snapshot() string {
	w.t.Helper()
	var b strings.Builder
	b.WriteString(w.s.Git(w.t, w.s.Repo, "worktree", "list", "--porcelain"))
	b.WriteString(w.s.Git(w.t, w.s.Repo, "for-each-ref"))
	state, _ := os.ReadFile(w.s.State)
	b.Write(state)
	for _, dir := range []string{w.s.Worktrees, filepath.Dir(w.s.Repo)} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !strings.Contains(p, string(filepath.Separator)+".git") {
				b.WriteString(p + "\n")
			}
			return nil
		})
	}
	return b.String()
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(got, s) {
			t.Fatalf("%s: want %q in:\n%s", what, s, got)
		}
	}
}

func TestHerdrWorktreeListCreateOpen(t *testing.T) {
	w := newWorld(t, true)
	got := w.call("herdr_worktree", `{"operation":"list"}`)
	mustContain(t, "list", got, "tool herdr_worktree done:", `"backend":"herdr"`, w.s.Repo)

	got = w.call("herdr_worktree", `{"operation":"create","branch":"feat","label":"Feature"}`)
	mustContain(t, "create", got, "tool herdr_worktree done:", "Created feat from main", `"workspace_id":"w`)
	var feat string
	for _, p := range w.s.WorktreePaths(t) {
		if strings.HasSuffix(p, "feat") {
			feat = p
		}
	}
	if feat == "" {
		t.Fatalf("git lists no worktree for feat: %v", w.s.WorktreePaths(t))
	}
	if ws := linked(t, w); len(ws) != 1 || ws[0].Checkout != feat || ws[0].Label != "Feature" {
		t.Fatalf("after a create the double has linked workspaces %+v, want one for %s labelled Feature", ws, feat)
	}
	// focus defaults to false: herdr was told --no-focus.
	mustContain(t, "herdr calls", w.herdrCalls(), "--no-focus")
	if strings.Contains(w.herdrCalls(), `"--focus"`) {
		t.Fatalf("a create without focus passed --focus:\n%s", w.herdrCalls())
	}

	// open: a worktree made with git alone gets a workspace.
	other := filepath.Join(filepath.Dir(w.s.Repo), "other")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "other", other)
	got = w.call("herdr_worktree", `{"operation":"open","branch":"other"}`)
	mustContain(t, "open", got, "tool herdr_worktree done:", other)
	if ws := linked(t, w); len(ws) != 2 || ws[1].Checkout != other {
		t.Fatalf("after an open the double has linked workspaces %+v, want a second for %s", ws, other)
	}
}

// linked is the double's workspaces holding linked worktrees (Herdr keeps one for the main
// checkout too, the pane the test runs in).
func linked(t *testing.T, w *world) []herdrdouble.Workspace {
	var ws []herdrdouble.Workspace
	for _, x := range herdrdouble.ReadState(t, w.s.State).Workspaces {
		if x.Linked {
			ws = append(ws, x)
		}
	}
	return ws
}

// remove always prompts, so in print mode (no UI) omp refuses it, even in yolo mode, and
// nothing reaches copse or Herdr; a create with its own path likewise.
func TestHerdrWorktreePromptingCallsAreRefusedWithoutUI(t *testing.T) {
	w := newWorld(t, true)
	w.yolo()
	got := w.call("herdr_worktree", `{"operation":"create","branch":"feat"}`)
	mustContain(t, "create", got, "tool herdr_worktree done:")
	ws := linked(t, w)
	if len(ws) != 1 {
		t.Fatalf("want one workspace, have %v", ws)
	}
	before, requests, herdr := w.snapshot(), w.requests(), w.herdrCalls()

	for _, args := range []string{
		`{"operation":"remove","workspace_id":"` + ws[0].ID + `"}`,
		`{"operation":"remove","workspace_id":"` + ws[0].ID + `","force":true}`,
		`{"operation":"create","branch":"mine","path":"` + filepath.Join(filepath.Dir(w.s.Repo), "mine") + `"}`,
	} {
		got := w.omp("call herdr_worktree " + args)
		mustContain(t, args, got, "requires approval but no interactive UI")
		if strings.Contains(got, "tool herdr_worktree done") {
			t.Fatalf("%s ran without a prompt:\n%s", args, got)
		}
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a refused call changed the repository or Herdr:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The prompt's state-token question may reach copse (it changes nothing), never --approved.
	if strings.Contains(strings.TrimPrefix(w.requests(), requests), "--approved") {
		t.Fatalf("copse got an approved request:\n%s", w.requests())
	}
	// Reading the worktrees for that token runs herdr's list; nothing that changes anything.
	for _, action := range []string{"create", "open", "remove"} {
		if calls := strings.TrimPrefix(w.herdrCalls(), herdr); strings.Contains(calls, `"worktree","`+action+`"`) {
			t.Fatalf("herdr %s ran for a refused call:\n%s", action, calls)
		}
	}
}

// Hostile arguments are refused by the extension before copse or Herdr run, whatever omp's
// own validation made of them.
func TestHerdrWorktreeRefusesHostileArguments(t *testing.T) {
	w := newWorld(t, true)
	w.yolo()
	before := w.snapshot()
	const refused = "refused the request before running anything"
	for _, c := range []struct{ args, why string }{
		{`{"operation":"list","bogus":1}`, "list has no field"},
		{`{"operation":"create","branch":"feat","shell":"rm -rf /"}`, "create has no field"},
		{`{"operation":"create","branch":"a\nb"}`, "control character"},
		{`{"operation":"create","branch":"a\u202eb"}`, "bidirectional mark"},
		{`{"operation":"create","branch":"-b"}`, `starts with "-"`},
		{`{"operation":"open","branch":"--help"}`, `starts with "-"`},
		{`{"operation":"create","branch":"feat","focus":"true"}`, "must be true or false"},
		{`{"operation":"create","branch":"feat","path":"relative/dir"}`, "must be absolute"},
		// omp's own validation catches this one first; refused all the same.
		{`{"operation":"drop"}`, "Validation failed"},
	} {
		got := w.call("herdr_worktree", c.args)
		mustContain(t, c.args, got, "tool herdr_worktree failed:", c.why)
		if c.why != "Validation failed" {
			mustContain(t, c.args, got, refused)
		}
	}
	if r := w.requests(); r != "" {
		t.Fatalf("hostile requests reached copse:\n%s", r)
	}
	if h := w.herdrCalls(); h != "" {
		t.Fatalf("hostile requests reached herdr:\n%s", h)
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a refused call changed something:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Outside Herdr, herdr_worktree refuses every call and says why; the git_worktree_* tools work.
func TestHerdrWorktreeOutsideHerdr(t *testing.T) {
	w := newWorld(t, false)
	for _, args := range []string{`{"operation":"list"}`, `{"operation":"create","branch":"feat"}`} {
		got := w.call("herdr_worktree", args)
		mustContain(t, args, got, "tool herdr_worktree failed:", "only inside a Herdr pane", "HERDR_ENV is not 1", "git_worktree_")
	}
	if r := w.requests(); r != "" {
		t.Fatalf("herdr_worktree outside Herdr sent requests to copse:\n%s", r)
	}
	got := w.call("git_worktree_list", `{}`)
	mustContain(t, "git_worktree_list", got, "tool git_worktree_list done:", `"backend":"git"`)
}

// The schema omp offers the model for herdr_worktree is copse's own (copse tool --schema),
// restricted to the seed's fields: per operation, the same field names and, for each field,
// the very schema copse gives it.
func TestHerdrWorktreeSchemaIsCopses(t *testing.T) {
	w := newWorld(t, true)
	out := w.omp("schema herdr_worktree")
	i := strings.Index(out, "schema herdr_worktree: ")
	if i < 0 {
		t.Fatalf("no schema in omp's output:\n%s", out)
	}
	var offered struct {
		AnyOf []struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"anyOf"`
	}
	line, _, _ := strings.Cut(out[i+len("schema herdr_worktree: "):], "\n")
	if err := json.Unmarshal([]byte(line), &offered); err != nil {
		t.Fatalf("schema: %v\n%s", err, line)
	}
	cmd := exec.Command(buildCopse(t), "tool", "--schema")
	schemaOut, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var copse struct {
		OneOf []struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(schemaOut, &copse); err != nil {
		t.Fatal(err)
	}
	copseOps := map[string]map[string]json.RawMessage{}
	for _, v := range copse.OneOf {
		var op struct {
			Const string `json:"const"`
		}
		json.Unmarshal(v.Properties["operation"], &op)
		copseOps[op.Const] = v.Properties
	}
	want := map[string][]string{
		"list":   {},
		"create": {"base", "branch", "focus", "label", "path"},
		"open":   {"branch", "focus", "label", "path"},
		"remove": {"force", "workspace_id"},
	}
	got := map[string][]string{}
	for _, v := range offered.AnyOf {
		var op struct {
			Const string `json:"const"`
		}
		json.Unmarshal(v.Properties["operation"], &op)
		fields := []string{}
		for f, schema := range v.Properties {
			// omp adds "i" (the model's intent) to every tool and strips it before execute.
			if f == "operation" || f == "i" {
				continue
			}
			fields = append(fields, f)
			if !jsonEqual(schema, copseOps[op.Const][f]) {
				t.Errorf("%s.%s: omp offers %s, copse tool --schema has %s", op.Const, f, schema, copseOps[op.Const][f])
			}
		}
		sort.Strings(fields)
		got[op.Const] = fields
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("herdr_worktree's field sets: got %v, want %v", got, want)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// Output past 2 MB is reported as a size limit, not as a missing copse. The copse here is a
// stand-in that answers a request with 3 MB (copse's own replies are far smaller).
func TestHerdrWorktreeOutputCap(t *testing.T) {
	w := newWorld(t, true)
	real := w.copse
	w.copse = filepath.Join(t.TempDir(), "copse")
	script := "#!/bin/sh\nif [ \"$1\" = tool ] && [ \"$2\" != --schema ]; then\n" +
		"  head -c 3145728 /dev/zero | tr '\\0' x\n  exit 0\nfi\nexec " + shq(real) + " \"$@\"\n"
	if err := os.WriteFile(w.copse, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	got := w.call("herdr_worktree", `{"operation":"list"}`)
	mustContain(t, "list", got, "tool herdr_worktree failed:", "passed the 2 MB output limit")
	if strings.Contains(got, "was not found") || strings.Contains(got, strings.Repeat("x", 1000)) {
		t.Fatalf("the cap reads as a missing copse, or the output came through:\n%.2000s", got)
	}
}
