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
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	if !strings.Contains(plain(m), "n/esc/enter no (the default)") {
		t.Error("the dialog does not say that enter answers no")
	}
	m, _ = send(t, m, press("y"))
	if m.op == nil || m.op.kind != core.OpRemove || m.mode != modeList || m.confirm != nil {
		t.Fatalf("y did not run the plan: op=%+v mode=%v", m.op, m.mode)
	}
}

func TestConfirmNoAndEscCancel(t *testing.T) {
	t.Parallel()
	// The default is No, so enter answers No.
	for _, k := range []string{"n", "esc", "N", "enter"} {
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	id := m.op.id
	m, _ = send(t, m, preparedMsg{op: id + 5, err: errors.New("not mine")})
	if m.op == nil || m.status.kind != statusNone {
		t.Error("a result for another operation was applied")
	}
}

func TestSwitchRecordsOutcomeAndQuits(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	m := loaded(t, newTestModel(80, 12, Options{Pick: true}), fxMixed(), nil)
	m, _ = send(t, m, press("down")) // j would be typed: pick mode filters as you type
	m, cmd := send(t, m, press("enter"))
	if m.op != nil {
		t.Fatal("pick mode started a switch")
	}
	r := m.Result()
	if !isQuit(cmd) || r.Selected == nil || r.Selected.Path != "/home/dev/src/app.worktrees/feat-rebase" || r.Outcome != nil {
		t.Errorf("result = %+v", r)
	}
	if key.Matches(press("-"), m.keys.Back) {
		t.Error("back is enabled in pick mode")
	}
}

func TestOpenOnlyWithWorkspaces(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	m := mixed(t, 100, 20)
	m.hasPrevious = true // as a listing whose session has history says (listingMsg)
	m.applyKeyState()
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
	t.Parallel()
	m := mixed(t, 100, 20)
	_, cmd := send(t, m, m.spinner.Tick())
	if cmd != nil {
		t.Error("spinner ticks with nothing running")
	}
}

func TestUnrelatedCoreFailureRefreshes(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	seq := m.loadSeq
	m, _ = send(t, m, executedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUncertain, Code: "postcondition", Message: "git still lists the worktree"}})
	if m.loadSeq != seq+1 {
		t.Error("an uncertain outcome did not refresh the list")
	}
}

// A removal refused for a reason force gets past (core sets ForceHelps) shows core's
// message and the picker's own hint, ending in the key that does it here; core's CLI hint
// (--force) never reaches the screen. D then starts the force removal of the same row.
func TestForceHelpsRefusalSaysPressD(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, path, want string
	}{
		{"dirty_worktree", "/home/dev/src/app.worktrees/feat-login", "commit or stash them, or press D to force-remove (asks twice)"},
		{"locked_worktree", "/mnt/usb/app-lock", "unlock it (git worktree unlock /mnt/usb/app-lock), or press D to force-remove (asks twice)"},
		{"status_unknown", "/home/dev/src/app.worktrees/docs-site", "fix the worktree, or press D to force-remove it anyway (asks twice)"},
		{"some_future_code", "/home/dev/src/app.worktrees/feat-login", "press D to force-remove (asks twice)"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			m := mixed(t, 100, 20)
			m, _ = send(t, m, press("g"))
			for r, _ := m.selected(); r.wt.Path != tc.path; r, _ = m.selected() {
				if m.cursor == len(m.visible)-1 {
					t.Fatalf("%s is not listed", tc.path)
				}
				m, _ = send(t, m, press("j"))
			}
			m, _ = send(t, m, press("d"))
			msg := tc.code + ": " + tc.path + " is protected"
			m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: tc.code, ForceHelps: true,
				Message: msg, Hint: "do something, or pass --force"}})
			if m.status.kind != statusError || m.status.msg != msg || m.status.hint != tc.want {
				t.Fatalf("status = %+v, want hint %q", m.status, tc.want)
			}
			if out := plain(m); strings.Contains(out, "--force") || !strings.Contains(out, tc.want) {
				t.Errorf("screen:\n%s", out)
			}
			m, _ = send(t, m, press("D"))
			if m.op == nil || !m.op.force || m.op.kind != core.OpRemove {
				t.Fatalf("D after the refusal did not start a force removal: %+v", m.op)
			}
			req := core.RemoveRequest{Path: core.Str(tc.path), Force: true}
			m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: req, Confirm: &core.Confirmation{Title: "Remove this worktree?"}}})
			if m.confirm == nil || m.confirm.steps != 2 {
				t.Errorf("the force removal does not ask twice: %+v", m.confirm)
			}
		})
	}
}

// The same refusal can come from Execute (work appeared after the confirmation).
func TestForceHelpsRefusalAfterConfirm(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	m, _ = send(t, m, executedMsg{op: m.op.id, err: dirtyRefusal()})
	if !strings.Contains(m.status.hint, "press D to force-remove") {
		t.Errorf("status = %+v", m.status)
	}
}

// Every other error shows core's message and hint unchanged: a refusal force would not get
// past, a ForceHelps refusal of an operation that is not a plain remove, and a failure.
func TestOtherErrorsKeepCoreHint(t *testing.T) {
	t.Parallel()
	cur := &core.Error{Kind: core.KindRefused, Code: "contains_worktree", Message: "/home/dev/src/app.worktrees/feat-login holds another worktree",
		Hint: "remove or move the inner worktree first (git worktree move), then this one"}
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("g"), press("j"), press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: cur})
	if m.status.msg != cur.Message || m.status.hint != cur.Hint {
		t.Errorf("contains worktree: status = %+v", m.status)
	}
	// Already forced: suggesting D again would be a loop.
	forced := dirtyRefusal()
	m, _ = send(t, m, press("D"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: forced})
	if m.status.hint != forced.Hint {
		t.Errorf("force remove: status = %+v", m.status)
	}
	// Not a remove: core's words.
	m = m.withWorkspaces()
	m, _ = send(t, m, press("o"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: "x", ForceHelps: true, Message: "m", Hint: "pass --force"}})
	if m.status.hint != "pass --force" {
		t.Errorf("open: status = %+v", m.status)
	}
}

// Listing warnings (Herdr could not be asked) show at warning level under whatever the
// status line says, and go with the next key like errors do.
func TestListingWarningsShownUntilNextKey(t *testing.T) {
	t.Parallel()
	warn := "workspace ids unavailable: herdr exited 1"
	l := fxMixed()
	l.Warnings = []string{warn}
	m := loaded(t, newTestModel(100, 20, Options{}), l, nil)
	if len(m.status.warns) != 1 || !strings.Contains(plain(m), "! "+warn) {
		t.Fatalf("warning not shown: %+v\n%s", m.status, plain(m))
	}
	checkFrame(t, m)
	m, _ = send(t, m, press("j"))
	if m.status.kind != statusNone || len(m.status.warns) != 0 || strings.Contains(plain(m), warn) {
		t.Error("warning survived a key")
	}
	// After a removal the list is reloaded: the outcome stays, the warning joins it.
	m = confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: &core.Outcome{Operation: core.OpRemove, Path: "/mnt/usb/app-lock"}})
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l})
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l}) // a second load does not repeat it
	if out := plain(m); !strings.Contains(out, "removed /mnt/usb/app-lock") || strings.Count(out, warn) != 1 {
		t.Errorf("outcome and warning:\n%s", out)
	}
	// An error from a failed operation is not replaced by the reload's warning.
	m, _ = send(t, m, press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: dirtyRefusal()})
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l})
	if m.status.kind != statusError || !strings.Contains(plain(m), "uncommitted changes") {
		t.Errorf("error replaced:\n%s", plain(m))
	}
}

// An outcome's warnings (the branch kept unique commits) are shown with the outcome.
func TestOutcomeWarningsShown(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	w := "branch feat/login keeps 2 commits found on no other branch or remote"
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: &core.Outcome{Operation: core.OpRemove, Path: "/x", Warnings: []string{w}}})
	if out := plain(m); !strings.Contains(out, "removed /x") || !strings.Contains(out, "! "+w) {
		t.Errorf("outcome warning not shown:\n%s", out)
	}
}

// An outcome's notices (what copse did on the side) are shown as information, not with
// the warning mark.
func TestOutcomeNoticesShownAsInfo(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat")
	m, _ = send(t, m, press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.CreateRequest{}}})
	n := "created branch feat from origin/feat (tracking it)"
	row := core.Worktree{Branch: "feat", Path: "/home/dev/src/app.worktrees/feat"}
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: &core.Outcome{Operation: core.OpCreate, Worktree: &row, Notices: []string{n}}})
	out := plain(m)
	if !strings.Contains(out, "· "+n) || strings.Contains(out, "! "+n) {
		t.Errorf("notice not shown as information:\n%s", out)
	}
}

// The dialog draws a confirmation's notices plainly ("·"), apart from its warnings ("!").
func TestDialogShowsNoticesAsInfo(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	p := hostilePlan()
	p.Confirm.Notices = []string{"branch feat/x stays, with its 2 commits"}
	p.Notices = append([]string{}, p.Confirm.Notices...)
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: p})
	out := plain(m)
	if strings.Count(out, "branch feat/x stays") != 1 || !strings.Contains(out, "· branch feat/x stays") {
		t.Errorf("notice not shown once as information:\n%s", out)
	}
}

// What the dialog showed is not repeated in the status line after the remove; what is new
// in the outcome is.
func TestConfirmedWarningsNotRepeated(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	m, _ = send(t, m, press("y"))
	shown := "the worktree is locked: on a USB drive"
	out := &core.Outcome{Operation: core.OpRemove, Path: "/x", Warnings: []string{shown, "something new"}}
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: out})
	v := plain(m)
	if strings.Contains(v, shown) || !strings.Contains(v, "! something new") {
		t.Errorf("want only the new warning after the dialog:\n%s", v)
	}
}

// core puts a removal's warnings in both the plan and its confirmation; the dialog shows
// each once, and a plan warning the confirmation lacks still shows.
func TestDialogShowsEachWarningOnce(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	p := hostilePlan()
	p.Warnings = append(append([]string{}, p.Confirm.Warnings...), "plan-only warning")
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: p})
	out := plain(m)
	if n := strings.Count(out, "the worktree is locked: on a USB drive"); n != 1 {
		t.Errorf("shared warning shown %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "! plan-only warning") {
		t.Errorf("plan-only warning missing:\n%s", out)
	}
}

// The unlock hint quotes the raw path for a shell, not the escaped one the row shows: a
// worktree at /src/x\y is shown as /src/x\\y, and the hint must still name /src/x\y
// (quoting the escaped form named another path). A path under home keeps ~/ unquoted.
func TestUnlockHintQuotesRawPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, home, want string }{
		{`/src/x\y`, "/home/dev", `git worktree unlock '/src/x\y'`},
		{"/home/dev/it's here", "/home/dev", `git worktree unlock ~/'it'\''s here'`},
		{"/src/nl\nx", "/home/dev", `git worktree unlock $'/src/nl\nx'`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			wt := core.Worktree{Branch: "feat/x", Path: tc.path, Head: oid('f'), Locked: ptr("")}
			m := newTestModel(100, 20, Options{})
			m.home = tc.home
			m = loaded(t, m, &core.Listing{RepoRoot: "/src/app", Worktrees: []core.Worktree{wt}}, nil)
			m, _ = send(t, m, press("d"))
			if m.op == nil {
				t.Fatal("d started no removal")
			}
			m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: "locked_worktree", ForceHelps: true,
				Message: "locked", Hint: "pass --force"}})
			if !strings.Contains(m.status.hint, "("+tc.want+")") {
				t.Errorf("hint = %q, want it to contain %q", m.status.hint, tc.want)
			}
		})
	}
}

// On the smallest terminal the second question of a force removal is still whole: the
// title wraps instead of being cut, and a long path keeps its leaf.
func TestForceSecondQuestionWholeAt40x12(t *testing.T) {
	t.Parallel()
	m := mixed(t, 40, 12)
	m, _ = send(t, m, press("D"))
	conf := &core.Confirmation{Title: "Remove this worktree?",
		Fields: []core.ConfirmField{{Name: "path", Value: "/home/dev/src/app.worktrees/feat-login-with-a-long-leaf"}},
		Losses: []string{"uncommitted changes will be lost: 1 staged, 2 unstaged, 3 untracked"}}
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.RemoveRequest{}, Confirm: conf}})
	m, _ = send(t, m, press("y"))
	checkFrame(t, m)
	out := plain(m)
	for _, want := range []string{"Force removal discards what", "Are you sure?", "long-leaf", "y yes (2/2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}
