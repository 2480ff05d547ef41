package tui

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

// shortHelpLine is the help bar as drawn (last line of the frame).
func shortHelpLine(m Model) string {
	lines := strings.Split(plain(m), "\n")
	return lines[len(lines)-1]
}

// On the main checkout the keys that cannot work there (d, D, c, C, L) leave the help bar,
// full help included, and pressing one says why without starting anything or typing into
// the filter; on a linked row they are back.
func TestKeysHiddenOnMainCheckout(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("g")) // main sorts first
	if r, _ := m.selected(); !r.wt.Main {
		t.Fatalf("selected %s, want the main checkout", r.wt.Path)
	}
	if h := shortHelpLine(m); strings.Contains(h, "d remove") {
		t.Errorf("help on main: %q", h)
	}
	m, _ = send(t, m, press("?"))
	full := plain(m)
	for _, s := range []string{"d remove", "D force remove", "c claim", "C release", "L land"} {
		if strings.Contains(full, s) {
			t.Errorf("full help on main shows %q:\n%s", s, full)
		}
	}
	m, _ = send(t, m, press("?"))
	for _, k := range []string{"d", "D", "c", "C", "L"} {
		mm, _ := send(t, m, press(k))
		if mm.op != nil || mm.mode != modeList || mm.filter.Value() != "" {
			t.Errorf("%s on main: op=%v mode=%v filter=%q", k, mm.op, mm.mode, mm.filter.Value())
		}
		if mm.status.kind != statusInfo || !strings.Contains(mm.status.msg, "main checkout") {
			t.Errorf("%s on main: status %+v", k, mm.status)
		}
	}
	m, _ = send(t, m, press("j")) // feat/login, linked and unlocked
	if h := shortHelpLine(m); !strings.Contains(h, "d remove") {
		t.Errorf("help on a linked row: %q", h)
	}
	if !m.keys.Remove.Enabled() || !m.keys.Claim.Enabled() || !m.keys.Land.Enabled() || m.keys.Release.Enabled() {
		t.Errorf("linked unlocked row: remove %v claim %v land %v release %v",
			m.keys.Remove.Enabled(), m.keys.Claim.Enabled(), m.keys.Land.Enabled(), m.keys.Release.Enabled())
	}
	mm, _ := send(t, m, press("d"))
	if mm.op == nil || mm.op.kind != core.OpRemove {
		t.Error("d on a linked row did not start a remove")
	}
}

// C is offered only on a row that holds a claim or lock; L not on a detached row.
func TestReleaseAndLandFollowTheRow(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxClaimed(), fxMixedStatus())
	m = selectBranch(t, m, "agent/claude-1")
	if !m.keys.Release.Enabled() {
		t.Error("C hidden on a claimed row")
	}
	mm, _ := send(t, m, press("C"))
	if mm.op == nil || mm.op.kind != core.OpRelease {
		t.Error("C on a claimed row did not start a release")
	}
	m = selectBranch(t, m, "feat/login")
	if m.keys.Release.Enabled() {
		t.Error("C offered on an unclaimed row")
	}
	for m.cursor < len(m.visible)-1 {
		if r, _ := m.selected(); r.wt.Detached {
			break
		}
		m, _ = send(t, m, press("j"))
	}
	if r, _ := m.selected(); !r.wt.Detached || m.keys.Land.Enabled() {
		t.Errorf("on %s (detached %v) L enabled = %v", r.wt.Path, r.wt.Detached, m.keys.Land.Enabled())
	}
}

// A claim or release refused for a reason force gets past: the hint names F, not --force,
// F leads the help bar, and F sends the same request with force; any other key drops the
// offer. A refusal force does not help offers nothing.
func TestClaimRefusalOffersF(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxClaimed(), fxMixedStatus())
	m = selectBranch(t, m, "agent/claude-1")
	m, _ = send(t, m, press("c"))
	held := &core.Error{Kind: core.KindRefused, Code: core.CodeClaimed, ForceHelps: true,
		Message: "~/src/app.worktrees/agent-claude-1 is claimed by session claude-1", Hint: "pick another worktree, or pass --force to take it over (asks first)"}
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: held})
	out := plain(m)
	if strings.Contains(out, "--force") || !strings.Contains(out, "press F to take the claim over") {
		t.Errorf("screen:\n%s", out)
	}
	if h := shortHelpLine(m); !strings.HasPrefix(h, "F again with force") {
		t.Errorf("help: %q", h)
	}
	f, _ := send(t, m, press("F"))
	req, ok := f.op.req.(core.ClaimRequest)
	if f.op == nil || f.op.kind != core.OpClaim || !ok || !req.Force || req.Path == nil || *req.Path != "/home/dev/src/app.worktrees/agent-claude-1" {
		t.Fatalf("F did not claim with force: %+v", f.op)
	}
	other, _ := send(t, m, press("j"), press("F"))
	if other.op != nil || other.keys.Force.Enabled() {
		t.Error("the offer outlived the next key")
	}

	m, _ = send(t, m, press("C"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeClaimedByOther, ForceHelps: true, Message: "held by claude-1", Hint: "pass --force"}})
	if m.status.offer == nil || m.status.hint != "ask that session to release it, or press F to release it anyway (asks first)" {
		t.Errorf("release: %+v", m.status)
	}
	if f, _ := send(t, m, press("F")); f.op == nil || !f.op.req.(core.ReleaseRequest).Force {
		t.Error("F did not release with force")
	}

	m, _ = send(t, m, press("c"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodePrunableWorktree, Message: "gone", Hint: "run git worktree prune"}})
	if m.status.offer != nil || m.keys.Force.Enabled() || m.status.hint != "run git worktree prune" {
		t.Errorf("unforceable refusal: %+v", m.status)
	}
}

// esc does one thing per state, and the help line names that thing.
func TestEscOneThingPerState(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	if h := shortHelpLine(m); !strings.Contains(h, "q/esc quit") {
		t.Errorf("plain list help: %q", h)
	}
	// Full help open: esc closes it (and only it).
	m, _ = send(t, m, press("?"))
	if !strings.Contains(plain(m), "?/esc  close") {
		t.Errorf("full help does not name esc:\n%s", plain(m))
	}
	mm, cmd := send(t, m, press("esc"))
	if isQuit(cmd) || mm.showHelp {
		t.Error("esc with the full help open did not just close it")
	}
	// A filter applied: esc clears it; q still quits; the help says exactly that.
	m, _ = send(t, mm, press("/"), press("f"), press("e"), press("a"), press("t"), press("tab"))
	h := shortHelpLine(m)
	if !strings.Contains(h, "esc clear filter") || strings.Contains(h, "q/esc") || !strings.Contains(h, "q quit") {
		t.Errorf("filtered list help: %q", h)
	}
	mm, cmd = send(t, m, press("esc"))
	if isQuit(cmd) || mm.filter.Value() != "" {
		t.Error("esc with a filter applied did not just clear it")
	}
	// Filter applied and full help open: the help closes first, the filter stays.
	m2, _ := send(t, m, press("?"), press("esc"))
	if m2.showHelp || m2.filter.Value() != "feat" {
		t.Errorf("help %v filter %q", m2.showHelp, m2.filter.Value())
	}
	// Plain list: esc quits.
	if _, cmd := send(t, mm, press("esc")); !isQuit(cmd) {
		t.Error("esc in the plain list did not quit")
	}
}

// A land refused because another session claimed the worktree closes the form and offers
// F, which lands with force_claim and the typed target; a land hint that names --into
// names the form's field instead.
func TestLandRefusalsInPickerWords(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxClaimed(), fxMixedStatus())
	m = selectBranch(t, m, "agent/claude-1")
	m, _ = send(t, m, press("L"))
	if m.mode != modeLand {
		t.Fatal("L did not open the land form")
	}
	m = typeText(t, m, "release/2.0")
	m, _ = send(t, m, press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeClaimedByOther, ForceHelps: true,
		Message: "claimed by session claude-1", Hint: "pass --force-claim (request field force_claim)"}})
	if m.mode != modeList || m.status.offer == nil || strings.Contains(plain(m), "--force-claim") || !strings.Contains(m.status.hint, "press F") {
		t.Fatalf("mode %v status %+v\n%s", m.mode, m.status, plain(m))
	}
	f, _ := send(t, m, press("F"))
	req, ok := f.op.req.(core.LandRequest)
	if f.op == nil || f.op.kind != core.OpLand || !ok || !req.ForceClaim || req.Into == nil || *req.Into != "release/2.0" {
		t.Fatalf("F did not land with force_claim and the typed target: %+v", f.op)
	}

	m, _ = send(t, m, press("L"), press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeTargetMissing,
		Message: "the target branch nope does not exist", Hint: "create it, or pass another --into"}})
	if out := plain(m); strings.Contains(out, "--into") || !strings.Contains(out, "type another branch in the into field") {
		t.Errorf("target_missing:\n%s", out)
	}
}

// Create, prune and remove hints that name a CLI flag or command are phrased for the picker.
func TestCreateAndPruneHintsInPickerWords(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("d"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeCurrentWorktree,
		Message: "it is the worktree copse is running in", Hint: "switch to another worktree first (`copse switch /home/dev/src/app`), then remove this one"}})
	if out := plain(m); strings.Contains(out, "copse switch") || !strings.Contains(out, "enter on its row") {
		t.Errorf("remove:\n%s", out)
	}
	m, _ = send(t, m, press("n"))
	m = typeText(t, m, "feat/new")
	m, _ = send(t, m, press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Code: core.CodeUnknownBase, Field: "base",
		Message: "the main checkout's branch main has no commit", Hint: "commit on it first, or pass --base REF"}})
	if out := plain(m); strings.Contains(out, "--base") || !strings.Contains(out, "type a base") {
		t.Errorf("create:\n%s", out)
	}
	m, _ = send(t, m, press("esc"), press("P"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Code: core.CodeBadDuration, Field: "copse.pruneAfter",
		Message: "git config copse.pruneAfter is not a duration", Hint: "fix it: `git config copse.pruneAfter 72h` (or pass --older-than)"}})
	if m.status.hint != "fix it: `git config copse.pruneAfter 72h`" {
		t.Errorf("prune: %+v", m.status)
	}
}

// The session prompt as drawn at 80x24, and the refused id shown in it.
func TestGoldenSessionPrompt(t *testing.T) {
	t.Parallel()
	m := mixed(t, 80, 24)
	m = selectBranch(t, m, "release/2.0")
	m, _ = send(t, m, press("c"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Code: core.CodeSessionRequired, Field: "session",
		Message: "claim needs a session id and none was given", Hint: "pass --session ID (request field \"session\"), or set COPSE_SESSION"}})
	if m.mode != modeSession {
		t.Fatalf("mode %v, want the session prompt", m.mode)
	}
	m = typeText(t, m, "bad!id")
	m, _ = send(t, m, press("enter"))
	if m.op == nil {
		t.Fatal("enter did not send the claim")
	}
	if req := m.op.req.(core.ClaimRequest); req.Session == nil || *req.Session != "bad!id" {
		t.Fatalf("the claim does not carry the typed session: %+v", req)
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Code: core.CodeBadSession, Field: "session",
		Message: `session "bad!id" contains "!", which a session id may not`, Hint: "use letters, digits and . _ : @ / + = - only (e.g. agent-7 or herdr:wA)"}})
	if m.mode != modeSession || m.sessionAsk.input.Value() != "bad!id" || m.session != "" {
		t.Fatalf("mode %v value %q session %q", m.mode, m.sessionAsk.input.Value(), m.session)
	}
	if out := plain(m); strings.Contains(out, "--session") {
		t.Errorf("the prompt names a CLI flag:\n%s", out)
	}
	goldenPlain(t, m)
}

// The F offer at 60 columns: the hint wraps whole, F leads the help line and q/esc quit
// stays at its end.
func TestGoldenForceOffer60(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(60, 20, Options{}), fxClaimed(), fxMixedStatus())
	m = selectBranch(t, m, "agent/claude-1")
	m, _ = send(t, m, press("c"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeClaimed, ForceHelps: true,
		Message: "~/src/app.worktrees/agent-claude-1 is claimed by session claude-1", Hint: "pass --force"}})
	h := shortHelpLine(m)
	if !strings.HasPrefix(h, "F again with force") || !strings.HasSuffix(h, "q/esc quit") {
		t.Errorf("help: %q", h)
	}
	goldenPlain(t, m)
}

// A blocked land job's hint on the detail line names L and F, not --force-claim or
// --force-restart; a hint without a CLI flag is kept.
func TestLandJobHintsInPickerWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ code, hint, want string }{
		{core.CodeClaimedByOther, "land it from that session, or land again with --force-claim to take the claim over (asks first)", "land again (L) and press F"},
		{core.CodeRebaseConflict, "resolve in /w, git add the files, git rebase --continue, then land again (or land with --force-restart to start over)", "(or land again with L and press F to start over)"},
		{core.CodeTestFailed, "fix it, commit, and land again", "fix it, commit, and land again"},
	} {
		got := landDetail(&core.LandJob{Job: "land-1", State: core.LandBlocked, Code: tc.code, Message: "m", Hint: tc.hint})
		if strings.Contains(got, "--force") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q", tc.code, got)
		}
	}
}

// A land refused for a rebase an earlier land left open offers F, which lands with
// force_restart (core still refuses a rebase it did not start).
func TestLandRebaseInProgressOffersRestart(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("L"), press("enter"))
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindRefused, Code: core.CodeRebaseInProgress,
		Message: "a rebase is in progress", Hint: "…; or land with --force-restart to abort a rebase an earlier land started"}})
	if m.mode != modeList || m.status.offer == nil || strings.Contains(plain(m), "--force-restart") {
		t.Fatalf("mode %v status %+v", m.mode, m.status)
	}
	f, _ := send(t, m, press("F"))
	if req, ok := f.op.req.(core.LandRequest); f.op == nil || !ok || !req.ForceRestart {
		t.Fatalf("F did not land with force_restart: %+v", f.op)
	}
}
