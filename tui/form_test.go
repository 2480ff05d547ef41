package tui

// Update tests of the create form: live branch check, completion, request building.

import (
	"errors"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

func TestFormRequiresBranchAndDebouncesCheck(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	if m.mode != modeForm {
		t.Fatal("n did not open the form")
	}
	m, _ = send(t, m, press("enter"))
	if m.op != nil || m.form.errs[fieldBranch] == "" {
		t.Fatal("empty branch submitted")
	}
	m, cmd := send(t, m, press("x"))
	if cmd == nil {
		t.Fatal("typing a branch scheduled no check")
	}
	seq := m.form.checkSeq
	m = typeText(t, m, "y")
	// The first tick is stale by now: it must not ask core.
	if _, c := send(t, m, branchTickMsg{seq: seq}); c != nil {
		t.Error("a stale debounce tick ran a check")
	}
	// A stale verdict is dropped too.
	m, _ = send(t, m, branchCheckedMsg{seq: seq, raw: "x", err: errors.New("bad")})
	if m.form.errs[fieldBranch] != "" {
		t.Error("a stale check result was shown")
	}
	m, _ = send(t, m, branchCheckedMsg{seq: m.form.checkSeq, raw: "xy", err: &core.Error{Kind: core.KindUsage, Message: "bad name"}})
	if !strings.Contains(m.form.errs[fieldBranch], "bad name") {
		t.Error("current check result not shown on the branch field")
	}
	m = typeText(t, m, "z")
	if m.form.errs[fieldBranch] != "" {
		t.Error("error not cleared by editing")
	}
}

func TestFormSaysWhenBranchIsHeld(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "release/2.0")
	m, _ = send(t, m, branchCheckedMsg{seq: m.form.checkSeq, raw: "release/2.0", name: "release/2.0"})
	if !strings.Contains(m.form.errs[fieldBranch], "already checked out at /home/dev/src/app.worktrees/release-2.0") {
		t.Errorf("errs = %q", m.form.errs[fieldBranch])
	}
}

func TestFormBuildsRequestFromRawValues(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}).withWorkspaces(), fxHerdr(), nil)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/new")
	m, _ = send(t, m, press("tab"), press("tab"))
	m = typeText(t, m, "/srv/x")
	m, _ = send(t, m, press("tab"))
	m = typeText(t, m, "agent one")
	m, _ = send(t, m, press("tab"), press("space"))
	req := m.form.request()
	if req.Branch != "feat/new" || req.Base != nil || req.Path == nil || *req.Path != "/srv/x" ||
		req.Label == nil || *req.Label != "agent one" || !req.Focus {
		t.Errorf("request = %+v", req)
	}
	if !ops.All.NeedsConfirmation(req) {
		t.Error("a create with a path must need confirmation")
	}
}

func TestFormBaseCompletion(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"), branchesMsg{names: []string{"main", "feat/login"}}, press("tab"))
	m = typeText(t, m, "fe")
	m, _ = send(t, m, press("tab"))
	if got := m.form.value(fieldBase); got != "feat/login" {
		t.Errorf("tab completed base to %q", got)
	}
	if m.form.focus != fieldBase {
		t.Error("completing moved focus")
	}
	m, _ = send(t, m, press("tab"))
	if m.form.focus != fieldPath {
		t.Error("second tab did not move on")
	}
}

func TestCreateFieldErrorStaysInForm(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/login")
	m, _ = send(t, m, press("enter"))
	if m.op == nil || m.op.kind != core.OpCreate {
		t.Fatal("enter did not create")
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Field: "branch", Code: "branch_checked_out",
		Message: "branch feat/login is already checked out at ~/src/app.worktrees/feat-login", Hint: "switch to it, or pick another branch"}})
	if m.mode != modeForm || !strings.Contains(m.form.errs[fieldBranch], "already checked out") {
		t.Errorf("error not on the branch field: mode=%v errs=%q", m.mode, m.form.errs)
	}
}

func TestCreateWithPathConfirmsThenReturnsToForm(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/p")
	m, _ = send(t, m, press("enter"))
	conf := &core.Confirmation{Title: "Create worktree at a custom path?", Fields: []core.ConfirmField{{Name: "path", Value: "/srv/p"}}}
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.CreateRequest{}, Confirm: conf}})
	if m.mode != modeConfirm {
		t.Fatal("custom path did not ask")
	}
	m, _ = send(t, m, press("n"))
	if m.mode != modeForm || m.form.value(fieldBranch) != "feat/p" {
		t.Error("cancelling did not return to the filled form")
	}
	m, _ = send(t, m, press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.CreateRequest{}, Confirm: conf}})
	m, _ = send(t, m, press("y"))
	wt := core.Worktree{Branch: "feat/p", Path: "/srv/p"}
	seq := m.loadSeq
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: &core.Outcome{Operation: core.OpCreate, Worktree: &wt, Path: "/srv/p"}})
	if m.mode != modeList || m.loadSeq != seq+1 || m.selectPath != "/srv/p" {
		t.Errorf("after create: mode=%v reload=%v select=%q", m.mode, m.loadSeq != seq, m.selectPath)
	}
	l := fxMixed()
	l.Worktrees = append(l.Worktrees, wt)
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l})
	if m.selectedPath() != "/srv/p" {
		t.Errorf("new row not selected: %s", m.selectedPath())
	}
}
