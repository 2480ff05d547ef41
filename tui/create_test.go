package tui

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

// formWithInfo is the create form with what the background reads return: the default base,
// a setup configuration and the default path of the branch typed.
func formWithInfo(t *testing.T, w, h int) Model {
	m := mixed(t, w, h)
	m, _ = send(t, m, press("n"))
	m, _ = send(t, m, formInfoMsg{
		base:    core.CreateBase{Ref: "main", Commit: oid('b'), Branch: "main", From: core.BaseFromMain},
		subject: "login: remember the user",
		setup:   core.SetupConfig{Copy: []string{".env*", ".vscode/"}, Steps: []string{"npm ci"}},
	})
	m = typeText(t, m, "feat/search")
	m, _ = send(t, m, defaultPathMsg{seq: m.form.checkSeq, path: "/home/dev/src/app.worktrees/feat-search"})
	return m
}

func TestGoldenCreateForm80x24(t *testing.T)  { goldenPlain(t, formWithInfo(t, 80, 24)) }
func TestGoldenCreateForm120x35(t *testing.T) { goldenPlain(t, formWithInfo(t, 120, 35)) }

func TestFormToggles(t *testing.T) {
	t.Parallel()
	m := formWithInfo(t, 100, 30)
	if !m.form.switchTo || !m.form.runSetup {
		t.Fatal("switch and setup must be on by default")
	}
	// branch → base → path → switch: space turns it off; → setup: space turns that off.
	m, _ = send(t, m, press("tab"), press("tab"), press("tab"), press("space"), press("tab"), press("space"))
	if m.form.switchTo || m.form.runSetup {
		t.Fatalf("toggles: switch=%v setup=%v", m.form.switchTo, m.form.runSetup)
	}
	if v := plain(m); !strings.Contains(v, "[ ] switch to it") || !strings.Contains(v, "[ ] run setup") {
		t.Errorf("view:\n%s", v)
	}
	m, _ = send(t, m, press("tab")) // wraps to branch
	if m.form.focus != fieldBranch {
		t.Errorf("focus after the last toggle = %d", m.form.focus)
	}
}

// A broken setup configuration stops the create before anything runs, as in the CLI;
// turning "run setup" off lets it through.
func TestFormBrokenSetupConfigBlocksSubmit(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 30)
	m, _ = send(t, m, press("n"))
	m, _ = send(t, m, formInfoMsg{setupErr: &core.Error{Kind: core.KindUsage, Code: "bad_config", Field: "copse.setupTimeout",
		Message: "git config copse.setupTimeout is \"soon\", not a duration", Hint: "set a duration such as 10m"}})
	m = typeText(t, m, "feat/x")
	m, cmd := send(t, m, press("enter"))
	if m.op != nil || cmd != nil || !strings.Contains(plain(m), "not a duration") {
		t.Fatalf("submit went ahead with a broken setup config (op=%v):\n%s", m.op, plain(m))
	}
	m, _ = send(t, m, press("tab"), press("tab"), press("tab"), press("tab"), press("space"))
	m, _ = send(t, m, press("enter"))
	if m.op == nil {
		t.Error("with setup off the create does not start")
	}
}

func setupPanel(t *testing.T, w, h int, failed bool) Model {
	m := mixed(t, w, h)
	s := &setupState{path: "/home/dev/src/app.worktrees/feat-search", label: "feat/search", running: !failed,
		cancel: func() {}, stream: newLogStream(m.ctx)}
	m.views.setup = s
	m.mode = modeSetup
	var chunks []string
	chunks = append(chunks, "copse: setup 1/1: npm ci\n", "\x1b[32madded 812 packages\x1b[0m in 14s\n", "progress 10%\rprogress 100%\n")
	for i := 1; i <= 30; i++ {
		chunks = append(chunks, "line "+strings.Repeat("x", i%7)+"\n")
	}
	done := false
	if failed {
		s.stream.err = &core.Error{Kind: core.KindFailed, Code: "setup_failed",
			Message: "setup step 1 of 1 (npm ci) exited with status 1; the worktree stays at /home/dev/src/app.worktrees/feat-search",
			Hint:    "fix it, then rerun the setup: `copse setup /home/dev/src/app.worktrees/feat-search`"}
		done = true
	}
	m, _ = send(t, m, setupLogMsg{stream: s.stream, chunks: chunks, done: done})
	return m
}

func TestGoldenSetupRunning80x24(t *testing.T) { goldenPlain(t, setupPanel(t, 80, 24, false)) }
func TestGoldenSetupFailed120x35(t *testing.T) { goldenPlain(t, setupPanel(t, 120, 35, true)) }

func TestSetupLogIsMadeSafe(t *testing.T) {
	t.Parallel()
	s := &setupState{}
	s.add("a\x1b]0;title\x07b\tc\n")
	s.add("half")
	s.add(" line\rover\n\x1b[2Jrest")
	got := s.content()
	if strings.ContainsAny(got, "\x1b\x07\r\t") {
		t.Errorf("control characters reach the screen: %q", got)
	}
	if want := "ab    c\nover\nrest"; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
}
