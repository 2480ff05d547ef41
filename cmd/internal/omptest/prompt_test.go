package omptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/hosttest"
)

// omp's interactive screen in a tmux server of the test's own (tmux -S, a private socket),
// for what print mode cannot show: the approval prompt, answered yes and no.

type pane struct{ *hosttest.Pane }

// startOmp starts the interactive omp in the world's main checkout.
func (w *world) startOmp() *pane {
	w.t.Helper()
	t := w.t
	// No first-run wizard, update check or splash: omp starts at its editor.
	cfg := filepath.Join(w.s.Home, ".omp", "agent", "config.yml")
	if err := os.WriteFile(cfg, []byte("setupVersion: 2\nstartup:\n  setupWizard: false\n  checkUpdate: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(w.env(), "TERM=xterm-256color", "LANG=C.UTF-8")
	p := &pane{hosttest.Start(t, "omp", env, w.s.Repo, filepath.Join(w.bin, "omp"), "--no-extensions",
		"-e", filepath.Join(ompDir, "fake-model.ts"), "-e", w.ext, "--model", "fake/echo")}
	p.WaitText("Fake echo model")
	return p
}

type toolResult struct {
	text    string
	isError bool
}

// results reads the herdr_worktree results omp saved in its session files.
func (w *world) results() []toolResult {
	w.t.Helper()
	var out []toolResult
	files, _ := filepath.Glob(filepath.Join(w.s.Home, ".omp", "agent", "sessions", "*", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var e struct {
				Message struct {
					Role     string `json:"role"`
					ToolName string `json:"toolName"`
					IsError  bool   `json:"isError"`
					Content  []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Message.Role != "toolResult" || e.Message.ToolName != "herdr_worktree" {
				continue
			}
			var text strings.Builder
			for _, c := range e.Message.Content {
				text.WriteString(c.Text)
			}
			out = append(out, toolResult{text.String(), e.Message.IsError})
		}
	}
	return out
}

// ask has the model call herdr_worktree and waits for omp's approval prompt.
func (p *pane) ask(args string, reason ...string) {
	p.T.Helper()
	p.send("call herdr_worktree " + args)
	p.WaitText(append([]string{"Allow tool: herdr_worktree", "copse runs this only after you confirm:"}, reason...)...)
}

// send types text into omp's editor and submits it. Under load omp can read the text and
// the enter in one go and take them for a paste, losing the enter, so enter is pressed
// again while the editor still holds the text.
func (p *pane) send(text string) {
	p.T.Helper()
	// The editor's first line: a long text wraps there.
	first := text
	if len(first) > 100 {
		first = first[:100]
	}
	held := func(s string) bool { return strings.Contains(s, "╰─ "+first) }
	p.Text(text)
	p.WaitFor("the editor to hold "+text, held)
	deadline := time.Now().Add(90 * time.Second)
	for {
		p.Keys("Enter")
		// A prompt on the screen means the text went through: another enter would answer it.
		if p.within(5*time.Second, func() bool { s := p.Screen(); return !held(s) || strings.Contains(s, "Allow tool:") }) {
			return
		}
		if time.Now().After(deadline) {
			p.T.Fatalf("enter never submitted %q; the screen:\n%s", text, p.Screen())
		}
	}
}

// within polls ok for up to d; it reports whether ok held.
func (p *pane) within(d time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(d); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// choose picks option in the selector titled title. A key that reaches omp before its
// selector listens is lost (seen under load), so the cursor moves one key at a time, each
// seen on the screen before the next, and enter is pressed again while the selector still
// stands there with option chosen.
func (p *pane) choose(title, option string) {
	p.T.Helper()
	p.WaitText(title)
	chosen := func() bool { s := p.Screen(); return strings.Contains(s, title) && strings.Contains(s, "❯ "+option) }
	deadline := time.Now().Add(90 * time.Second)
	for !chosen() {
		if time.Now().After(deadline) {
			p.T.Fatalf("%q never got the cursor in %q; the screen:\n%s", option, title, p.Screen())
		}
		p.Keys("Down")
		p.within(2*time.Second, chosen)
	}
	for {
		p.Keys("Enter")
		if p.within(5*time.Second, func() bool { return !chosen() }) {
			return
		}
		if time.Now().After(deadline) {
			p.T.Fatalf("enter never closed %q; the screen:\n%s", title, p.Screen())
		}
	}
}

// approve answers omp's prompt with Approve, then copse's own question, whose first
// choice is No: yes picks Yes there.
func (p *pane) approve(yes bool) {
	p.T.Helper()
	p.choose("Allow tool: herdr_worktree", "Approve")
	answer := "No, change nothing"
	if yes {
		answer = "Yes"
	}
	p.choose("copse asks: copse runs this only after you confirm:", answer)
}

// extensionAgent waits until copse list --status shows, in the main checkout, the omp
// agent its extension reported, in state (inside Herdr its word takes the place of the
// workspace's agent_status).
func (w *world) extensionAgent(state string) {
	w.t.Helper()
	var last string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		cmd := exec.Command(w.copse, "list", "--status", "--json")
		cmd.Env, cmd.Dir = w.env(), w.s.Repo
		out, err := cmd.Output()
		if err != nil {
			w.t.Fatalf("copse list --status --json: %v\n%s", err, out)
		}
		var l struct {
			Worktrees []struct {
				Path   string                                    `json:"path"`
				Agents []struct{ Command, State, Source string } `json:"agents"`
			} `json:"worktrees"`
		}
		if err := json.Unmarshal(out, &l); err != nil {
			w.t.Fatalf("copse list --status --json: %v\n%s", err, out)
		}
		for _, r := range l.Worktrees {
			if r.Path != w.s.Repo {
				continue
			}
			last = fmt.Sprintf("%+v", r.Agents)
			for _, a := range r.Agents {
				if a.Source == "extension" && a.State == state && a.Command == "omp" {
					return
				}
			}
		}
	}
	w.t.Fatalf("no omp agent %s (source extension) in %s; its agents: %s", state, w.s.Repo, last)
}

// deny answers omp's prompt with Deny.
func (p *pane) deny() {
	p.T.Helper()
	p.choose("Allow tool: herdr_worktree", "Deny")
}

// answered waits for the n-th herdr_worktree result and returns it.
func (w *world) answered(p *pane, n int) toolResult {
	w.t.Helper()
	var r []toolResult
	p.WaitFor("herdr_worktree result "+string(rune('0'+n)), func(string) bool { r = w.results(); return len(r) >= n })
	return r[n-1]
}

// TestHerdrWorktreeApprovalInOmp: remove prompts (no changes nothing, yes removes), a
// create with its own path prompts, and an approval for worktrees that changed while the
// prompt was open is stale_state.
func TestHerdrWorktreeApprovalInOmp(t *testing.T) {
	w := newWorld(t, true)
	p := w.startOmp()
	n := 0

	p.send(`call herdr_worktree {"operation":"create","branch":"feat"}`)
	n++
	if r := w.answered(p, n); r.isError {
		t.Fatalf("create: %s", r.text)
	}
	ws := linked(t, w)
	if len(ws) != 1 {
		t.Fatalf("want one workspace, have %+v", ws)
	}
	id := ws[0].ID

	// No: nothing changes.
	before := w.snapshot()
	p.ask(`{"operation":"remove","workspace_id":"`+id+`"}`, "operation: \"remove\"", "workspace_id: \""+id+"\"")
	p.deny()
	n++
	if r := w.answered(p, n); !r.isError {
		t.Fatalf("a declined remove did not fail: %s", r.text)
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a declined remove changed something:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if strings.Contains(w.requests(), "--approved") {
		t.Fatalf("a declined remove reached copse approved:\n%s", w.requests())
	}

	// A long value is cut with … on its line of the prompt.
	long := "w" + strings.Repeat("x", 120)
	p.ask(`{"operation":"remove","workspace_id":"`+long+`"}`, "│ workspace_id: \"w"+strings.Repeat("x", 60))
	for _, line := range strings.Split(p.Screen(), "\n") {
		if strings.HasPrefix(line, "│ workspace_id: ") && (!strings.Contains(line, "…") || strings.Contains(line, strings.Repeat("x", 100))) {
			t.Fatalf("the prompt's line for the value is not cut with …: %s", line)
		}
	}
	p.deny()
	n++
	if r := w.answered(p, n); !r.isError {
		t.Fatalf("a declined remove did not fail: %s", r.text)
	}

	// Stale: the worktrees change while the prompt is open; yes then runs nothing.
	p.ask(`{"operation":"remove","workspace_id":"` + id + `"}`)
	other := filepath.Join(filepath.Dir(w.s.Repo), "other")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "other", other)
	before = w.snapshot()
	p.approve(true)
	n++
	if r := w.answered(p, n); !r.isError || !strings.Contains(r.text, "stale_state") {
		t.Fatalf("an approval of a changed state was not refused as stale_state: %+v", r)
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a stale approval changed something:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Enter, enter: omp's Approve, then copse's No (its first choice): nothing changes.
	// While copse's question is open, omp needs the person: its extension tells copse.
	before = w.snapshot()
	p.ask(`{"operation":"remove","workspace_id":"` + id + `"}`)
	p.choose("Allow tool: herdr_worktree", "Approve")
	p.WaitText("copse asks: copse runs this only after you confirm:")
	w.extensionAgent("blocked")
	p.choose("copse asks: copse runs this only after you confirm:", "No, change nothing")
	n++
	if r := w.answered(p, n); !r.isError {
		t.Fatalf("enter at copse's question removed: %s", r.text)
	}
	if after := w.snapshot(); after != before {
		t.Fatalf("a remove declined at copse's question changed something:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Yes: removed, after copse was told the approval and the state token.
	p.ask(`{"operation":"remove","workspace_id":"` + id + `"}`)
	p.approve(true)
	n++
	if r := w.answered(p, n); r.isError {
		t.Fatalf("an approved remove failed: %s", r.text)
	}
	if ws := linked(t, w); len(ws) != 0 {
		t.Fatalf("an approved remove left workspaces %+v", ws)
	}
	for _, path := range w.s.WorktreePaths(t) {
		if strings.HasSuffix(path, "feat") {
			t.Fatalf("git still lists %s", path)
		}
	}
	mustContain(t, "copse requests", w.requests(), "tool --approved", `"expected_state_token":"`)

	// A create with its own path prompts; yes creates it there.
	mine := filepath.Join(filepath.Dir(w.s.Repo), "mine")
	p.ask(`{"operation":"create","branch":"mine","path":"`+mine+`"}`, "path: \""+mine+"\"")
	p.approve(true)
	n++
	if r := w.answered(p, n); r.isError {
		t.Fatalf("an approved create with a path failed: %s", r.text)
	}
	found := false
	for _, path := range w.s.WorktreePaths(t) {
		found = found || path == mine
	}
	if !found {
		t.Fatalf("no worktree at %s: %v", mine, w.s.WorktreePaths(t))
	}
}
