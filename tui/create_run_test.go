package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// withTmux is a picker on the tmux backend, as svc.BackendName() and svc.RunsCommands()
// would say.
func (m Model) withTmux() Model {
	m = m.withWorkspaces()
	m.backend = "tmux"
	m.runsCommands = true
	return m
}

// Under tmux the new-worktree form has a run command and a prompt, after the path; what
// is typed there becomes the request's Run and Prompt. Pinned at 100x24, in colour.
func TestGoldenFormTmuxRunAndPrompt(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 24, Options{}).withWorkspaces(), fxMixed(), fxMixedStatus()).withTmux()
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "agent/fix")
	m, _ = send(t, m, press("tab"), press("tab"), press("tab"), press("tab")) // base, path, label, run
	if m.form.focus != fieldRun {
		t.Fatalf("focus on %s after four tabs, want run", fieldNames[m.form.focus])
	}
	m = typeText(t, m, "claude")
	m, _ = send(t, m, press("tab"))
	m = typeText(t, m, "fix the flaky test")
	req := m.form.request()
	if req.Run == nil || *req.Run != "claude" || req.Prompt == nil || *req.Prompt != "fix the flaky test" {
		t.Fatalf("request %+v: want run claude and its prompt", req)
	}
	v := plain(m)
	for _, w := range []string{"run", "prompt", "claude", "fix the flaky test", "tmux window"} {
		if !strings.Contains(v, w) {
			t.Errorf("the form lacks %q:\n%s", w, v)
		}
	}
	checkFrame(t, m)
	golden.RequireEqual(t, m.View().Content)
}

// Other backends have no window to start a command in: no run or prompt field, and the
// request carries none.
func TestFormWithoutTmuxHasNoRunField(t *testing.T) {
	t.Parallel()
	for _, m := range []Model{newTestModel(100, 24, Options{}), newTestModel(100, 24, Options{}).withWorkspaces()} {
		m = loaded(t, m, fxMixed(), fxMixedStatus())
		m, _ = send(t, m, press("n"))
		for range 8 {
			if m.form.focus == fieldRun || m.form.focus == fieldPrompt {
				t.Fatalf("%s backend: focus reached %s", m.backend, fieldNames[m.form.focus])
			}
			m, _ = send(t, m, press("tab"))
		}
		if v := plain(m); strings.Contains(v, "  prompt") || strings.Contains(v, "  run ") {
			t.Errorf("%s backend shows a run field:\n%s", m.backend, v)
		}
		if req := m.form.request(); req.Run != nil || req.Prompt != nil {
			t.Errorf("%s backend: request %+v carries a run", m.backend, req)
		}
	}
}

// In a private tmux server, the form's run command and prompt start the agent in the new
// worktree's window; with a custom path the confirmation shows both first, and y starts it.
func TestFlowFormStartsAnAgentUnderTmux(t *testing.T) {
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	getenv := func(k string) string {
		if v, ok := srv.Env()[k]; ok {
			return v
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "auto", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil || svc.BackendName() != "tmux" {
		t.Fatalf("open under tmux: %v", err)
	}
	f := startFlow(t, svc, Options{})
	f.wait("the list", func(fr frame) bool { return fr.loaded })
	f.keys("n")
	f.wait("the form", func(fr frame) bool { return fr.mode == modeForm })
	path := r.Base + "/elsewhere"
	f.keys(strings.Split("agent/two", "")...)
	f.keys("tab", "tab")
	f.keys(strings.Split(path, "")...)
	f.keys("tab", "tab")
	f.keys(strings.Split(`printf 'got %s.'`, "")...)
	f.keys("tab")
	f.keys(strings.Split("hello world", "")...)
	f.keys("enter")
	fr := f.wait("the confirmation", func(fr frame) bool { return fr.mode == modeConfirm })
	for _, w := range []string{"run (sh -c)", `printf 'got %s.'`, "prompt", "hello world", path} {
		if !strings.Contains(fr.view, w) {
			t.Errorf("the confirmation lacks %q:\n%s", w, fr.view)
		}
	}
	f.keys("y")
	var ws string
	srv.WaitFor("the agent's window", func() bool {
		for _, l := range srv.Windows() {
			if id, mark, _ := strings.Cut(l, "\t"); mark == path {
				ws = id
			}
		}
		return ws != ""
	})
	srv.WaitFor("the agent's output", func() bool { return strings.Contains(srv.Capture(ws), "got hello world.") })
	f.result() // the picker switched to the new worktree and ended
}

// In a private tmux server with two agents waiting for their person, a goes to one, then
// the other, then back to the first; the rows say "needs you" with the program's name.
func TestFlowNextNeedsYouUnderTmux(t *testing.T) {
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	getenv := func(k string) string {
		if v, ok := srv.Env()[k]; ok {
			return v
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "auto", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil || svc.BackendName() != "tmux" {
		t.Fatalf("open under tmux: %v", err)
	}
	var paths []string
	for _, b := range []string{"agent/one", "agent/two", "feat/quiet"} {
		run := "printf 'continue? '; head -n 1; exec sleep 600"
		if b == "feat/quiet" {
			run = "exec sleep 600"
		}
		out, err := svc.Do(core.WithTypedByPerson(context.Background()), core.CreateRequest{Branch: b, Run: core.Str(run)}, false)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, out.Path)
	}
	f := startFlow(t, svc, Options{})
	f.wait("both agents needing their person", func(fr frame) bool {
		return strings.Count(fr.view, "head needs you") == 2
	})
	var seen []string
	for range 3 {
		f.keys("a")
		seen = append(seen, f.frame().selected)
	}
	if seen[0] == seen[1] || seen[0] != seen[2] || !contains(paths[:2], seen[0]) || !contains(paths[:2], seen[1]) {
		t.Errorf("a, a, a selected %v; want the two waiting agents in turn (%v)", seen, paths[:2])
	}
	f.keys("q")
	f.result()
}
