package omptest

import (
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

// run types a slash command and runs it: enter, and once more if omp's completion list took
// the first one (the editor still holds the command), until want shows.
func (p *pane) run(cmd, want string) {
	p.T.Helper()
	p.Text(cmd)
	p.Keys("Enter")
	deadline := time.Now().Add(5 * time.Second)
	p.WaitFor(want, func(string) bool {
		s := p.Screen()
		if strings.Contains(s, want) {
			return true
		}
		if time.Now().After(deadline) && strings.Contains(s, "╰─ "+cmd) {
			p.Keys("Enter")
			deadline = time.Now().Add(5 * time.Second)
		}
		return false
	})
}

// resume waits for the /resume command /copse put in omp's editor and returns its argument.
// (The notice beside it is omp's transient status line: gone after a while, so not waited for.)
func (p *pane) resume() string {
	p.T.Helper()
	var arg string
	p.WaitFor("/resume in the editor", func(string) bool {
		for _, l := range strings.Split(p.Screen(), "\n") {
			if a, ok := strings.CutPrefix(strings.TrimSpace(l), "╰─ /resume "); ok && strings.TrimSpace(a) != "" {
				arg = strings.TrimSpace(a)
				return true
			}
		}
		return false
	})
	return arg
}

// sessionOf is copse's name for the omp session /resume ARG names: "pi:" and the id in the
// session file's header.
func (w *world) sessionOf(arg string) string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.s.Home, ".omp", "agent", "sessions", "*", arg+".jsonl"))
	if len(files) != 1 {
		w.t.Fatalf("want one session file named %s.jsonl, got %q", arg, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		w.t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var h struct{ Type, ID string }
		if json.Unmarshal([]byte(line), &h) == nil && h.Type == "session" && h.ID != "" {
			return "pi:" + h.ID
		}
	}
	w.t.Fatalf("%s has no session header:\n%.300s", files[0], b)
	return ""
}

// claims is hosttest.Claims in the world's main checkout, printed for comparing.
func (w *world) claims() string {
	w.t.Helper()
	return fmt.Sprint(hosttest.Claims(w.t, buildCopse(w.t), w.env(), w.s.Repo))
}

// TestCopseCommandInOmp: omp keeps /worktree for its own command, so copse's is /copse. It
// moves omp as pi's command moves pi: the picker (copse pick takes the terminal and gives it
// back), a new session or this conversation carried over the first time omp enters a
// worktree, the worktree's last session when it comes back (/copse -), and the worktree omp
// is in claimed for omp's session. omp's own /resume makes each switch.
func TestCopseCommandInOmp(t *testing.T) {
	// The fake model's reply to "hello from main" (omp puts a system reminder before the text).
	const mainReply = "</system-reminder>hello from main"
	w := newWorld(t, false)
	feat := filepath.Join(filepath.Dir(w.s.Repo), "feat")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "feat", feat)
	other := filepath.Join(filepath.Dir(w.s.Repo), "other")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "other", other)
	taken := filepath.Join(filepath.Dir(w.s.Repo), "taken")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "taken", taken)
	claimTaken := exec.Command(buildCopse(t), "claim", "taken", "--session", "agent-7")
	claimTaken.Dir, claimTaken.Env = w.s.Repo, w.env()
	if out, err := claimTaken.CombinedOutput(); err != nil {
		t.Fatalf("copse claim taken: %v\n%s", err, out)
	}
	p := w.startOmp()
	p.send("hello from main")
	p.WaitText(mainReply)

	// The picker: copse pick has the terminal, filtered to feat, enter picks it.
	p.run("/copse", "enter select")
	p.WaitText(feat, other)
	p.Text("feat")
	p.WaitFor("the picker's filter", func(s string) bool { return !strings.Contains(s, other) })
	p.Keys("Enter")
	p.WaitText("First time in feat in this omp", "New session in this worktree", "Carry this conversation over")
	if s := p.Screen(); strings.Index(s, "New session") > strings.Index(s, "Carry this") {
		t.Fatalf("a new session must be the first (default) choice:\n%s", s)
	}
	p.choose("First time in feat in this omp", "New session in this worktree")
	featSession := w.sessionOf(p.resume())
	p.Keys("Enter")
	p.WaitText("Resumed session in "+feat, "copse: feat (new session), /copse - goes back")
	if strings.Contains(p.Screen(), "hello from main") {
		t.Fatalf("the new session shows the main session's messages:\n%s", p.Screen())
	}
	p.send("where")
	p.WaitText("current working directory: '" + feat + "'")
	want := fmt.Sprint(map[string]string{"main": "", "feat": featSession, "other": "", "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims in feat: %s, want %s", got, want)
	}

	// Back: main's own session, its conversation there again, feat's claim released.
	p.run("/copse -", "╰─ /resume ")
	p.resume()
	p.Keys("Enter")
	p.WaitText("Resumed session in "+w.s.Repo, "copse: main (back in its last session)", mainReply)
	if strings.Contains(p.Screen(), "current working directory: '"+feat+"'") {
		t.Fatalf("main's session shows feat's messages:\n%s", p.Screen())
	}
	want = fmt.Sprint(map[string]string{"main": "", "feat": "", "other": "", "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims back in main: %s, want %s", got, want)
	}

	// Carried over: other starts with main's conversation, in other's directory.
	p.run("/copse other", "First time in other in this omp")
	p.choose("First time in other in this omp", "Carry this conversation over")
	otherSession := w.sessionOf(p.resume())
	p.Keys("Enter")
	p.WaitText("Resumed session in "+other, "copse: other (carrying this conversation)", mainReply)
	// omp's reminder of its directory came with the first message, so omp's bash tool says where it is.
	p.send(`call bash {"command":"echo now in $(pwd)"}`)
	p.WaitText("tool bash done: now in " + other)
	want = fmt.Sprint(map[string]string{"main": "", "feat": "", "other": otherSession, "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims in other: %s, want %s", got, want)
	}

	// Another session's claim: omp says so in its footer and leaves it alone (and other's
	// claim, omp's, is released as omp leaves).
	p.run("/copse taken", "First time in taken in this omp")
	p.choose("First time in taken in this omp", "New session in this worktree")
	p.resume()
	p.Keys("Enter")
	p.WaitText("Resumed session in "+taken, "copse: taken (new session), not claimed: ")
	want = fmt.Sprint(map[string]string{"main": "", "feat": "", "other": "", "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims in taken: %s, want %s", got, want)
	}

	// Back to feat (by its path): its last session, without asking again.
	p.run("/copse "+feat, "╰─ /resume ")
	if got := w.sessionOf(p.resume()); got != featSession {
		t.Fatalf("back in feat: /resume names %s, want feat's session %s", got, featSession)
	}
	p.Keys("Enter")
	p.WaitText("Resumed session in "+feat, "copse: feat (back in its last session)", "current working directory: '"+feat+"'")
	want = fmt.Sprint(map[string]string{"main": "", "feat": featSession, "other": "", "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims back in feat: %s, want %s", got, want)
	}

	p.run("/copse nosuch", "No worktree has branch nosuch. Create one?")
	p.Keys("Escape")
	p.WaitFor("the question to close", func(s string) bool { return !strings.Contains(s, "Create one?") })

	// Quitting omp releases the claim it holds.
	p.Text("/quit")
	p.Keys("Enter")
	deadline := time.Now().Add(5 * time.Second)
	p.WaitFor("omp to quit", func(string) bool {
		if dead, _ := p.Tmux("display-message", "-p", "-t", "omp", "#{pane_dead}"); strings.TrimSpace(dead) == "1" {
			return true
		}
		if time.Now().After(deadline) && strings.Contains(p.Screen(), "╰─ /quit") {
			p.Keys("Enter") // the first enter took the completion
			deadline = time.Now().Add(5 * time.Second)
		}
		return false
	})
	want = fmt.Sprint(map[string]string{"main": "", "feat": "", "other": "", "taken": "agent-7"})
	if got := w.claims(); got != want {
		t.Fatalf("claims after omp quit: %s, want %s", got, want)
	}
}
