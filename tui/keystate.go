package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyRule is one binding whose use depends on the picker's state, and why it cannot work
// now ("" when it can).
type keyRule struct {
	b   *key.Binding
	why string
	// silent: pressing the key while it cannot work says nothing, and typing it filters
	// (o without a workspace backend, F without an offer, - in copse pick).
	silent bool
}

// stateKeys is the one place that decides which list keys can work in the current state:
// the backend, pick mode, the session's history, the selected row and the refusal on
// screen. A key that cannot work is disabled, so the help bar leaves it out (bubbles/help
// skips disabled bindings) and it matches nothing.
func (m *Model) stateKeys() []keyRule {
	k := &m.keys
	r, ok := m.selected()
	isMain := ok && (r.wt.Main || r.wt.Bare)
	why := func(cond bool, reason string) string {
		if cond {
			return reason
		}
		return ""
	}
	back := keyRule{b: &k.Back, why: why(!m.hasPrevious, "no previous worktree to go back to: - returns to the worktree you last switched away from")}
	if m.opts.Pick {
		// Back switches the shell; a picker that only reports a choice has nothing to go back to.
		back = keyRule{b: &k.Back, why: "pick", silent: true}
	}
	release := why(ok && r.wt.Locked == nil, "this worktree is neither claimed nor locked: there is nothing for C to release")
	if isMain {
		release = "the main checkout is never claimed; C releases a linked worktree's claim"
	}
	return []keyRule{
		{b: &k.Open, why: why(!m.hasWorkspaces, "workspaces"), silent: true},
		back,
		{b: &k.Remove, why: why(isMain, "the main checkout holds the repository and is never removed; d removes linked worktrees")},
		{b: &k.ForceRemove, why: why(isMain, "the main checkout holds the repository and is never removed; D removes linked worktrees")},
		{b: &k.Claim, why: why(isMain, "the main checkout cannot be claimed; c claims linked worktrees")},
		{b: &k.Release, why: release},
		{b: &k.Land, why: why(isMain || (ok && r.wt.Detached), "L lands a linked worktree with a branch checked out; this one is the main checkout or detached")},
		{b: &k.Force, why: why(m.status.offer == nil, "no offer"), silent: true},
	}
}

// applyKeyState enables exactly the bindings stateKeys allows. Update calls it after every
// message, so matching and the help bar always see the state on screen.
func (m *Model) applyKeyState() {
	if m.opts.Pick {
		m.keys.Switch.SetHelp("enter", "select")
	}
	for _, r := range m.stateKeys() {
		r.b.SetEnabled(r.why == "")
	}
}

// unavailable says why k, a list key disabled in this state, cannot work, so pressing it
// explains instead of typing into the filter; silent rules say nothing.
func (m Model) unavailable(k tea.KeyPressMsg) (string, bool) {
	for _, r := range m.stateKeys() {
		if r.why == "" || r.silent {
			continue
		}
		for _, s := range r.b.Keys() {
			if s == k.String() {
				return r.why, true
			}
		}
	}
	return "", false
}
