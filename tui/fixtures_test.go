package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// Fixtures for the model-level tests: no Service, no git. The model is fed the same typed
// messages the commands would return.

const fxHome = "/home/dev"

var fxClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ptr(s string) *string { return &s }

func oid(c byte) string { return strings.Repeat(string(c), 40) }

// fxMixed is a list with every state a row can show.
func fxMixed() *core.Listing {
	wt := func(branch, path string) core.Worktree {
		return core.Worktree{Branch: branch, Path: path, Head: oid(branch[0])}
	}
	main := wt("main", "/home/dev/src/app")
	main.Main = true
	cur := wt("feat/login", "/home/dev/src/app.worktrees/feat-login")
	cur.Current = true
	det := core.Worktree{Path: "/home/dev/src/app.worktrees/bisect", Head: "abc1234def5678901234567890abcdef12345678", Detached: true}
	locked := wt("fix/lock-file", "/mnt/usb/app-lock")
	locked.Locked = ptr("on a USB drive")
	prun := wt("old/experiment", "/tmp/app-old")
	prun.Prunable = ptr("gitdir file points to non-existent location")
	rel := wt("release/2.0", "/home/dev/src/app.worktrees/release-2.0")
	conf := wt("merge/upstream", "/home/dev/src/app.worktrees/merge-upstream")
	reb := wt("feat/rebase", "/home/dev/src/app.worktrees/feat-rebase")
	agent := wt("agent/claude-1", "/home/dev/src/app.worktrees/agent-claude-1")
	agent.WorkspaceID = ptr("wG7")
	broken := wt("docs/site", "/home/dev/src/app.worktrees/docs-site")
	slow := wt("perf/slow-status", "/home/dev/src/app.worktrees/perf-slow-status")
	return &core.Listing{RepoRoot: "/home/dev/src/app", Backend: "git", Worktrees: []core.Worktree{
		main, cur, det, locked, prun, rel, conf, reb, agent, broken, slow,
	}}
}

// fxMixedStatus is the status of each row but the last, which is still being computed.
func fxMixedStatus() []core.StatusResult {
	return []core.StatusResult{
		{Path: "/home/dev/src/app", Status: core.Status{Upstream: "origin/main", Behind: 4}},
		{Path: "/home/dev/src/app.worktrees/feat-login", Status: core.Status{Staged: 1, Unstaged: 2, Untracked: 3, Upstream: "origin/feat/login", Ahead: 2}},
		{Path: "/home/dev/src/app.worktrees/bisect", Status: core.Status{}},
		{Path: "/mnt/usb/app-lock", Status: core.Status{Unstaged: 1}},
		{Path: "/home/dev/src/app.worktrees/release-2.0", Status: core.Status{Upstream: "origin/release/2.0", Ahead: 2, Behind: 5}},
		{Path: "/home/dev/src/app.worktrees/merge-upstream", Status: core.Status{Conflicted: 2, Unstaged: 1, Merging: true}},
		{Path: "/home/dev/src/app.worktrees/feat-rebase", Status: core.Status{Unstaged: 1, Rebasing: true}},
		{Path: "/home/dev/src/app.worktrees/agent-claude-1", Status: core.Status{Untracked: 7}},
		{Path: "/home/dev/src/app.worktrees/docs-site", Status: core.Status{Error: "git status: exit status 128"}},
		{Path: "/vanished/worktree", Status: core.Status{Unstaged: 9}},
	}
}

// fxHerdr is the same list as seen under Herdr.
func fxHerdr() *core.Listing {
	l := fxMixed()
	l.Backend = "herdr"
	return l
}

// fxOnlyMain is the empty state.
func fxOnlyMain() *core.Listing {
	return &core.Listing{RepoRoot: "/home/dev/src/app", Backend: "git", Worktrees: []core.Worktree{
		{Branch: "main", Path: "/home/dev/src/app", Head: oid('a'), Main: true, Current: true},
	}}
}

// fxRealistic is the README capture: a typical day with a few agents.
func fxRealistic() (*core.Listing, []core.StatusResult) {
	root := "/home/dev/src/shop"
	heads := []string{"3f9a1c27", "b41e0d98", "7c2f5a10", "e08d6b33", "51ac9e4f", "9f3c2a1b", "c6d71e02"}
	n := 0
	head := func() string { n++; return heads[n-1] + strings.Repeat("0", 32) }
	mk := func(branch, leaf string) core.Worktree {
		return core.Worktree{Branch: branch, Path: root + ".worktrees/" + leaf, Head: head()}
	}
	main := core.Worktree{Branch: "main", Path: root, Head: head(), Main: true, Current: true}
	a := mk("feat/checkout-v2", "feat-checkout-v2")
	a.WorkspaceID = ptr("w3")
	b := mk("fix/cart-rounding", "fix-cart-rounding")
	b.WorkspaceID = ptr("w4")
	c := mk("agent/claude-search", "agent-claude-search")
	c.WorkspaceID = ptr("w5")
	d := mk("chore/deps-2026-01", "chore-deps-2026-01")
	e := core.Worktree{Path: root + ".worktrees/bisect-perf", Head: head(), Detached: true}
	f := mk("spike/graphql", "spike-graphql")
	f.Locked = ptr("kept for the demo on Friday")
	l := &core.Listing{RepoRoot: root, Backend: "herdr", Worktrees: []core.Worktree{main, a, b, c, d, e, f}}
	st := []core.StatusResult{
		{Path: root, Status: core.Status{Upstream: "origin/main"}},
		{Path: a.Path, Status: core.Status{Staged: 2, Unstaged: 1, Upstream: "origin/feat/checkout-v2", Ahead: 3}},
		{Path: b.Path, Status: core.Status{Upstream: "origin/fix/cart-rounding", Ahead: 1, Behind: 2}},
		{Path: c.Path, Status: core.Status{Untracked: 4, Unstaged: 5}},
		{Path: d.Path, Status: core.Status{Unstaged: 1, Rebasing: true}},
		{Path: e.Path, Status: core.Status{}},
		{Path: f.Path, Status: core.Status{}},
	}
	return l, st
}

// newTestModel is a picker without a Service, pinned to a size, home and clock.
func newTestModel(w, h int, opts Options) Model {
	opts.Width, opts.Height = w, h
	m := newModel(context.Background(), nil, opts)
	m.home = fxHome
	m.now = func() time.Time { return fxClock }
	m.backend = "git"
	m.ops = ops.All
	return m
}

// withWorkspaces turns on the Herdr-only parts, as svc.HasWorkspaces() would.
func (m Model) withWorkspaces() Model {
	m.hasWorkspaces = true
	m.backend = "herdr"
	m.keys = DefaultKeyMap()
	m.applyKeyState()
	return m
}

// send feeds messages through Update and returns the model and the last command.
func send(t *testing.T, m Model, msgs ...tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	var cmd tea.Cmd
	for _, msg := range msgs {
		var tm tea.Model
		tm, cmd = m.Update(msg)
		m = tm.(Model)
	}
	return m, cmd
}

// loaded is a model showing l, with statuses applied.
func loaded(t *testing.T, m Model, l *core.Listing, st []core.StatusResult) Model {
	t.Helper()
	m, _ = send(t, m, listingMsg{seq: m.loadSeq, listing: l})
	if st != nil {
		m, _ = send(t, m, statusBatchMsg{seq: m.loadSeq, results: st})
	}
	return m
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// typeText presses each rune of s.
func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m, _ = send(t, m, press(string(r)))
	}
	return m
}
