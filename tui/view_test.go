package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Golden tests of the rendered view. View().Content is deterministic: lipgloss always
// emits full-colour ANSI, so a coloured golden is stable whatever the terminal running
// the tests; the layout goldens strip ANSI. Size, home directory and clock are pinned.
// Regenerate with: go test ./tui -run TestGolden -update

func plain(m Model) string { return ansi.Strip(m.View().Content) }

// checkFrame asserts the frame invariants every golden relies on: exactly h lines, none
// wider than w.
func checkFrame(t *testing.T, m Model) {
	t.Helper()
	lines := strings.Split(m.View().Content, "\n")
	if len(lines) != m.h() {
		t.Errorf("frame has %d lines, want %d", len(lines), m.h())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > m.w() {
			t.Errorf("line %d is %d cells wide, want <= %d: %q", i, w, m.w(), ansi.Strip(l))
		}
	}
}

func goldenPlain(t *testing.T, m Model) {
	t.Helper()
	checkFrame(t, m)
	golden.RequireEqual(t, plain(m))
}

func mixed(t *testing.T, w, h int) Model {
	return loaded(t, newTestModel(w, h, Options{}), fxMixed(), fxMixedStatus())
}

func TestGoldenListMixed(t *testing.T) {
	t.Parallel()
	goldenPlain(t, mixed(t, 100, 20))
}

// The process counts arrive after the status (one scan for every row): a row where
// processes work shows how many; a row with none shows nothing.
func TestGoldenListProcesses(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, processesMsg{seq: m.loadSeq, counts: map[string]int{
		"/home/dev/src/app.worktrees/feat-login": 2, "/home/dev/src/app.worktrees/release-2.0": 1, "/home/dev/src/app.worktrees/bisect": 0}})
	v := plain(m)
	if strings.Count(v, " proc") != 2 || !strings.Contains(v, "2 proc") || !strings.Contains(v, "1 proc") {
		t.Fatalf("process markers:\n%s", v)
	}
	// A count from a load a refresh replaced is dropped.
	stale, _ := send(t, mixed(t, 100, 20), processesMsg{seq: -1, counts: map[string]int{"/home/dev/src/app.worktrees/feat-login": 5}})
	if strings.Contains(plain(stale), "5 proc") {
		t.Fatal("a stale count was shown")
	}
	goldenPlain(t, m)
}

// The detail line explains the selected row: here the locked one, with its reason.
func TestGoldenListLockedDetail(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("j"), press("j")) // current (feat/login) → bisect → fix/lock-file
	goldenPlain(t, m)
}

func TestGoldenListHerdr(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}).withWorkspaces(), fxHerdr(), fxMixedStatus())
	goldenPlain(t, m)
}

func TestGoldenListColorDark(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	checkFrame(t, m)
	golden.RequireEqual(t, m.View().Content)
}

func TestGoldenListColorLight(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, tea.BackgroundColorMsg{Color: whiteColor{}})
	golden.RequireEqual(t, m.View().Content)
}

func TestGoldenListNoColor(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{NoColor: true}), fxMixed(), fxMixedStatus())
	out := m.View().Content
	if strings.Contains(out, "\x1b[3") || strings.Contains(out, "\x1b[4") || strings.Contains(out, ";2;") {
		t.Errorf("NoColor view contains colour sequences: %q", out)
	}
	golden.RequireEqual(t, out)
}

func TestGoldenFilter(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("/"))
	m = typeText(t, m, "feat")
	goldenPlain(t, m)
}

func TestGoldenFormError(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat..x")
	m, _ = send(t, m, branchCheckedMsg{seq: m.form.checkSeq, raw: "feat..x", err: &core.Error{
		Kind: core.KindUsage, Code: "invalid_branch", Field: "branch",
		Message: `branch "feat..x" is not a valid branch name`, Hint: "pick a name git accepts (see git check-ref-format)"}})
	m, _ = send(t, m, press("tab"))
	m = typeText(t, m, "ma")
	m, _ = send(t, m, branchesMsg{names: []string{"main", "feat/login"}})
	goldenPlain(t, m)
}

func TestGoldenFormHerdr(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}).withWorkspaces(), fxHerdr(), fxMixedStatus())
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "@{-1}")
	m, _ = send(t, m, branchCheckedMsg{seq: m.form.checkSeq, raw: "@{-1}", name: "feat/login"})
	m, _ = send(t, m, press("tab"), press("tab"))
	m = typeText(t, m, "/srv/wt/x")
	goldenPlain(t, m)
}

// hostilePlan is a removal confirmation whose values try to forge lines: a newline, a
// right-to-left override and a 300-character path. core escapes them; the dialog must
// keep each on one line and cut it with "…".
func hostilePlan() *core.Plan {
	long := "/home/dev/" + strings.Repeat("very-long-directory-name/", 12)
	long = long[:300]
	raw := map[string]string{
		"branch": "feat/x\nremoved: nothing",
		"path":   long,
		"label":  "safe\u202eexe.txt",
	}
	conf := &core.Confirmation{
		Title: "Remove worktree?",
		Fields: []core.ConfirmField{
			{Name: "path", Value: textsafe.Escape(raw["path"])},
			{Name: "branch", Value: textsafe.Escape(raw["branch"])},
			{Name: "label", Value: textsafe.Escape(raw["label"])},
		},
		Losses:   []string{"3 uncommitted changes (1 staged, 2 modified)", "2 commits not on any other branch"},
		Warnings: []string{"the worktree is locked: on a USB drive"},
	}
	return &core.Plan{Request: core.RemoveRequest{Path: core.Str(long)}, Confirm: conf}
}

func confirmOpen(t *testing.T, w, h int, key string) Model {
	m := mixed(t, w, h)
	m, _ = send(t, m, press(key))
	if m.op == nil {
		t.Fatal("d did not start an operation")
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: hostilePlan()})
	if m.mode != modeConfirm {
		t.Fatal("a plan with a confirmation did not open the dialog")
	}
	return m
}

func TestGoldenConfirmHostile(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "d")
	out := plain(m)
	if strings.Contains(out, "\u202e") || strings.Contains(out, "\nremoved: nothing") {
		t.Fatalf("hostile value reached the screen raw:\n%s", out)
	}
	goldenPlain(t, m)
}

func TestGoldenConfirmHostileNarrow(t *testing.T) {
	t.Parallel()
	goldenPlain(t, confirmOpen(t, 40, 16, "d"))
}

// At the smallest supported size the dialog drops its spacing, not its content.
func TestGoldenConfirm40x12(t *testing.T) {
	t.Parallel()
	goldenPlain(t, confirmOpen(t, 40, 12, "d"))
}

func TestGoldenConfirmForceSecond(t *testing.T) {
	t.Parallel()
	m := confirmOpen(t, 100, 20, "D")
	m, _ = send(t, m, press("y"))
	goldenPlain(t, m)
}

// A removal refused for a reason force gets past: core's message, then the picker's own
// hint (press D), not core's CLI hint (--force).
func TestGoldenErrorStatus(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: dirtyRefusal()})
	goldenPlain(t, m)
}

// dirtyRefusal is core's refusal of removing feat/login, as prepareRemove words it.
func dirtyRefusal() *core.Error {
	return &core.Error{Kind: core.KindRefused, Code: "dirty_worktree", ForceHelps: true,
		Message: "/home/dev/src/app.worktrees/feat-login (branch feat/login) has uncommitted changes: 1 staged, 2 unstaged, 3 untracked",
		Hint:    "commit or stash them first, or pass --force to discard them"}
}

// Herdr's list failed: git's rows are shown without workspace ids, and the status line
// says why, at warning level, until the next key.
func TestGoldenListWarning(t *testing.T) {
	t.Parallel()
	l := fxHerdr()
	for i := range l.Worktrees {
		l.Worktrees[i].WorkspaceID = nil
	}
	l.Warnings = []string{"workspace ids unavailable: cannot reach Herdr: dial unix /run/user/1000/herdr/herdr.sock: connect: connection refused — is Herdr running?"}
	m := loaded(t, newTestModel(100, 20, Options{}).withWorkspaces(), l, fxMixedStatus())
	goldenPlain(t, m)
}

// On a narrow terminal the error wraps, so what state remains is still readable.
func TestGoldenErrorStatusNarrow(t *testing.T) {
	t.Parallel()
	m := mixed(t, 40, 12)
	m, _ = send(t, m, press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindCancelled, Code: "cancelled",
		Message: "create cancelled after git made the worktree: /home/dev/src/app.worktrees/feat-slow is listed (branch feat/slow)",
		Hint:    "keep it, or remove it: copse remove --path /home/dev/src/app.worktrees/feat-slow"}})
	goldenPlain(t, m)
}

func TestGoldenBusy(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("j"), press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: &core.Plan{Request: core.RemoveRequest{}, Confirm: &core.Confirmation{Title: "Remove worktree?"}}})
	m, _ = send(t, m, press("y"))
	m.now = func() time.Time { return fxClock.Add(3 * time.Second) }
	goldenPlain(t, m)
}

func TestGoldenFullHelp(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("?"))
	goldenPlain(t, m)
}

func TestGoldenFullHelpNarrow(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(40, 16, Options{Pick: true}), fxMixed(), fxMixedStatus())
	m, _ = send(t, m, press("tab"), press("?")) // tab leaves the typing; ? is then the help
	goldenPlain(t, m)
}

func TestGoldenNarrow40(t *testing.T) {
	t.Parallel()
	goldenPlain(t, mixed(t, 40, 12))
}

func TestGoldenWide200(t *testing.T) {
	t.Parallel()
	goldenPlain(t, mixed(t, 200, 60))
}

func TestGoldenEmpty(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(80, 12, Options{}), fxOnlyMain(), []core.StatusResult{{Path: "/home/dev/src/app"}})
	goldenPlain(t, m)
}

func TestGoldenLoading(t *testing.T) {
	t.Parallel()
	goldenPlain(t, newTestModel(80, 12, Options{}))
}

func TestGoldenPick(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(80, 12, Options{Pick: true}), fxMixed(), fxMixedStatus())
	goldenPlain(t, m)
}

// TestReadmeCapture writes the picker as the README shows it (tui/testdata/readme-capture.txt):
// what a git-only user sees, no Herdr markers, with the last commits read.
func TestReadmeCapture(t *testing.T) {
	t.Parallel()
	l, st := fxRealistic()
	l.Backend = "git"
	subjects := []string{"Release 4.2", "checkout: address form, step 2", "cart: round half to even",
		"search: index product names", "deps: bump January", "perf: bisect slow listing", "graphql: schema spike"}
	ages := []time.Duration{26 * time.Hour, 2 * time.Hour, 5 * time.Hour, 20 * time.Minute, 3 * 24 * time.Hour, 6 * 24 * time.Hour, 3 * 7 * 24 * time.Hour}
	commits := map[string]core.Commit{}
	for i := range l.Worktrees {
		l.Worktrees[i].WorkspaceID = nil
		h := l.Worktrees[i].Head
		commits[h] = core.Commit{OID: h, When: fxClock.Add(-ages[i]), Subject: subjects[i], Author: "Dana Diaz"}
	}
	m := loaded(t, newTestModel(120, 12, Options{}), l, st)
	m, _ = send(t, m, commitsMsg{seq: m.loadSeq, commits: commits},
		divergenceMsg{seq: m.loadSeq, div: map[string]core.Divergence{l.Worktrees[1].Path: {Ahead: 3}}})
	m, _ = send(t, m, press("j"), press("j"), press("j")) // feat/checkout-v2
	checkFrame(t, m)
	lines := strings.Split(plain(m), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // the README quotes it; trailing blanks only add noise
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "readme-capture.txt")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("readme capture changed; run go test ./tui -run TestReadmeCapture -update\n got:\n%s\nwant:\n%s", got, want)
	}
}

// whiteColor is a light terminal background for BackgroundColorMsg.
type whiteColor struct{}

func (whiteColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// How to leave stays on the help line at every width the picker supports: the list's
// other keys give way first (? still lists them all).
func TestHelpLineKeepsQuit(t *testing.T) {
	t.Parallel()
	for _, w := range []int{40, 50, 60, 70, 80, 100} {
		m := loaded(t, newTestModel(w, 14, Options{}), fxMixed(), fxMixedStatus())
		lines := strings.Split(m.View().Content, "\n")
		last := ansi.Strip(lines[len(lines)-1])
		if !strings.Contains(last, "q/esc quit") || !strings.Contains(last, "? help") || ansi.StringWidth(last) > w {
			t.Errorf("%d columns: help line %q", w, last)
		}
	}
}
