package tui

// Update tests of operations: confirmation, cancellation, outcomes and refusals.

import (
	"errors"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/copse-dev/copse/core"
)

func TestRemoveAsksAndOnlyYConfirms(t *testing.T) {
	m := confirmOpen(t, 100, 20, "d")
	m, cmd := send(t, m, press("enter"))
	if m.op != nil || m.mode != modeConfirm || cmd != nil {
		t.Fatal("enter confirmed")
	}
	if !strings.Contains(plain(m), "enter does not confirm") {
		t.Error("no reminder that only y confirms")
	}
	m, _ = send(t, m, press("y"))
	if m.op == nil || m.op.kind != core.OpRemove || m.mode != modeList || m.confirm != nil {
		t.Fatalf("y did not run the plan: op=%+v mode=%v", m.op, m.mode)
	}
}

func TestConfirmNoAndEscCancel(t *testing.T) {
	for _, k := range []string{"n", "esc", "N"} {
		m := confirmOpen(t, 100, 20, "d")
		m, _ = send(t, m, press(k))
		if m.op != nil || m.confirm != nil || m.mode != modeList {
			t.Errorf("%s did not cancel", k)
		}
		if !strings.Contains(plain(m), "nothing changed") {
			t.Errorf("%s: no feedback", k)
		}
	}
}

func TestForceRemoveAsksTwice(t *testing.T) {
	m := confirmOpen(t, 100, 20, "D")
	m, _ = send(t, m, press("y"))
	if m.op != nil || m.mode != modeConfirm {
		t.Fatal("force removal ran after one y")
	}
	m, _ = send(t, m, press("y"))
	if m.op == nil || !m.op.force {
		t.Fatal("second y did not run the force removal")
	}
}

func TestStaleStateShowsMessageAndRefreshes(t *testing.T) {
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	seq := m.loadSeq
	m, _ = send(t, m, executedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: "stale_state",
		Message: "the worktree list changed since the confirmation was shown; nothing was removed", Hint: "review the list and try again"}})
	if m.loadSeq != seq+1 {
		t.Error("stale state did not refresh")
	}
	if m.op != nil || m.status.kind != statusError || !strings.Contains(plain(m), "nothing was removed") {
		t.Errorf("stale state not shown:\n%s", plain(m))
	}
}

func TestCtrlCCancelsOperationNotPicker(t *testing.T) {
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	op := m.op
	m, cmd := send(t, m, press("ctrl+c"))
	if isQuit(cmd) || m.quitting {
		t.Fatal("ctrl+c quit the picker while an operation ran")
	}
	if op.ctx.Err() == nil || !m.op.cancelling {
		t.Fatal("operation context not cancelled")
	}
	if !strings.Contains(plain(m), "cancelling") {
		t.Error("spinner does not say it is cancelling")
	}
	msg := "remove cancelled: git worktree remove was interrupted; the directory still exists"
	m, _ = send(t, m, executedMsg{op: op.id, err: &core.Error{Kind: core.KindCancelled, Code: "cancelled", Message: msg}})
	if m.op != nil || !strings.Contains(plain(m), "the directory still exists") {
		t.Errorf("remaining state not reported:\n%s", plain(m))
	}
	// Now ctrl+c quits.
	_, cmd = send(t, m, press("ctrl+c"))
	if !isQuit(cmd) {
		t.Error("ctrl+c without an operation did not quit")
	}
}

func TestKeysIgnoredWhileBusyExceptMovement(t *testing.T) {
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	before := m.cursor
	m, cmd := send(t, m, press("q"))
	if cmd != nil || m.quitting {
		t.Error("q acted while an operation ran")
	}
	m, _ = send(t, m, press("j"))
	if m.cursor != before+1 {
		t.Error("movement blocked while an operation ran")
	}
}

func TestErrorClearedOnNextKey(t *testing.T) {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: errors.New("boom")})
	if m.status.kind != statusError {
		t.Fatal("no error shown")
	}
	m, _ = send(t, m, press("j"))
	if m.status.kind != statusNone {
		t.Error("error survived a key")
	}
}

func TestStaleOperationResultsDropped(t *testing.T) {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	id := m.op.id
	m, _ = send(t, m, preparedMsg{op: id + 5, err: errors.New("not mine")})
	if m.op == nil || m.status.kind != statusNone {
		t.Error("a result for another operation was applied")
	}
}

func TestSwitchRecordsOutcomeAndQuits(t *testing.T) {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("k")) // main
	m, cmd := send(t, m, press("enter"))
	if m.op == nil || m.op.kind != core.OpSwitch || cmd == nil {
		t.Fatal("enter did not start a switch")
	}
	m, cmd = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.SwitchRequest{}}})
	if cmd == nil || m.op == nil {
		t.Fatal("a plan without confirmation did not execute")
	}
	out := &core.Outcome{Operation: core.OpSwitch, Path: "/home/dev/src/app"}
	m, cmd = send(t, m, executedMsg{op: m.op.id, outcome: out})
	if !isQuit(cmd) || m.Result().Outcome != out || m.Result().Cancelled {
		t.Errorf("result = %+v", m.Result())
	}
}

func TestPickEnterReturnsRowWithoutSwitch(t *testing.T) {
	m := loaded(t, newTestModel(80, 12, Options{Pick: true}), fxMixed(), nil)
	m, _ = send(t, m, press("j"))
	m, cmd := send(t, m, press("enter"))
	if m.op != nil {
		t.Fatal("pick mode started a switch")
	}
	r := m.Result()
	if !isQuit(cmd) || r.Selected == nil || r.Selected.Path != "/home/dev/src/app.worktrees/bisect" || r.Outcome != nil {
		t.Errorf("result = %+v", r)
	}
	if key.Matches(press("-"), m.keys.Back) {
		t.Error("back is enabled in pick mode")
	}
}

func TestOpenOnlyWithWorkspaces(t *testing.T) {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("o"))
	if m.op != nil {
		t.Error("o acted without a workspace backend")
	}
	if strings.Contains(plain(m), "open workspace") {
		t.Error("help shows o without a workspace backend")
	}
	h := loaded(t, newTestModel(100, 20, Options{}).withWorkspaces(), fxHerdr(), nil)
	h, _ = send(t, h, press("o"))
	if h.op == nil || h.op.kind != core.OpOpen {
		t.Error("o did nothing under Herdr")
	}
}

func TestBackRunsBackRequest(t *testing.T) {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("-"))
	if m.op == nil || m.op.kind != core.OpBack {
		t.Fatal("- did not go back")
	}
	out := &core.Outcome{Operation: core.OpBack, Path: "/home/dev/src/app"}
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.BackRequest{}}})
	_, cmd := send(t, m, executedMsg{op: m.op.id, outcome: out})
	if !isQuit(cmd) {
		t.Error("back did not end the picker")
	}
}

func TestSpinnerStopsWhenIdle(t *testing.T) {
	m := mixed(t, 100, 20)
	_, cmd := send(t, m, m.spinner.Tick())
	if cmd != nil {
		t.Error("spinner ticks with nothing running")
	}
}

func TestUnrelatedCoreFailureRefreshes(t *testing.T) {
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	seq := m.loadSeq
	m, _ = send(t, m, executedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUncertain, Code: "postcondition", Message: "git still lists the worktree"}})
	if m.loadSeq != seq+1 {
		t.Error("an uncertain outcome did not refresh the list")
	}
}
