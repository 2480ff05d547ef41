// Package hosttest holds what the end-to-end tests of copse's extensions for coding-agent
// hosts (cmd/internal/pitest for pi, cmd/internal/omptest for Oh My Pi) share: finding the
// programs they need, and driving a host's screen in a tmux server of the test's own
// (tmux -S, a private socket: never the user's server). It is imported by tests only.
package hosttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Need returns the path of a program the test cannot run without. Missing locally, the
// test is skipped and says why (what names the test); in CI (CI=true) it fails, so CI never
// passes by skipping.
func Need(t testing.TB, name, what string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI for %s: %v", name, what, err)
		}
		t.Skipf("%s is not installed: %s needs it (skipped, not passed)", name, what)
	}
	return p
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Pane is a program running in the one window of a tmux server of the test's own.
type Pane struct {
	T    testing.TB
	Name string // the tmux session, and what the failure log calls the program
	sock string
	env  []string
}

// Start runs argv in dir, in a new private tmux server, on a 160×50 screen with env as its
// whole environment. When the test ends the server is killed (the screen logged first if
// the test failed) and Start waits for the program to exit: a host writing its session
// files until then would otherwise race the removal of the test's folders.
func Start(t testing.TB, name string, env []string, dir string, argv ...string) *Pane {
	t.Helper()
	Need(t, "tmux", "driving "+name+"'s screen")
	tmp := t.TempDir()
	conf := filepath.Join(tmp, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Pane{T: t, Name: name, sock: filepath.Join(tmp, "tmux.sock"), env: env}
	args := append([]string{"-f", conf, "new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", dir}, argv...)
	if out, err := p.Tmux(args...); err != nil {
		t.Fatalf("starting %s in tmux: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if s, err := p.Tmux("capture-pane", "-p", "-t", name); err == nil {
				t.Logf("%s's screen at the end:\n%s", name, s)
			}
		}
		pid, _ := p.Tmux("display-message", "-p", "-t", name, "#{pane_pid}")
		p.Tmux("kill-server")
		if pid = strings.TrimSpace(pid); pid != "" {
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat("/proc/" + pid); err != nil {
					break
				}
			}
		}
	})
	return p
}

// Tmux runs a tmux command against the pane's server.
func (p *Pane) Tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Screen is what the pane shows now.
func (p *Pane) Screen() string {
	p.T.Helper()
	out, err := p.Tmux("capture-pane", "-p", "-t", p.Name)
	if err != nil {
		p.T.Fatalf("tmux capture-pane: %v\n%s", err, out)
	}
	return out
}

// Keys sends tmux key names (Enter, Down, Escape…); Text types s literally.
func (p *Pane) Keys(keys ...string) {
	p.T.Helper()
	if out, err := p.Tmux(append([]string{"send-keys", "-t", p.Name}, keys...)...); err != nil {
		p.T.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

// Text types s literally.
func (p *Pane) Text(s string) {
	p.T.Helper()
	if out, err := p.Tmux("send-keys", "-t", p.Name, "-l", s); err != nil {
		p.T.Fatalf("tmux send-keys -l %q: %v\n%s", s, err, out)
	}
}

// WaitFor polls the screen until ok holds and returns that screen; it never sleeps a fixed
// time before looking, and fails the test after 90 seconds.
func (p *Pane) WaitFor(what string, ok func(screen string) bool) string {
	p.T.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := p.Screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.T.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitText waits until the screen shows every one of texts, and returns it.
func (p *Pane) WaitText(texts ...string) string {
	p.T.Helper()
	return p.WaitFor(fmt.Sprintf("%q", texts), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// Claims maps each worktree's branch to the session claiming it ("" for none), as
// `copse list --json` (copse is the binary) run in dir with env reports them.
func Claims(t testing.TB, copse string, env []string, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command(copse, "list", "--json")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("copse list --json: %v\n%s", err, out)
	}
	var l struct {
		Worktrees []struct {
			Branch string `json:"branch"`
			Claim  *struct {
				Session string `json:"session"`
			} `json:"claim"`
		} `json:"worktrees"`
	}
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatalf("copse list --json: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, w := range l.Worktrees {
		m[w.Branch] = ""
		if w.Claim != nil {
			m[w.Branch] = w.Claim.Session
		}
	}
	return m
}
