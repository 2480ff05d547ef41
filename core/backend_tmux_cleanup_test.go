package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
)

// Prune and land's clean-up judge the idle shell of a worktree's own tmux window as remove
// does: it does not keep the worktree, and its window is closed with it. Something that
// runs in the pane still keeps it.

// windowGone fails the test unless no window of the session is ws.
func (w *tw) windowGone(t *testing.T, ws string) {
	t.Helper()
	for _, l := range w.srv.Windows() {
		if strings.HasPrefix(l, ws+"\t") {
			t.Errorf("window %s still exists", ws)
		}
	}
}

func TestTmuxPrunePrunesAWorktreeWhoseWindowHasOnlyItsIdleShellAndClosesIt(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "old"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	if ws == "" {
		t.Fatal("create under tmux opened no window")
	}
	w.srv.Idle(ws)
	age(t, w.Repo, filepath.Base(wt), 100*time.Hour)
	s := w.open(t)
	p, err := s.Prepare(bg, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Commands, "\n"), "kill-window") {
		t.Errorf("prune's commands %q do not close window %s", p.Commands, ws)
	}
	res, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(res.Prune); got[filepath.Base(wt)] != "removed:idle" {
		t.Fatalf("reasons %v; kept %+v", got, res.Prune.Kept)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("prune left %s: %v", wt, err)
	}
	w.windowGone(t, ws)
}

func TestTmuxPruneKeepsAWorktreeWhosePaneRunsAProgram(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	w.srv.Run("send-keys", "-t", ws, "cd / && exec sleep 600", "Enter")
	w.srv.WaitFor("sleep in the pane", func() bool {
		return w.srv.Run("display-message", "-p", "-t", ws, "#{pane_current_command}") == "sleep"
	})
	age(t, w.Repo, filepath.Base(wt), 100*time.Hour)
	before := w.Snapshot()
	res, err := do(t, w.open(t), core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(res.Prune); got[filepath.Base(wt)] != "kept:processes" {
		t.Fatalf("reasons %v", got)
	}
	w.Unchanged(before)
	if w.windowOf(t, wt) != ws {
		t.Fatalf("prune closed window %s of a worktree it kept", ws)
	}
}

func TestTmuxLandCleansUpAWorktreeWhoseWindowHasOnlyItsIdleShellAndClosesIt(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat/tl"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	w.srv.Idle(ws)
	commitOn(t, w.Repo, wt, "tl.txt", "tl\n")
	res, err := land(t, w.open(t), core.LandRequest{Branch: core.Str("feat/tl")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Land.State != core.LandLanded || !res.Land.Removed {
		t.Fatalf("job %+v (warnings %q)", res.Land, res.Land.Warnings)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the clean-up left %s: %v", wt, err)
	}
	w.windowGone(t, ws)
}
