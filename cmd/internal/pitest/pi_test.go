package pitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/hosttest"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/gobuild"
)

// piDir is testdata/pi: package.json and lockfile pinning pi, the fake model, tsconfig.
var piDir, _ = filepath.Abs(filepath.Join("..", "..", "..", "testdata", "pi"))

func need(t *testing.T, name string) string {
	t.Helper()
	return hosttest.Need(t, name, "the pi end-to-end test (node, npm and tmux)")
}

// installPi runs npm ci in testdata/pi unless the pinned pi is already there (.ci/run
// installs it before go test). It returns pi's cli.js.
func installPi(t *testing.T) string {
	t.Helper()
	need(t, "node")
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(piDir, "package.json"), &manifest)
	pinned := manifest.Dependencies["@mariozechner/pi-coding-agent"]
	pkg := filepath.Join(piDir, "node_modules", "@mariozechner", "pi-coding-agent")
	var installed struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || json.Unmarshal(b, &installed) != nil || installed.Version != pinned {
		npm := need(t, "npm")
		t.Logf("installing pi %s with npm ci in %s", pinned, piDir)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = piDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", piDir, err, out)
		}
	}
	return filepath.Join(pkg, "dist", "cli.js")
}

var readJSON = hosttest.ReadJSON

// buildCopse builds copse into a fresh directory (with the Go caches of whoever runs go test) and
// returns the directory. COPSE_TEST_BIN=/path/to/copse tests that binary instead.
func buildCopse(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if bin := os.Getenv("COPSE_TEST_BIN"); bin != "" {
		if err := os.Symlink(bin, filepath.Join(dir, "copse")); err != nil {
			t.Fatal(err)
		}
		t.Logf("testing %s (COPSE_TEST_BIN)", bin)
		return dir
	}
	if err := gobuild.Build(filepath.Join(dir, "copse"), "github.com/copse-dev/copse/cmd/copse"); err != nil {
		t.Fatalf("building copse: %v", err)
	}
	return dir
}

// The extension type-checks against pi's own types.
func TestExtensionTypeChecks(t *testing.T) {
	installPi(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(piDir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json")
	cmd.Dir = piDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc --noEmit (testdata/pi/tsconfig.json: assets/pi/worktree.ts and fake-model.ts): %v\n%s", err, out)
	}
}

// pane is pi running in a tmux server of its own.
type pane struct{ *hosttest.Pane }

// startPi starts pi (cli.js) in dir, in a tmux server of the test's own, with the fake model.
func startPi(t *testing.T, env []string, dir, cli string) *pane {
	t.Helper()
	return &pane{hosttest.Start(t, "pi", env, dir, "node", cli, "-e", filepath.Join(piDir, "fake-model.ts"), "--model", "fake/echo")}
}

// footer is pi's footer line with the session's directory and branch.
func footer(dir, branch string) string { return dir + " (" + branch + ")" }

// editorLine reports whether the editor (between pi's two rules) holds exactly s.
func editorHolds(screen, s string) bool {
	lines := strings.Split(screen, "\n")
	for i := 1; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == s && strings.HasPrefix(lines[i-1], "───") && strings.HasPrefix(lines[i+1], "───") {
			return true
		}
	}
	return false
}

// completing reports whether pi's completion list shows item selected ("→ item").
func completing(screen, item string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "→" && f[1] == item {
			return true
		}
	}
	return false
}

// command types a slash command whose argument pi completes, and runs it: the first enter
// takes the completion item (the argument itself), the second runs the command.
func (p *pane) command(cmd, item string) {
	p.T.Helper()
	p.Text(cmd)
	p.WaitFor("completion "+item, func(s string) bool { return completing(s, item) })
	p.Keys("Enter")
	p.WaitFor("the completion list to close", func(s string) bool { return !completing(s, item) && editorHolds(s, cmd) })
	p.Keys("Enter")
}

// toolResults reads every tool result pi saved in its session files under home.
func toolResults(t *testing.T, home, tool string) []string {
	t.Helper()
	var texts []string
	files, _ := filepath.Glob(filepath.Join(home, ".pi", "agent", "sessions", "*", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var e struct {
				Type    string `json:"type"`
				Message struct {
					Role     string `json:"role"`
					ToolName string `json:"toolName"`
					Content  []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Message.Role != "toolResult" || e.Message.ToolName != tool {
				continue
			}
			for _, c := range e.Message.Content {
				texts = append(texts, c.Text)
			}
		}
	}
	return texts
}

// TestWorktreeInPi: the whole /worktree flow with the real pi.
func TestWorktreeInPi(t *testing.T) {
	cli := installPi(t)
	need(t, "tmux")
	bin := buildCopse(t)

	r := coretest.New(t)
	feat := r.AddWorktree("feat", "app.worktrees/feat")
	other := r.AddWorktree("other", "app.worktrees/other")
	gone := r.AddWorktree("gone", "app.worktrees/gone")

	env := append(coretest.Env(r.Home),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+os.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color", "PI_OFFLINE=1")

	// Installed the way a user installs it: into ~/.pi/agent/extensions.
	install := exec.Command(filepath.Join(bin, "copse"), "init", "pi", "--install")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "wrote ~/.pi/agent/extensions/copse-worktree.ts") {
		t.Fatalf("copse init pi --install: %v\n%s", err, out)
	}

	p := startPi(t, env, r.Root, cli)

	// pi starts in the main checkout with the extension loaded from ~/.pi/agent/extensions.
	p.WaitText(footer(r.Root, "main"), "copse-worktree.ts")
	p.Text("hello from main")
	p.Keys("Enter")
	p.WaitText("ok: hello from main")
	// The extension told copse first-hand: the turn is over, pi is idle in main.
	extensionAgent(t, bin, env, r.Root, "idle")

	// Short notices, not errors: already here; nothing picked.
	p.command("/worktree main", "main")
	p.WaitText("Already in this worktree: main")
	p.Text("/worktree")
	p.WaitText("Move pi to another worktree")
	p.Keys("Enter")
	p.WaitText("enter select", "app.worktrees/other") // copse's picker has the terminal
	p.Keys("Escape")                                  // copse pick types q into its filter; esc with nothing typed quits
	p.WaitText("Nothing picked", footer(r.Root, "main"))

	// /worktree: pick feat in copse's picker, choose a new session.
	p.Text("/worktree")
	p.WaitText("Move pi to another worktree")
	p.Keys("Enter")
	p.WaitText("enter select", "app.worktrees/feat")
	p.Text("feat") // copse pick filters as you type
	p.WaitFor("the picker's filter", func(s string) bool { return !strings.Contains(s, "app.worktrees/other") })
	p.Keys("Enter")
	s := p.WaitText("First time in feat in this pi", "New session in this worktree", "Carry this conversation over")
	if strings.Index(s, "New session") > strings.Index(s, "Carry this") {
		t.Fatalf("a new session must be the first (default) choice:\n%s", s)
	}
	p.Keys("Enter")
	s = p.WaitText(footer(feat, "feat"), "pi is in feat now (new session)")
	if strings.Contains(s, "hello from main") {
		t.Fatalf("the new session shows the main session's messages:\n%s", s)
	}

	// pi's own bash tool runs in the worktree.
	p.Text(`call bash {"command":"echo cwd=$(pwd) branch=$(git branch --show-current)"}`)
	p.Keys("Enter")
	p.WaitText("cwd="+feat+" branch=feat", "tool bash done")
	// pi's state follows it to the worktree it moved to (its process stayed in main).
	extensionAgent(t, bin, env, feat, "idle")

	// git_worktree_list through the fake model: copse's list, feat current.
	p.Text(`call git_worktree_list {}`)
	p.Keys("Enter")
	p.WaitText("tool git_worktree_list done")
	lists := toolResults(t, r.Home, "git_worktree_list")
	if len(lists) != 1 {
		t.Fatalf("want one git_worktree_list result in pi's session files, got %d", len(lists))
	}
	var list struct {
		Worktrees []struct {
			Branch  string `json:"branch"`
			Path    string `json:"path"`
			Current bool   `json:"current"`
		} `json:"worktrees"`
	}
	if err := json.Unmarshal([]byte(lists[0]), &list); err != nil {
		t.Fatalf("git_worktree_list result is not copse's list: %v\n%s", err, lists[0])
	}
	var rows []string
	for _, w := range list.Worktrees {
		rows = append(rows, fmt.Sprintf("%s %s %v", w.Branch, w.Path, w.Current))
	}
	wantRows := []string{"main " + r.Root + " false", "feat " + feat + " true", "gone " + gone + " false", "other " + other + " false"}
	if strings.Join(rows, "\n") != strings.Join(wantRows, "\n") {
		t.Fatalf("git_worktree_list:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(wantRows, "\n"))
	}

	// git_worktree_remove asks the person with copse's confirmation; no changes nothing.
	before := r.Snapshot()
	p.Text(`call git_worktree_remove {"branch":"other"}`)
	p.Keys("Enter")
	p.WaitText("copse asks", "Remove this worktree?", "branch: other", "path: "+other)
	// While copse's question is open, pi needs the person: its extension says so.
	extensionAgent(t, bin, env, feat, "blocked")
	// No is the first choice: enter alone declines, as in copse's own prompts.
	p.WaitFor("No selected", func(s string) bool { return strings.Contains(s, "→ No, change nothing") })
	p.Keys("Enter")
	p.WaitText("The person said no to: Remove this worktree?", "tool git_worktree_remove failed")
	r.Unchanged(before)
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("the worktree is gone after a no: %v", err)
	}

	// A yes only runs what was shown: the worktrees change while the question is open, so
	// copse refuses the approved request (stale state) and nothing is removed.
	p.Text(`call git_worktree_remove {"branch":"gone"}`)
	p.Keys("Enter")
	p.WaitText("copse asks", "branch: gone")
	r.Git(r.Root, "worktree", "add", "-q", "-b", "late", filepath.Join(r.Base, "late"))
	before = r.Snapshot()
	p.Keys("Down")
	p.WaitFor("Yes selected", func(s string) bool { return strings.Contains(s, "→ Yes") })
	p.Keys("Enter")
	p.WaitText("stale_state", "tool git_worktree_remove failed")
	r.Unchanged(before)
	// Asked again, a yes removes it.
	p.Text(`call git_worktree_remove {"branch":"gone"}`)
	p.Keys("Enter")
	p.WaitText("copse asks", "branch: gone")
	p.Keys("Down")
	p.WaitFor("Yes selected", func(s string) bool { return strings.Contains(s, "→ Yes") })
	p.Keys("Enter")
	p.WaitText("tool git_worktree_remove done")
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("the approved remove left %s (%v)", gone, err)
	}
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); strings.Contains(wl, gone) {
		t.Fatalf("git still lists the removed worktree:\n%s", wl)
	}

	// /worktree - goes back: the main session, its messages there again.
	p.command("/worktree -", "-")
	s = p.WaitText(footer(r.Root, "main"), "pi is in main now (back in its last session)", "hello from main", "ok: hello from main")
	if strings.Contains(s, "cwd="+feat) {
		t.Fatalf("the main session shows the feat session's messages:\n%s", s)
	}
	// Going to feat again (by its path this time) returns to feat's session, without asking
	// again (its last messages are the removes; the earlier ones scrolled off the screen).
	p.Text("/worktree " + feat + "/")
	p.WaitFor("the path in the editor", func(s string) bool { return editorHolds(s, "/worktree "+feat+"/") })
	p.Keys("Enter")
	p.WaitText(footer(feat, "feat"), "pi is in feat now (back in its last session)", "tool git_worktree_remove done")

	// The model cannot move pi: git_worktree_switch puts the command in the editor, and the
	// person runs it, here carrying the conversation into a worktree pi enters for the first time.
	p.Text(`call git_worktree_switch {"path":"` + other + `"}`)
	p.Keys("Enter")
	p.WaitFor("/worktree other in the editor", func(s string) bool {
		return editorHolds(s, "/worktree other") && strings.Contains(s, `Put "/worktree other" in pi's editor`)
	})
	if strings.Contains(p.Screen(), "tool git_worktree_switch done") {
		t.Fatal("the model went on after git_worktree_switch; it should stop for the person")
	}
	p.Keys("Enter")
	p.WaitText("First time in other in this pi", "Carry this conversation over")
	p.Keys("Down")
	p.WaitFor("Carry selected", func(s string) bool { return strings.Contains(s, "→ Carry this conversation over") })
	p.Keys("Enter")
	s = p.WaitText(footer(other, "other"), "pi is in other now (carrying this conversation)", "tool git_worktree_remove done",
		`Put "/worktree other" in pi's editor`)
	if strings.Contains(s, "tool git_worktree_switch done") {
		t.Fatalf("the model went on after git_worktree_switch; it should stop for the person:\n%s", s)
	}
	p.Text(`call bash {"command":"echo now cwd=$(pwd)"}`)
	p.Keys("Enter")
	p.WaitText("now cwd=" + other)

	// /worktree with a branch no worktree has offers to create it; No is the first choice
	// and changes nothing, a yes creates it through copse and moves pi there.
	before = r.Snapshot()
	p.Text("/worktree task/new")
	p.WaitFor("the branch in the editor", func(s string) bool { return editorHolds(s, "/worktree task/new") })
	p.Keys("Enter")
	p.WaitText("No worktree has branch task/new. Create one?")
	p.WaitFor("No selected", func(s string) bool { return strings.Contains(s, "→ No") })
	p.Keys("Enter")
	p.WaitText("No worktree was created")
	r.Unchanged(before)
	p.Text("/worktree task/new")
	p.WaitFor("the branch in the editor", func(s string) bool { return editorHolds(s, "/worktree task/new") })
	p.Keys("Enter")
	p.WaitText("No worktree has branch task/new. Create one?")
	p.Keys("Down")
	p.WaitFor("Create selected", func(s string) bool { return strings.Contains(s, "→ Create a worktree for task/new") })
	p.Keys("Enter")
	p.WaitText("First time in task/new in this pi")
	p.Keys("Enter")
	p.WaitText("pi is in task/new now")
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(wl, "branch refs/heads/task/new") {
		t.Fatalf("git lists no worktree on task/new:\n%s", wl)
	}
}

// Without copse, and with a copse too old for the extension, pi says so clearly.
func TestCopseMissingOrOldInPi(t *testing.T) {
	cli := installPi(t)
	need(t, "tmux")
	bin := buildCopse(t)
	r := coretest.New(t)
	fake := filepath.Join(t.TempDir(), "copse") // absent at first
	env := append(coretest.Env(r.Home),
		"PATH="+os.Getenv("PATH"), "COPSE_BIN="+fake,
		"TMPDIR="+os.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color", "PI_OFFLINE=1")
	install := exec.Command(filepath.Join(bin, "copse"), "init", "pi", "--install")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("copse init pi --install: %v\n%s", err, out)
	}
	p := startPi(t, env, r.Root, cli)
	p.WaitText(footer(r.Root, "main"), "copse was not found ("+fake+")", "COPSE_BIN")

	p.Text("/worktree")
	p.WaitText("Move pi to another worktree")
	p.Keys("Enter")
	p.WaitFor("the error again", func(s string) bool { return strings.Count(s, "copse was not found") == 2 })

	// A copse from before `copse tool --schema`.
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo '{\"version\":\"v0.0.1\"}'; exit 0; fi\necho \"copse: unknown command $1\" >&2\nexit 2\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p.Text("/worktree")
	p.WaitText("Move pi to another worktree")
	p.Keys("Enter")
	p.WaitText("copse v0.0.1 (" + fake + ") is too old for /worktree: it has no `copse tool --schema`")
}

// copseJSON runs copse with args and decodes its JSON answer.
func copseJSON(t *testing.T, bin string, env []string, dir string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "copse"), args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("copse %q: %v\n%s", args, err, out)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("copse %q: %v\n%s", args, err, out)
	}
}

// extensionAgent waits until copse list --status shows, in the worktree at path, the pi
// agent its extension reported, in state.
func extensionAgent(t *testing.T, bin string, env []string, path, state string) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var l struct {
			Worktrees []struct {
				Path   string `json:"path"`
				Agents []struct {
					Command, State, Source string
				} `json:"agents"`
			} `json:"worktrees"`
		}
		copseJSON(t, bin, env, path, &l, "list", "--status", "--json")
		for _, w := range l.Worktrees {
			if w.Path != path {
				continue
			}
			last = fmt.Sprintf("%+v", w.Agents)
			for _, a := range w.Agents {
				if a.Source == "extension" && a.State == state && a.Command == "pi" {
					return
				}
			}
		}
	}
	t.Fatalf("no pi agent %s (source extension) in %s; its agents: %s", state, path, last)
}

// claims maps each worktree's branch to the session that claims it ("" for none).
func claims(t *testing.T, bin string, env []string, dir string) map[string]string {
	t.Helper()
	return hosttest.Claims(t, filepath.Join(bin, "copse"), env, dir)
}

// sessionID is the id in the header of the one session file pi wrote for dir.
func sessionID(t *testing.T, home, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".pi", "agent", "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(dir, "/"), "/", "-")+"--", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file for %s, got %q", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if json.Unmarshal([]byte(line), &h) != nil || h.Type != "session" || h.ID == "" {
		t.Fatalf("%s has no session header: %.200s", files[0], b)
	}
	return h.ID
}

// Claims follow pi: entering a linked worktree claims it for pi's session, leaving (and
// quitting pi) releases the claim pi took, and a claim pi did not take is left alone.
func TestClaimsInPi(t *testing.T) {
	cli := installPi(t)
	need(t, "tmux")
	bin := buildCopse(t)
	var schema struct {
		OneOf []struct {
			Properties struct {
				Operation struct {
					Const string `json:"const"`
				} `json:"operation"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	r := coretest.New(t)
	env := append(coretest.Env(r.Home),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+os.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color", "PI_OFFLINE=1")
	copseJSON(t, bin, env, r.Root, &schema, "tool", "--schema")
	var ops []string
	for _, v := range schema.OneOf {
		ops = append(ops, v.Properties.Operation.Const)
	}
	if !strings.Contains(" "+strings.Join(ops, " ")+" ", " claim ") {
		t.Fatalf("copse tool --schema lists no claim operation (operations: %s); the claims test needs it", strings.Join(ops, ", "))
	}

	feat := r.AddWorktree("feat", "app.worktrees/feat")
	r.AddWorktree("taken", "app.worktrees/taken")
	claimTaken := exec.Command(filepath.Join(bin, "copse"), "claim", "taken", "--session", "agent-7")
	claimTaken.Env, claimTaken.Dir = env, r.Root
	if out, err := claimTaken.CombinedOutput(); err != nil {
		t.Fatalf("copse claim taken: %v\n%s", err, out)
	}
	install := exec.Command(filepath.Join(bin, "copse"), "init", "pi", "--install")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("copse init pi --install: %v\n%s", err, out)
	}
	p := startPi(t, env, r.Root, cli)
	p.WaitText(footer(r.Root, "main"))

	p.command("/worktree feat", "feat")
	p.WaitText("First time in feat")
	p.Keys("Enter")
	p.WaitText(footer(feat, "feat"), "pi is in feat now")
	p.Text("hi")
	p.Keys("Enter")
	p.WaitText("ok: hi")
	sid := "pi:" + sessionID(t, r.Home, feat)
	want := map[string]string{"main": "", "feat": sid, "taken": "agent-7"}
	if got := claims(t, bin, env, r.Root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claims after entering feat: %v, want %v", got, want)
	}

	// Leaving releases pi's claim.
	p.command("/worktree -", "-")
	p.WaitText(footer(r.Root, "main"), "pi is in main now")
	want["feat"] = ""
	if got := claims(t, bin, env, r.Root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claims after leaving feat: %v, want %v", got, want)
	}

	// Another session's claim: pi says so, and leaves it alone when it goes.
	p.command("/worktree taken", "taken")
	p.WaitText("First time in taken")
	p.Keys("Enter")
	p.WaitText("Not claimed:", "agent-7")
	p.command("/worktree feat", "feat")
	p.WaitText(footer(feat, "feat"), "pi is in feat now (back in its last session)")
	want["feat"] = sid
	if got := claims(t, bin, env, r.Root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claims after taken and back to feat: %v, want %v", got, want)
	}

	// The model's claim tool is there, and acts for pi's session: taken stays agent-7's.
	p.Text(`call git_worktree_claim {"branch":"taken"}`)
	p.Keys("Enter")
	p.WaitText("is claimed by session agent-7", "[claimed]", "tool git_worktree_claim failed")

	// Quitting pi releases the claim it holds.
	p.Text("/quit")
	p.WaitFor("the quit command", func(s string) bool { return completing(s, "quit") || editorHolds(s, "/quit") })
	p.Keys("Enter")
	want["feat"] = ""
	deadline := time.Now().Add(60 * time.Second)
	for fmt.Sprint(claims(t, bin, env, r.Root)) != fmt.Sprint(want) {
		if time.Now().After(deadline) {
			t.Fatalf("claims after pi quit: %v, want %v\n%s", claims(t, bin, env, r.Root), want, p.Screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
