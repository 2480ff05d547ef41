package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// fxClaimed is fxMixed with the agent's worktree claimed by its session.
func fxClaimed() *core.Listing {
	l := fxMixed()
	for i := range l.Worktrees {
		if l.Worktrees[i].Branch == "agent/claude-1" {
			l.Worktrees[i].ID = "agent-claude-1"
			l.Worktrees[i].Locked = ptr("copse claim: session=claude-1 since=2026-01-02T02:00:00Z")
			l.Worktrees[i].Claim = &core.Claim{Session: "claude-1", Since: time.Date(2026, 1, 2, 2, 0, 0, 0, time.UTC)}
		}
	}
	return l
}

func TestGoldenListClaimed(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxClaimed(), fxMixedStatus())
	m = selectBranch(t, m, "agent/claude-1") // the claimed agent row
	out := plain(m)
	if !strings.Contains(out, "⚑ claude-1") || !strings.Contains(out, "claimed by claude-1 since") {
		t.Fatalf("claim not shown:\n%s", out)
	}
	goldenPlain(t, m)
}

// prunePreview is a plan shaped as core's prune makes it: what goes as fields, what stays
// (and why) as notes.
func prunePreview() *core.Plan {
	conf := &core.Confirmation{
		Title: "Prune: remove 1 idle worktree and forget 1 worktree whose directory is gone?",
		Fields: []core.ConfirmField{
			{Name: "remove", Value: "/home/dev/src/app.worktrees/release-2.0 (release/2.0)"},
			{Name: "forget", Value: "/tmp/app-old"},
		},
		Warnings: []string{
			"keeps /home/dev/src/app: the main checkout",
			"keeps /home/dev/src/app.worktrees/feat-login: copse is running in it",
			"keeps /home/dev/src/app.worktrees/agent-claude-1: claimed by session claude-1 since 2026-01-02T02:00:00Z",
			"keeps /mnt/usb/app-lock: locked by a human: on a USB drive",
		},
	}
	return &core.Plan{Request: core.PruneRequest{}, Confirm: conf}
}

func TestGoldenPrunePreview(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 24, Options{}), fxClaimed(), fxMixedStatus())
	m, _ = send(t, m, press("P"))
	if m.op == nil || m.op.kind != core.OpPrune {
		t.Fatal("P did not start a prune")
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, plan: prunePreview()})
	if m.mode != modeConfirm {
		t.Fatal("the prune preview did not open the dialog")
	}
	goldenPlain(t, m)
}

func TestGoldenClaimedStatus(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 20, Options{}), fxMixed(), fxMixedStatus())
	m, _ = send(t, m, press("c"))
	if m.op == nil || m.op.kind != core.OpClaim {
		t.Fatal("c did not start a claim")
	}
	out := &core.Outcome{Operation: core.OpClaim, Path: "/home/dev/src/app.worktrees/feat-login",
		Claim: &core.Claim{Session: "claude-2", Since: fxClock}, Previous: "claude-1"}
	m, _ = send(t, m, executedMsg{op: m.op.id, outcome: out})
	if !strings.Contains(plain(m), "claimed ~/src/app.worktrees/feat-login for claude-2 (taken over from claude-1)") {
		t.Fatalf("status:\n%s", plain(m))
	}
	goldenPlain(t, m)
}

// Against real git: c claims the row for the picker's session and the row shows it, C
// releases it, P previews the prune (what stays and why) and removes only after y.
func TestFlowClaimReleasePrune(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/claim", "app.worktrees/claim")
	idle := r.AddWorktree("feat/idle", "app.worktrees/idle")
	old := time.Now().Add(-100 * time.Hour)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", "idle", f), old, old)
	}
	getenv := func(k string) string {
		if k == "COPSE_SESSION" {
			return "picker-1"
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, svc, Options{})
	f.selectPath(wt)
	f.keys("c")
	fr := f.wait("the claim is shown", func(fr frame) bool { return !fr.busy && strings.Contains(fr.view, "⚑ picker-1") })
	if !strings.Contains(fr.status.msg, "claimed") {
		t.Errorf("status %q", fr.status.msg)
	}
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(wl, "locked copse claim: session=picker-1") {
		t.Fatalf("git does not show the claim:\n%s", wl)
	}
	f.selectPath(wt)
	f.keys("C")
	f.wait("the claim is gone", func(fr frame) bool {
		return !fr.busy && strings.Contains(fr.status.msg, "released") && !strings.Contains(fr.view, "⚑")
	})

	// Claim again, then preview the prune: the idle one goes, the claimed one stays.
	f.selectPath(wt)
	f.keys("c")
	f.wait("claimed again", func(fr frame) bool { return !fr.busy && strings.Contains(fr.view, "⚑ picker-1") })
	f.keys("P")
	fr = f.wait("the preview opens", func(fr frame) bool { return fr.mode == modeConfirm })
	for _, s := range []string{"remove", "app.worktrees/idle", "keeps", "claimed by session", "picker-1", "Prune: remove 1 idle worktree?"} {
		if !strings.Contains(fr.view, s) {
			t.Errorf("preview lacks %q:\n%s", s, fr.view)
		}
	}
	if _, err := os.Stat(idle); err != nil {
		t.Fatal("the preview removed something")
	}
	f.keys("y")
	fr = f.wait("pruned", func(fr frame) bool { return fr.loaded && !fr.busy && !contains(fr.paths, idle) })
	if !strings.Contains(fr.status.msg, "pruned 1 worktrees") || !strings.Contains(fr.status.msg, "1 claimed") {
		t.Errorf("status %q", fr.status.msg)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Error("the claimed worktree was pruned")
	}
	f.keys("q")
	f.result()
}

// Without a session, c asks for one in a prompt instead of naming a CLI flag: esc cancels
// and nothing changes; an id core refuses brings the prompt back with the reason and nothing
// changes; a good id claims the row in its name, and C then releases it without asking again.
func TestFlowClaimWithoutSessionAsksForOne(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/x", "app.worktrees/x")
	before := r.Snapshot()
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(wt)
	f.keys("c")
	fr := f.wait("the session prompt", func(fr frame) bool { return !fr.busy && fr.mode == modeSession })
	for _, s := range []string{"Claim feat/x for which session?", "enter use this session", "esc cancel"} {
		if !strings.Contains(fr.view, s) {
			t.Errorf("prompt lacks %q:\n%s", s, fr.view)
		}
	}
	if strings.Contains(fr.view, "--session") {
		t.Errorf("the prompt names a CLI flag:\n%s", fr.view)
	}
	f.keys("esc")
	fr = f.wait("back in the list", func(fr frame) bool { return fr.mode == modeList })
	if !strings.Contains(fr.status.msg, "nothing changed") {
		t.Errorf("esc: status %+v", fr.status)
	}
	r.Unchanged(before)

	f.keys("c")
	f.wait("the prompt again", func(fr frame) bool { return !fr.busy && fr.mode == modeSession })
	f.keys(strings.Split("bad!id", "")...)
	f.keys("enter")
	fr = f.wait("the refused id shown in the prompt", func(fr frame) bool {
		return !fr.busy && fr.mode == modeSession && strings.Contains(fr.view, "may not")
	})
	if !strings.Contains(fr.view, "bad!id") {
		t.Errorf("the refused id is not kept for editing:\n%s", fr.view)
	}
	r.Unchanged(before)
	for range "bad!id" {
		f.keys("backspace")
	}
	f.keys(strings.Split("agent-7", "")...)
	f.keys("enter")
	f.wait("claimed", func(fr frame) bool { return !fr.busy && strings.Contains(fr.view, "⚑ agent-7") })
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(wl, "locked copse claim: session=agent-7") {
		t.Fatalf("git does not show the claim:\n%s", wl)
	}
	f.selectPath(wt)
	f.keys("C")
	fr = f.wait("released (the prompt does not come back)", func(fr frame) bool {
		return fr.mode == modeSession || !fr.busy && strings.Contains(fr.status.msg, "released") && !strings.Contains(fr.view, "⚑")
	})
	if fr.mode != modeList {
		t.Errorf("C asked for the session again:\n%s", fr.view)
	}
	f.keys("q")
	f.result()
}

// A claim another session holds: the status line offers F (take it over) instead of
// --force; nothing changes until F, and F asks before it takes the claim over.
func TestFlowClaimHeldOffersForceKey(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/held", "app.worktrees/held")
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=other-1 since=2026-01-01T00:00:00Z", wt)
	before := r.Snapshot()
	getenv := func(k string) string {
		if k == "COPSE_SESSION" {
			return "picker-1"
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, svc, Options{})
	f.selectPath(wt)
	f.keys("c")
	fr := f.wait("the refusal", func(fr frame) bool { return !fr.busy && fr.status.kind == statusError })
	if fr.status.offer == nil || !strings.Contains(fr.status.hint, "press F to take the claim over") {
		t.Errorf("no F offer: %+v", fr.status)
	}
	if strings.Contains(fr.view, "--force") || !strings.Contains(fr.view, "F again with force") {
		t.Errorf("screen:\n%s", fr.view)
	}
	r.Unchanged(before)
	f.keys("F")
	fr = f.wait("the takeover asks", func(fr frame) bool { return !fr.busy && fr.mode == modeConfirm })
	if !strings.Contains(fr.view, "other-1") {
		t.Errorf("the dialog does not name the session losing its claim:\n%s", fr.view)
	}
	r.Unchanged(before)
	f.keys("y")
	f.wait("taken over", func(fr frame) bool { return !fr.busy && strings.Contains(fr.view, "⚑ picker-1") })
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(wl, "session=picker-1") {
		t.Fatalf("git does not show the new claim:\n%s", wl)
	}
	f.keys("q")
	f.result()
}
