package tui

import (
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
)

// busyRemove is the picker running a confirmed remove, 3 s in.
func busyRemove(t *testing.T) Model {
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("j"), press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.RemoveRequest{}, Confirm: &core.Confirmation{Title: "Remove worktree?"}}})
	m, _ = send(t, m, press("y"))
	m.now = func() time.Time { return fxClock.Add(3 * time.Second) }
	return m
}

// The first ctrl+c cancels the operation and the picker stays; the second ends the picker
// at once, handing the caller the operation and the channel its answer arrives on.
func TestSecondCtrlCInterrupts(t *testing.T) {
	t.Parallel()
	m := busyRemove(t)
	op := m.op
	m, cmd := send(t, m, press("ctrl+c"))
	if isQuit(cmd) || m.quitting || op.ctx.Err() == nil {
		t.Fatalf("the first ctrl+c must cancel the operation, not quit (quitting=%v)", m.quitting)
	}
	m, cmd = send(t, m, press("ctrl+c"))
	if !isQuit(cmd) || !m.quitting {
		t.Fatal("the second ctrl+c did not quit")
	}
	in := m.Result().Interrupted
	if in == nil || in.Label != op.label || !in.Executing || in.Settled == nil {
		t.Fatalf("Interrupted = %+v", in)
	}
	// What Execute answers after the picker has gone reaches the caller.
	want := &core.Error{Kind: core.KindCancelled, Code: "cancelled", Message: "remove of /x cancelled; nothing was removed"}
	op.settled <- Settled{Err: want}
	if got := <-in.Settled; got.Err != want {
		t.Fatalf("settled %+v", got)
	}
}

// A second ctrl+c while only the checks run reports that nothing was executing.
func TestSecondCtrlCDuringPrepare(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("j"), press("d"))
	m, _ = send(t, m, press("ctrl+c"), press("ctrl+c"))
	if in := m.Result().Interrupted; in == nil || in.Executing {
		t.Fatalf("Interrupted = %+v", in)
	}
}

// core names the lock holder; the status line shows it, and only for the current operation.
func TestLockWaitShown(t *testing.T) {
	t.Parallel()
	m := busyRemove(t)
	h := core.LockHolder{PID: 4242, Command: "copse remove feat/x", Since: fxClock}
	m, _ = send(t, m, lockWaitMsg{op: m.op.id + 1, holder: h})
	if m.op.lockedBy != nil {
		t.Fatal("a stale lock notice was applied")
	}
	m, _ = send(t, m, lockWaitMsg{op: m.op.id, holder: h})
	if m.op.lockedBy == nil || *m.op.lockedBy != h {
		t.Fatalf("lockedBy = %v", m.op.lockedBy)
	}
}

func TestGoldenBusyLockWait(t *testing.T) {
	t.Parallel()
	m := busyRemove(t)
	m, _ = send(t, m, lockWaitMsg{op: m.op.id, holder: core.LockHolder{PID: 4242, Command: "copse remove feat/x"}})
	goldenPlain(t, m)
}

func TestGoldenBusyCancelling(t *testing.T) {
	t.Parallel()
	m := busyRemove(t)
	m, _ = send(t, m, press("ctrl+c"))
	goldenPlain(t, m)
}
