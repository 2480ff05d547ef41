package tui

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// serviceWithEnv is a git-backend Service whose environment adds env to the test repo's.
func serviceWithEnv(t *testing.T, r *coretest.Repo, env map[string]string) *core.Service {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// e runs $EDITOR in the selected worktree and ! runs $SHELL there, through tea.ExecProcess:
// the picker is still running when they end.
func TestFlowEditorAndShellRunInWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/edit", "app.worktrees/edit")
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor")
	coretest.WriteFile(t, editor, "#!/bin/sh\necho \"$(pwd) $1\" > '"+filepath.Join(dir, "edited")+"'\n")
	shell := filepath.Join(dir, "shell")
	coretest.WriteFile(t, shell, "#!/bin/sh\npwd > '"+filepath.Join(dir, "shelled")+"'\n")
	for _, p := range []string{editor, shell} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := startFlow(t, serviceWithEnv(t, r, map[string]string{"EDITOR": editor, "SHELL": shell}), Options{})
	f.selectPath(wt)
	f.keys("e")
	f.wait("back from the editor", func(fr frame) bool { return strings.Contains(fr.status.msg, "back from the editor") })
	if b, _ := os.ReadFile(filepath.Join(dir, "edited")); strings.TrimSpace(string(b)) != wt+" "+wt {
		t.Errorf("editor ran as %q, want in %s on %s", b, wt, wt)
	}
	f.keys("!")
	f.wait("back from the shell", func(fr frame) bool { return strings.Contains(fr.status.msg, "back from the shell") })
	if b, _ := os.ReadFile(filepath.Join(dir, "shelled")); strings.TrimSpace(string(b)) != wt {
		t.Errorf("shell ran in %q, want %s", b, wt)
	}
	f.keys("q")
	f.result()
}

func TestFlowNoEditorExplains(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	f := startFlow(t, serviceWithEnv(t, r, map[string]string{"EDITOR": "", "VISUAL": ""}), Options{})
	f.keys("e")
	fr := f.wait("the error", func(fr frame) bool { return fr.status.kind == statusError })
	if !strings.Contains(fr.view, "neither $VISUAL nor $EDITOR is set") || !strings.Contains(fr.view, "export EDITOR") {
		t.Errorf("view:\n%s", fr.view)
	}
	f.keys("q")
	f.result()
}

// y copies the selected path with OSC 52 and says so.
func TestCopyPath(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("j")) // feat/login (current) → feat/rebase (sorted by name)
	m, cmd := send(t, m, press("y"))
	if cmd == nil {
		t.Fatal("no clipboard command")
	}
	if got := cmd(); got == nil || !strings.Contains(strings.ToLower(typeName(got)), "clipboard") || stringOf(got) != "/home/dev/src/app.worktrees/feat-rebase" {
		t.Errorf("clipboard message = %T %v", got, got)
	}
	if v := plain(m); !strings.Contains(v, "copied ~/src/app.worktrees/feat-rebase to the clipboard (OSC 52)") {
		t.Errorf("no notice:\n%s", v)
	}
}

func typeName(v any) string { return reflect.TypeOf(v).String() }

func stringOf(v any) string { return reflect.ValueOf(v).String() }
