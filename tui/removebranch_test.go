package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// b in the remove dialog re-prepares with DeleteBranch: the dialog then shows core's
// "delete branch" line, and y removes the worktree and the branch.
func TestFlowRemoveDeleteBranchToggle(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	gone := r.AddWorktree("feat/gone", "app.worktrees/gone")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(gone)
	f.keys("d")
	fr := f.wait("the dialog opens", func(fr frame) bool { return fr.mode == modeConfirm })
	if !strings.Contains(fr.view, "[ ] b  delete the branch feat/gone too") || strings.Contains(fr.view, "feat/gone at") {
		t.Fatalf("the toggle is not off by default:\n%s", fr.view)
	}
	f.keys("b")
	fr = f.wait("the dialog shows the branch deletion", func(fr frame) bool {
		return fr.mode == modeConfirm && strings.Contains(fr.view, "feat/gone at")
	})
	if !strings.Contains(fr.view, "[x] b") || !strings.Contains(fr.view, "feat/gone at") || !strings.Contains(fr.view, "no commits only on it") {
		t.Errorf("dialog:\n%s", fr.view)
	}
	f.keys("b")
	fr = f.wait("toggled off again", func(fr frame) bool { return fr.mode == modeConfirm && strings.Contains(fr.view, "[ ] b") })
	if strings.Contains(fr.view, "feat/gone at") {
		t.Errorf("toggle off still deletes:\n%s", fr.view)
	}
	f.keys("b")
	f.wait("on again", func(fr frame) bool { return fr.mode == modeConfirm && strings.Contains(fr.view, "[x] b") })
	f.keys("y")
	f.wait("the row is gone", func(fr frame) bool { return !fr.busy && fr.loaded && !contains(fr.paths, gone) })
	if out, _ := r.TryGit(r.Root, "rev-parse", "--verify", "-q", "refs/heads/feat/gone"); out != "" {
		t.Errorf("branch still there: %s", out)
	}
	f.keys("q")
	f.result()
}

// A branch with commits nowhere else cannot be deleted without force: the toggle is
// refused, the dialog stays (without it) and says why; nothing changes.
func TestFlowRemoveDeleteBranchRefusedKeepsDialog(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/work", "app.worktrees/work")
	coretest.WriteFile(t, filepath.Join(wt, "f.txt"), "x\n")
	r.Git(wt, "add", "f.txt")
	r.Git(wt, "commit", "-q", "-m", "only here")
	before := r.Snapshot()
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(wt)
	f.keys("d")
	f.wait("the dialog opens", func(fr frame) bool { return fr.mode == modeConfirm })
	f.keys("b")
	fr := f.wait("the refusal is in the dialog", func(fr frame) bool {
		return fr.mode == modeConfirm && !fr.busy && strings.Contains(fr.view, "cannot delete the branch too")
	})
	if !strings.Contains(fr.view, "[ ] b") || !strings.Contains(fr.view, "force-remove") {
		t.Errorf("dialog:\n%s", fr.view)
	}
	f.keys("n")
	f.wait("closed", func(fr frame) bool { return fr.mode == modeList })
	r.Unchanged(before)
	if _, err := os.Stat(wt); err != nil {
		t.Error(err)
	}
	f.keys("q")
	f.result()
}

// The dialog with the toggle on, as core confirms it, at both pinned sizes.
func removeDialog(t *testing.T, w, h int, on bool) Model {
	m := mixed(t, w, h)
	m, _ = send(t, m, press("j"), press("j"), press("j"), press("j")) // release/2.0
	r, _ := m.selected()
	req := core.RemoveRequest{Path: core.Str(r.wt.Path), DeleteBranch: on}
	conf := &core.Confirmation{Title: "Remove this worktree?", Fields: []core.ConfirmField{
		{Name: "path", Value: r.wt.Path}, {Name: "branch", Value: r.wt.Branch}}}
	if on {
		conf.Fields = append(conf.Fields, core.ConfirmField{Name: "delete branch", Value: "release/2.0 at " + rowmarks.ShortHash(r.wt.Head) + ": 2 commits only on it"})
		conf.Losses = []string{"2 commits only on branch release/2.0 will be lost"}
	}
	m.mode = modeConfirm
	m.confirm = &confirmState{plan: &core.Plan{Request: req, Confirm: conf}, kind: core.OpRemove, label: "removing release/2.0",
		steps: 1, step: 1, returnTo: modeList, req: req, branch: r.wt.Branch}
	return m
}

func TestGoldenRemoveBranchOff80x24(t *testing.T) { goldenPlain(t, removeDialog(t, 80, 24, false)) }
func TestGoldenRemoveBranchOn120x35(t *testing.T) { goldenPlain(t, removeDialog(t, 120, 35, true)) }
