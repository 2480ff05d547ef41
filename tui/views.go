package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// The picker's views beyond the bare list: the panels over the body (the setup log, the
// preview), the order of the rows (sorting), what rows show beside git's status (last
// commits, divergence from the main branch), opening a worktree in an editor or shell, and
// refreshing on focus and on change. They keep their state in one field of the model
// (views) and route their messages, keys and screens through the hooks below, so the root
// model's own switch statements stay small.

// Screens that are not one of the root modes: a panel over the body.
const (
	modeSetup   mode = iota + 100 // the setup log after a create
	modePreview                   // the selected worktree's changes, commits and diffstat
)

// views is the state of those views.
type views struct {
	setup      *setupState
	sort       string                 // core.SortName, SortRecent or SortPath
	commits    map[string]core.Commit // last commit by head object id
	stamp      string                 // core.WorktreesStamp when last seen
	sortRead   bool                   // git config copse.sort has been asked for
	watching   bool                   // the worktree-change watch runs
	sortSaving string                 // the order being written to git config; "" when none
	preview    *previewState
	previewSeq int
	div        map[string]core.Divergence // ahead/behind the main branch, by path
	divSeq     int                        // the load div answers
}

// onViewMsg handles the messages of these views; ok is false for any other message.
func (m Model) onViewMsg(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case formInfoMsg:
		if m.mode == modeForm {
			m.form.applyInfo(msg, m.home)
		}
		return m, nil, true
	case defaultPathMsg:
		if m.mode == modeForm && msg.seq == m.form.checkSeq {
			m.form.setDefaultPath(msg.path, m.home)
		}
		return m, nil, true
	case setupLogMsg:
		mm, cmd := m.onSetupLog(msg)
		return mm, cmd, true
	case commitsMsg:
		return m.onCommits(msg), nil, true
	case sortReadMsg:
		if m.views.sort == "" { // s pressed before the read came back: the key wins
			m.views.sort = msg.order
			m.resort()
		}
		return m, nil, true
	case sortSavedMsg:
		mm, cmd := m.onSortSaved(msg)
		return mm, cmd, true
	case stampMsg:
		mm, cmd := m.onStamp(msg)
		return mm, cmd, true
	case watchTickMsg:
		mm, cmd := m.onWatchTick()
		return mm, cmd, true
	case tea.FocusMsg:
		mm, cmd := m.onFocus()
		return mm, cmd, true
	case previewMsg:
		return m.onPreview(msg), nil, true
	case divergenceMsg:
		mm, cmd := m.onDivergence(msg)
		return mm, cmd, true
	case execDoneMsg:
		mm, cmd := m.onExecDone(msg)
		return mm, cmd, true
	}
	return m, nil, false
}

// panelKey handles keys of the panels; ok is false when the key is not theirs.
func (m Model) panelKey(k tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	switch m.mode {
	case modeSetup:
		mm, cmd := m.setupKey(k)
		return mm, cmd, true
	case modePreview:
		mm, cmd := m.previewKey(k)
		return mm, cmd, true
	}
	return m, nil, false
}

// panelBody draws a panel's body; ok is false in the root modes.
func (m Model) panelBody(w, h int) ([]string, bool) {
	switch m.mode {
	case modeSetup:
		if m.views.setup != nil {
			return m.views.setup.view(&m.styles, w, h), true
		}
	case modePreview:
		if m.views.preview != nil {
			return m.views.preview.view(&m.styles, w, h), true
		}
	}
	return nil, false
}

// panelHelp is the help of a panel; ok is false in the root modes.
func (m Model) panelHelp() (helpKeys, bool) {
	k := m.keys
	switch m.mode {
	case modeSetup:
		b := []key.Binding{k.ClosePanel, k.ScrollUp, k.ScrollDown}
		if m.views.setup != nil && m.views.setup.running {
			b = []key.Binding{k.CancelOp, k.ScrollUp, k.ScrollDown}
		}
		return helpKeys{short: b, full: [][]key.Binding{b}}, true
	case modePreview:
		b := []key.Binding{k.ClosePanel, k.ScrollUp, k.ScrollDown}
		return helpKeys{short: b, full: [][]key.Binding{b}}, true
	}
	return helpKeys{}, false
}

// listKeyView handles the list keys these views bind (s, p, e, !, y). ok is false
// for any other key.
func (m Model) listKeyView(k tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	ks := m.keys
	if key.Matches(k, ks.Sort) {
		mm, cmd := m.cycleSort()
		return mm, cmd, true
	}
	if key.Matches(k, ks.NextNeedsYou) {
		m.nextNeedsYou()
		return m, nil, true
	}
	r, ok := m.selected()
	if !ok {
		return m, nil, false
	}
	var cmd tea.Cmd
	switch {
	case key.Matches(k, ks.Edit):
		m, cmd = m.openIn(r, "editor")
	case key.Matches(k, ks.Shell):
		m, cmd = m.openIn(r, "shell")
	case key.Matches(k, ks.Copy):
		m, cmd = m.copyPath(r)
	case key.Matches(k, ks.Preview):
		m, cmd = m.openPreview(r)
	default:
		return m, nil, false
	}
	return m, cmd, true
}
