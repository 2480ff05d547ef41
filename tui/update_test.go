package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// Direct Update tests: typed messages in, state out. No Service, no terminal.

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func rowByPath(t *testing.T, m Model, p string) row {
	t.Helper()
	for _, r := range m.rows {
		if r.wt.Path == p {
			return r
		}
	}
	t.Fatalf("no row %s", p)
	return row{}
}

func TestFirstFrameFromListAlone(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), nil)
	if !m.loaded || len(m.rows) != 11 {
		t.Fatalf("listing not shown: loaded=%v rows=%d", m.loaded, len(m.rows))
	}
	if !rowByPath(t, m, "/home/dev/src/app").pending {
		t.Error("row without status should be pending")
	}
	if rowByPath(t, m, "/tmp/app-old").pending {
		t.Error("a prunable row has no directory to ask git about; it must not wait for status")
	}
	if got := plain(m); !strings.Contains(got, "feat/login") || !strings.Contains(got, "…") {
		t.Errorf("first frame lacks rows or pending marks:\n%s", got)
	}
}

func TestStatusBatchesApplyDropVanishedAndStale(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), nil)
	m, cmd := send(t, m, statusBatchMsg{seq: m.loadSeq, results: fxMixedStatus()})
	if cmd == nil {
		t.Error("a batch that is not the last must re-arm the drain")
	}
	if s := rowByPath(t, m, "/home/dev/src/app.worktrees/feat-login").wt.Status; s == nil || s.Changes() != 6 {
		t.Errorf("status not applied: %+v", s)
	}
	for _, r := range m.rows {
		if r.wt.Path == "/vanished/worktree" {
			t.Fatal("a result for a vanished row created a row")
		}
	}
	// A batch from a load that a refresh replaced is dropped whole.
	m, _ = send(t, m, press("r"))
	stale := []core.StatusResult{{Path: "/home/dev/src/app", Status: core.Status{Untracked: 99}}}
	m, cmd = send(t, m, statusBatchMsg{seq: m.loadSeq - 1, results: stale})
	if cmd != nil || rowByPath(t, m, "/home/dev/src/app").wt.Status.Untracked == 99 {
		t.Error("stale batch applied")
	}
	// The last batch ends pending marks.
	m, cmd = send(t, m, statusBatchMsg{seq: m.loadSeq, done: true})
	if cmd != nil {
		t.Error("done batch re-armed the drain")
	}
	if rowByPath(t, m, "/home/dev/src/app.worktrees/perf-slow-status").pending {
		t.Error("row still pending after the pool finished")
	}
}

func TestRefreshKeepsStatusAndCursor(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), fxMixedStatus())
	m, _ = send(t, m, press("j"), press("j"), press("j"))
	want := m.selectedPath()
	m, _ = send(t, m, press("r"))
	l := fxMixed()
	l.Worktrees = append(l.Worktrees[:2], l.Worktrees[3:]...) // bisect removed elsewhere
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l})
	if got := m.selectedPath(); got != want {
		t.Errorf("cursor moved to %s, want %s", got, want)
	}
	if rowByPath(t, m, "/home/dev/src/app").wt.Status == nil {
		t.Error("refresh dropped a known status")
	}
	// An old listing arriving late does not replace the new one.
	m, _ = send(t, m, listingMsg{seq: m.loadSeq - 1, listing: fxMixed()})
	if len(m.rows) != 10 {
		t.Errorf("stale listing applied: %d rows", len(m.rows))
	}
}

func TestCursorStartsOnCurrent(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), nil)
	if r, _ := m.selected(); !r.wt.Current {
		t.Errorf("cursor on %s, want the current worktree", r.wt.Path)
	}
}

func TestDrainBatchesWithinWindow(t *testing.T) {
	t.Parallel()
	s := &statusStream{ch: make(chan core.StatusResult, 10), done: make(chan struct{})}
	for i := range 3 {
		s.ch <- core.StatusResult{Path: string(rune('a' + i))}
	}
	msg := drainStatusCmd(7, s, 20*time.Millisecond)().(statusBatchMsg)
	if msg.seq != 7 || len(msg.results) != 3 || msg.done {
		t.Fatalf("first batch = %+v", msg)
	}
	s.ch <- core.StatusResult{Path: "d"}
	close(s.done)
	msg = drainStatusCmd(7, s, time.Hour)().(statusBatchMsg)
	if len(msg.results) != 1 || !msg.done {
		t.Fatalf("last batch = %+v", msg)
	}
}

// The emitter startStatusCmd gives core's workers must not block them when nobody drains
// (the user quit): results beyond the buffer are dropped, the first ones are kept.
func TestStatusStreamNeverBlocksWorkers(t *testing.T) {
	t.Parallel()
	s := &statusStream{ch: make(chan core.StatusResult, 1), done: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			s.emit(core.StatusResult{Path: string(rune('a' + i%26))})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("emit blocked")
	}
	if r := <-s.ch; r.Path != "a" || len(s.ch) != 0 {
		t.Errorf("buffer holds %q and %d more, want only the first result", r.Path, len(s.ch))
	}
}

func TestQuitKeysCancel(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"q", "esc", "ctrl+c"} {
		m := mixed(t, 100, 20)
		m, cmd := send(t, m, press(k))
		if !isQuit(cmd) || !m.Result().Cancelled {
			t.Errorf("%s: quit=%v result=%+v", k, isQuit(cmd), m.Result())
		}
		if m.ctx.Err() == nil {
			t.Errorf("%s: picker context not cancelled (status workers would keep running)", k)
		}
	}
}

func TestFilterTypingEnterAndEsc(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("/"))
	m = typeText(t, m, "rebase")
	if len(m.visible) == 0 {
		t.Fatal("no match")
	}
	if r, _ := m.selected(); r.wt.Branch != "feat/rebase" {
		t.Errorf("best match %q, want feat/rebase", r.wt.Branch)
	}
	// Keys that are actions in the list are text in the filter.
	m = typeText(t, m, "q")
	if m.quitting || m.filter.Value() != "rebaseq" {
		t.Fatalf("q was not typed: %q", m.filter.Value())
	}
	m, _ = send(t, m, press("backspace"), press("esc"))
	if m.mode != modeList || m.filter.Value() != "" || len(m.visible) != len(m.rows) {
		t.Error("esc did not clear the filter")
	}
	// Matching on the path too.
	m, _ = send(t, m, press("/"))
	m = typeText(t, m, "usb")
	if r, _ := m.selected(); r.wt.Path != "/mnt/usb/app-lock" {
		t.Errorf("path match selected %s", r.wt.Path)
	}
	m, _ = send(t, m, press("enter"))
	if m.op == nil || m.op.kind != core.OpSwitch || m.mode != modeList {
		t.Error("enter in the filter did not switch to the match")
	}
}

func TestEscClearsAppliedFilterBeforeQuitting(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("/"))
	m = typeText(t, m, "feat")
	m.mode = modeList // as after a failed switch from the filter
	m, cmd := send(t, m, press("esc"))
	if isQuit(cmd) || m.filter.Value() != "" {
		t.Error("esc quit instead of clearing the filter")
	}
}

func TestMouseWheelAndClick(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(40, 12, Options{}), fxMixed(), nil)
	m, _ = send(t, m, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.offset == 0 {
		t.Error("wheel did not scroll")
	}
	m, _ = send(t, m, tea.MouseClickMsg{Button: tea.MouseLeft, Y: 1})
	if m.cursor != m.offset {
		t.Errorf("click on the first list line selected %d, want %d", m.cursor, m.offset)
	}
	before := m.cursor
	m, _ = send(t, m, tea.MouseClickMsg{Button: tea.MouseLeft, Y: 0}) // header
	if m.cursor != before {
		t.Error("click on the header moved the cursor")
	}
}

func TestCursorStaysVisible(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(40, 12, Options{}), fxMixed(), nil)
	m, _ = send(t, m, press("G"))
	if m.cursor != len(m.visible)-1 || m.cursor < m.offset || m.cursor >= m.offset+m.listHeight() {
		t.Errorf("cursor %d off screen (offset %d, height %d)", m.cursor, m.offset, m.listHeight())
	}
	if !strings.Contains(plain(m), "perf/slow-status") {
		t.Error("last row not drawn")
	}
	m, _ = send(t, m, tea.WindowSizeMsg{Width: 40, Height: 8})
	if m.cursor >= m.offset+m.listHeight() {
		t.Error("resize left the cursor off screen")
	}
}

func TestHelpToggle(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("?"))
	if !strings.Contains(plain(m), "force remove") {
		t.Error("full help missing")
	}
	m, _ = send(t, m, press("?"))
	if strings.Contains(plain(m), "force remove") {
		t.Error("full help did not close")
	}
}

func TestBackgroundColorRebuildsStyles(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	dark := m.View().Content
	m, _ = send(t, m, tea.BackgroundColorMsg{Color: whiteColor{}})
	if m.isDark || m.View().Content == dark {
		t.Error("light background did not change the styles")
	}
	n := loaded(t, newTestModel(100, 20, Options{NoColor: true}), fxMixed(), nil)
	n, _ = send(t, n, tea.BackgroundColorMsg{Color: whiteColor{}})
	if strings.Contains(n.View().Content, "38;2;") {
		t.Error("NoColor lost after a background report")
	}
}

func TestHostileGitValuesEscapedInRows(t *testing.T) {
	t.Parallel()
	l := &core.Listing{RepoRoot: "/r", Worktrees: []core.Worktree{
		{Branch: "main", Path: "/r", Main: true, Current: true},
		{Branch: "evil\u202egnp.exe", Path: "/r/wt\nfake row", Locked: ptr("x\x1b[31mred")},
	}}
	m := loaded(t, newTestModel(80, 12, Options{}), l, nil)
	m, _ = send(t, m, press("j"))
	out := m.View().Content
	for _, bad := range []string{"\u202e", "\nfake row", "\x1b[31mred"} {
		if strings.Contains(out, bad) {
			t.Errorf("raw %q reached the screen", bad)
		}
	}
	if !strings.Contains(plain(m), `\u202e`) || !strings.Contains(plain(m), `\nfake row`) {
		t.Errorf("escapes not shown:\n%s", plain(m))
	}
}

func TestUnitHelpers(t *testing.T) {
	t.Parallel()
	if got := tildePath("/home/dev/src", "/home/dev"); got != "~/src" {
		t.Error(got)
	}
	if got := tildePath("/home/developer/x", "/home/dev"); got != "/home/developer/x" {
		t.Error("prefix of a longer name replaced:", got)
	}
	if got := midCut("/aaaa/bbbb/cccc/leaf-dir", 16); len([]rune(got)) != 16 || !strings.HasSuffix(got, "leaf-dir") || !strings.Contains(got, "…") {
		t.Errorf("MidCut = %q", got)
	}
	if got := midCut("short", 10); got != "short" {
		t.Error(got)
	}
	if got := oneLine(`already\nescaped`); got != `already\nescaped` {
		t.Error("oneLine double-escaped:", got)
	}
	if got := oneLine("a\nb\u202ec"); got != `a\nb\u202ec` {
		t.Error("oneLine:", got)
	}
}

func TestListFailureSaysSoAndRetries(t *testing.T) {
	t.Parallel()
	m := newTestModel(80, 12, Options{})
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, err: &core.Error{Kind: core.KindFailed, Code: "list_failed", Message: "cannot list worktrees: git exited 128"}})
	out := plain(m)
	if !strings.Contains(out, "could not read the worktree list") || strings.Contains(out, "No other worktrees") {
		t.Errorf("failed load shown as:\n%s", out)
	}
	m, _ = send(t, m, press("r"))
	if !strings.Contains(plain(m), "refreshing") {
		t.Error("no feedback for r")
	}
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: fxOnlyMain()})
	if strings.Contains(plain(m), "refreshing") || !strings.Contains(plain(m), "No other worktrees") {
		t.Errorf("after retry:\n%s", plain(m))
	}
}

// After a switch in this process (a picker reopened by the same Service, or an agent's
// session), core's SessionPath is where the session is, while git's Current still marks
// where the process started. The ● row, its style and the starting cursor follow the session.
func TestSessionPathMarksCurrentRow(t *testing.T) {
	t.Parallel()
	const session = "/home/dev/src/app.worktrees/release-2.0"
	m := newTestModel(100, 20, Options{})
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: fxMixed(), session: session})
	if r, _ := m.selected(); r.wt.Path != session {
		t.Errorf("cursor starts on %s, want the session's worktree", r.wt.Path)
	}
	// marked is the branch of every row drawn with ● (the second cell of a row line).
	marked := func(m Model) []string {
		var out []string
		for _, l := range strings.Split(plain(m), "\n") {
			if rs := []rune(l); len(rs) > 2 && rs[1] == '●' {
				out = append(out, strings.Fields(string(rs[2:]))[0])
			}
		}
		return out
	}
	if got := marked(m); len(got) != 1 || got[0] != "release/2.0" {
		t.Errorf("● rows = %q, want only release/2.0:\n%s", got, plain(m))
	}
	if rowByPath(t, m, "/home/dev/src/app.worktrees/feat-login").current {
		t.Error("git's Current still marks the row the process started in")
	}
	// A refresh keeps the cursor where the user put it and the marker on the session.
	m, _ = send(t, m, press("g"), press("r"))
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: fxMixed(), session: session})
	if r, _ := m.selected(); !r.wt.Main {
		t.Errorf("refresh moved the cursor to %s", r.wt.Path)
	}
	if got := marked(m); len(got) != 1 || got[0] != "release/2.0" {
		t.Errorf("after refresh ● rows = %q", got)
	}
	// Without a session path (no switch yet) git's Current decides.
	n := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), nil)
	if got := marked(n); len(got) != 1 || got[0] != "feat/login" {
		t.Errorf("without a session ● rows = %q", got)
	}
}

// tab ends typing but keeps the filter, so the list keys act on the matches: filter to the
// dirty worktree, then d. The help then offers esc to clear the filter, and esc does.
func TestFilterTabKeepsMatchesForListKeys(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("/"))
	m = typeText(t, m, "usb")
	m, _ = send(t, m, press("tab"))
	if m.mode != modeList || m.filter.Value() != "usb" || len(m.visible) != 1 {
		t.Fatalf("tab: mode=%v filter=%q visible=%d", m.mode, m.filter.Value(), len(m.visible))
	}
	if out := plain(m); !strings.Contains(out, "/ usb") || !strings.Contains(out, "esc clear filter") {
		t.Errorf("applied filter not shown or not explained:\n%s", out)
	}
	m, _ = send(t, m, press("d"))
	if m.op == nil || m.op.kind != core.OpRemove || m.op.path != "/mnt/usb/app-lock" || m.filter.Value() != "usb" {
		t.Fatalf("d after tab: op=%+v filter=%q", m.op, m.filter.Value())
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: "x", Message: "no"}})
	m, cmd := send(t, m, press("esc"))
	if isQuit(cmd) || m.filter.Value() != "" || len(m.visible) != len(m.rows) {
		t.Error("esc did not clear the applied filter")
	}
	if m.selectedPath() != "/mnt/usb/app-lock" {
		t.Errorf("clearing the filter moved the cursor to %s", m.selectedPath())
	}
	if strings.Contains(plain(m), "esc clear filter") {
		t.Error("help still offers to clear a filter that is gone")
	}
}
