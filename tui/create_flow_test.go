package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Create and go: with the form's defaults the picker switches to the new worktree, as
// enter does, and the CLI then delivers the path to the shell.
func TestFlowCreateSwitchesByDefault(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	f.wait("the form is open", func(fr frame) bool { return fr.mode == modeForm })
	f.tm.Type("feat/go")
	want := filepath.Join(r.Base, "app.worktrees", "feat-go")
	// The path field shows where the worktree will go, and base where core starts it.
	// Both arrive in the background, in either order: wait for both.
	head := r.Git(r.Root, "rev-parse", "--short=7", "main")
	fromMain := "from main (" + head + "), the main checkout's branch · initial"
	fr := f.wait("the default path and base are shown", func(fr frame) bool {
		return strings.Contains(fr.view, "app.worktrees/feat-go") && strings.Contains(fr.view, fromMain)
	})
	if !strings.Contains(fr.view, "[x] switch to it after create") {
		t.Errorf("form does not show the default base or the switch toggle:\n%s", fr.view)
	}
	f.keys("enter")
	res := f.result()
	if res.Outcome == nil || res.Outcome.Operation != core.OpSwitch || res.Outcome.Path != want {
		t.Fatalf("result = %+v outcome = %+v; want a switch to %s", res, res.Outcome, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
}

// Setup runs after create with its output in the log panel; a failing step leaves the
// worktree and says which step failed and how to rerun it. The switch does not happen.
func TestFlowCreateSetupFailureKeepsWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "--add", "copse.setup", "echo hello-from-setup")
	r.Git(r.Root, "config", "--add", "copse.setup", "echo broken >&2; exit 3")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	fr := f.wait("the setup toggle is shown", func(fr frame) bool { return strings.Contains(fr.view, "[x] run setup: run echo hello-from-setup") })
	f.tm.Type("feat/setup")
	f.keys("enter")
	want := filepath.Join(r.Base, "app.worktrees", "feat-setup")
	fr = f.wait("the setup fails", func(fr frame) bool { return fr.mode == modeSetup && fr.status.kind == statusError })
	if !strings.Contains(fr.status.hint, "`copse setup "+want+"`") {
		t.Errorf("the hint does not say how to rerun: %+v", fr.status)
	}
	for _, s := range []string{"hello-from-setup", "broken", "setup step 2 of 2", "failed; the worktree stays"} {
		if !strings.Contains(fr.view, s) {
			t.Errorf("the panel does not show %q:\n%s", s, fr.view)
		}
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the worktree did not stay: %v", err)
	}
	f.keys("esc")
	fr = f.wait("back on the list", func(fr frame) bool { return fr.mode == modeList && contains(fr.paths, want) })
	f.keys("q")
	if res := f.result(); res.Outcome != nil {
		t.Errorf("a failed setup switched: %+v", res.Outcome)
	}
}

// A setup that succeeds is followed by the switch; "run setup" off skips it.
func TestFlowCreateSetupThenSwitch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(t.TempDir(), "ran")
	r.Git(r.Root, "config", "copse.setup", "pwd > '"+marker+"'")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	f.wait("the setup toggle is shown", func(fr frame) bool { return strings.Contains(fr.view, "run setup") })
	f.tm.Type("feat/ok")
	f.keys("enter")
	want := filepath.Join(r.Base, "app.worktrees", "feat-ok")
	res := f.result()
	if res.Outcome == nil || res.Outcome.Path != want {
		t.Fatalf("no switch after the setup: %+v", res)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != want {
		t.Errorf("setup did not run in the new worktree: %q %v", b, err)
	}

	// The same with "run setup" off: nothing runs.
	os.Remove(marker)
	g := startFlow(t, openService(t, r, r.Root), Options{})
	g.keys("n")
	g.wait("the setup toggle is shown", func(fr frame) bool { return strings.Contains(fr.view, "run setup") })
	g.tm.Type("feat/nosetup")
	g.keys("tab", "tab", "tab", "tab", "space") // branch → base → path → switch → setup: off
	g.wait("setup is off", func(fr frame) bool { return strings.Contains(fr.view, "[ ] run setup") })
	g.keys("enter")
	if res := g.result(); res.Outcome == nil || res.Outcome.Path != filepath.Join(r.Base, "app.worktrees", "feat-nosetup") {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("setup ran although turned off: %v", err)
	}
}

// ctrl+c in the setup panel stops the running step; the worktree stays and the picker runs on.
func TestFlowCreateSetupCtrlC(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	started := filepath.Join(t.TempDir(), "started")
	r.Git(r.Root, "config", "copse.setup", "touch '"+started+"'; echo waiting; sleep 30")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	f.wait("the setup toggle is shown", func(fr frame) bool { return strings.Contains(fr.view, "run setup") })
	f.tm.Type("feat/slow")
	f.keys("enter")
	f.wait("the setup runs", func(fr frame) bool { return fr.mode == modeSetup && strings.Contains(fr.view, "waiting") })
	waitFile(t, started)
	f.keys("ctrl+c")
	fr := f.wait("the setup ends", func(fr frame) bool { return fr.status.kind == statusError })
	if !strings.Contains(fr.status.msg, "cancelled") || !strings.Contains(fr.status.hint, "copse setup") {
		t.Errorf("status = %+v", fr.status)
	}
	if _, err := os.Stat(filepath.Join(r.Base, "app.worktrees", "feat-slow")); err != nil {
		t.Error("the worktree did not stay")
	}
	f.keys("q")
	f.wait("the panel closes", func(fr frame) bool { return fr.mode == modeList })
	f.keys("q")
	f.result()
}

// From inside another worktree the form names the main checkout's branch and commit (core
// decides it), a typed base gets its commit from core too, and the create starts there.
func TestFlowCreateFromAnotherWorktreeNamesTheBase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", filepath.Join(r.Base, "trees", "a"))
	r.Git(a, "commit", "-q", "--allow-empty", "-m", "unreviewed")
	r.Git(r.Root, "tag", "v1")
	mainTip := r.Git(r.Root, "rev-parse", "main")
	f := startFlow(t, openService(t, r, a), Options{})
	f.keys("n")
	f.tm.Type("feat/x")
	f.wait("the default base and its note", func(fr frame) bool {
		return strings.Contains(fr.view, "from main ("+mainTip[:7]+"), the main checkout's branch") &&
			strings.Contains(fr.view, "✓ new branch feat/x from main ("+mainTip[:7]+")")
	})
	f.keys("tab")
	f.tm.Type("v1")
	f.wait("the typed base with its commit", func(fr frame) bool {
		return strings.Contains(fr.view, "✓ new branch feat/x from v1 ("+mainTip[:7]+")")
	})
	f.tm.Type("x")
	f.wait("an unknown base on its field", func(fr frame) bool {
		return strings.Contains(fr.view, `base "v1x" does not name a commit`)
	})
	f.keys("esc")
	f.wait("back on the list", func(fr frame) bool { return fr.mode == modeList })
	f.keys("q")
	f.result()
}
