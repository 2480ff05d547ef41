package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// onKey routes a key by what has focus. Any key clears the status line: an error stays
// until the user has seen it and acts.
func (m Model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	offer := m.status.offer // F answers the refusal on screen, and only that one key
	m.status = statusLine{}
	if m.op != nil {
		// While core works only cancellation and list movement get through: ctrl+c
		// cancels the operation's context, not the picker; a second one ends the picker.
		if key.Matches(k, m.keys.CancelOp) {
			if m.op.cancelling {
				return m.interrupt()
			}
			m.op.cancelling = true
			m.op.cancel()
			return m, nil
		}
		if m.mode == modeList {
			m.navigate(k)
		}
		return m, nil
	}
	if mm, cmd, ok := m.panelKey(k); ok {
		return mm, cmd
	}
	switch m.mode {
	case modeConfirm:
		return m.confirmKey(k)
	case modeForm:
		return m.formKey(k)
	case modeLand:
		return m.landKey(k)
	case modeFilter:
		return m.filterKey(k)
	case modeSession:
		return m.sessionKey(k)
	}
	if offer != nil && key.Matches(k, m.keys.Force) {
		return m.startOp(offer.kind, offer.label, offer.req, opOptions{})
	}
	return m.listKey(k)
}

// navigate handles list movement; it reports whether k was one.
func (m *Model) navigate(k tea.KeyPressMsg) bool {
	ks := m.keys
	switch {
	case key.Matches(k, ks.Up):
		m.moveCursor(-1)
	case key.Matches(k, ks.Down):
		m.moveCursor(1)
	case key.Matches(k, ks.PageUp):
		m.moveCursor(-max(1, m.listHeight()))
	case key.Matches(k, ks.PageDown):
		m.moveCursor(max(1, m.listHeight()))
	case key.Matches(k, ks.Home):
		m.cursor = 0
		m.clampCursor()
	case key.Matches(k, ks.End):
		m.cursor = len(m.visible) - 1
		m.clampCursor()
	default:
		return false
	}
	return true
}

func (m Model) listKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	if m.navigate(k) {
		return m, nil
	}
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.Quit):
		if k.String() == "esc" {
			// esc closes the innermost thing open: the full help, then an applied filter;
			// only in the plain list does it quit.
			switch m.listEsc() {
			case escCloseHelp:
				m.showHelp = false
				m.help.ShowAll = false
				m.clampCursor()
				return m, nil
			case escClearFilter:
				m.clearFilter()
				return m, nil
			}
		}
		return m.quit()
	case key.Matches(k, ks.Help):
		m.showHelp = !m.showHelp
		m.help.ShowAll = m.showHelp
		m.clampCursor()
		return m, nil
	case key.Matches(k, ks.Filter):
		m.mode = modeFilter
		m.clampCursor()
		return m, m.filter.Focus()
	case key.Matches(k, ks.Refresh):
		m.status = statusLine{kind: statusInfo, msg: "refreshing…", untilLoad: true}
		return m, m.reload()
	case key.Matches(k, ks.Switch):
		return m.choose()
	case key.Matches(k, ks.New):
		m.mode = modeForm
		m.form = newForm(m.hasWorkspaces, m.runsCommands, &m.styles, m.w())
		m.form.pick = m.opts.Pick
		if m.svc == nil {
			return m, nil
		}
		return m, tea.Batch(loadBranchesCmd(m.ctx, m.svc), formInfoCmd(m.ctx, m.svc))
	case key.Matches(k, ks.Back):
		return m.startOp(core.OpBack, "going back", core.BackRequest{}, opOptions{})
	case key.Matches(k, ks.Prune):
		return m.startOp(core.OpPrune, "checking what to prune", core.PruneRequest{}, opOptions{})
	}
	if mm, cmd, ok := m.listKeyView(k); ok {
		return mm, cmd
	}
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	path := core.Str(r.wt.Path)
	switch {
	case key.Matches(k, ks.Open):
		return m.startOp(core.OpOpen, "opening "+r.label, core.OpenRequest{Path: path}, opOptions{})
	case key.Matches(k, ks.Remove):
		return m.startOp(core.OpRemove, "removing "+r.label, core.RemoveRequest{Path: path}, opOptions{path: tildePath(r.wt.Path, m.home), branch: r.wt.Branch})
	case key.Matches(k, ks.Claim):
		return m.startOp(core.OpClaim, "claiming "+r.label, core.ClaimRequest{Path: path, Session: m.sessionArg()}, opOptions{})
	case key.Matches(k, ks.Release):
		return m.startOp(core.OpRelease, "releasing "+r.label, core.ReleaseRequest{Path: path, Session: m.sessionArg()}, opOptions{})
	case key.Matches(k, ks.Land):
		return m.openLandForm()
	case key.Matches(k, ks.ForceRemove):
		return m.startOp(core.OpRemove, "force-removing "+r.label, core.RemoveRequest{Path: path, Force: true},
			opOptions{force: true, path: tildePath(r.wt.Path, m.home), branch: r.wt.Branch})
	}
	if why, ok := m.unavailable(k); ok {
		m.status = infoStatus(why)
		m.clampCursor()
		return m, nil
	}
	if mm, cmd, ok := m.typeIntoFilter(k); ok {
		return mm, cmd
	}
	return m, nil
}

// choose acts on the selected row: in pick mode it is the answer; otherwise core switches
// to it (under Herdr that focuses its workspace) and the picker ends with the outcome.
func (m Model) choose() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	if m.opts.Pick {
		wt := r.wt
		m.result.Selected = &wt
		return m.quit()
	}
	return m.startOp(core.OpSwitch, "switching to "+r.label, core.SwitchRequest{Path: core.Str(r.wt.Path)}, opOptions{})
}

func (m Model) filterKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.FilterClear):
		if m.opts.Pick {
			// As in fzf: typing is the picker; esc clears what is typed, then quits.
			if m.filter.Value() == "" {
				return m.quit()
			}
			m.clearFilter()
			return m, nil
		}
		m.filter.Blur()
		m.mode = modeList
		m.clearFilter()
		return m, nil
	case key.Matches(k, ks.FilterUp):
		m.moveCursor(-1)
		return m, nil
	case key.Matches(k, ks.FilterDown):
		m.moveCursor(1)
		return m, nil
	case key.Matches(k, ks.FilterAccept):
		// Typing is done; the matches stay listed so the list keys act on them.
		m.filter.Blur()
		m.mode = modeList
		return m, nil
	case key.Matches(k, ks.Switch):
		// enter chooses the best match right away, as in fzf; the filter stays applied.
		m.filter.Blur()
		m.mode = modeList
		return m.choose()
	}
	return m.typeFilter(k)
}

// clearFilter lists every row again, the cursor staying on the row it was on, so a filter
// can be used to find a worktree and then see it among the others.
func (m *Model) clearFilter() {
	keep := m.selectedPath()
	m.filter.SetValue("")
	m.applyFilter()
	m.selectByPath(keep)
}

// typeFilter feeds a key or paste to the filter input and refilters when the text changed;
// the cursor goes to the best match.
func (m Model) typeFilter(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.filter.Value()
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	if m.filter.Value() != before {
		m.cursor = 0
		m.offset = 0
		m.applyFilter()
	}
	return m, cmd
}

func (m Model) formKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.CancelForm):
		m.mode = modeList
		return m, nil
	case key.Matches(k, ks.Submit):
		req := m.form.request()
		if req.Branch == "" {
			m.form.errs[fieldBranch] = "a branch name is required"
			return m, nil
		}
		if m.form.info.setupErr != nil && m.form.runSetup {
			// As the CLI does: a broken setting is reported before anything changes.
			m.form.fieldError(onSetupField(m.form.info.setupErr))
			return m, nil
		}
		return m.startOp(core.OpCreate, "creating "+textsafe.Escape(req.Branch), req, opOptions{})
	}
	baseSeq := m.form.baseSeq
	cmd, changed := m.form.update(k, ks)
	return m, m.formChecks(cmd, changed, baseSeq)
}

// formChecks schedules the debounced checks an edit of the form asks for: of the branch
// when it changed, of the base when it changed to something.
func (m Model) formChecks(cmd tea.Cmd, branchChanged bool, baseSeq int) tea.Cmd {
	cmds := []tea.Cmd{cmd}
	if branchChanged {
		cmds = append(cmds, branchTickCmd(m.form.checkSeq))
	}
	if m.form.baseSeq != baseSeq && m.form.value(fieldBase) != "" {
		cmds = append(cmds, baseTickCmd(m.form.baseSeq))
	}
	return tea.Batch(cmds...)
}

func (m Model) confirmKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	c := m.confirm
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.Yes):
		if c.step < c.steps {
			c.step++
			return m, nil
		}
		m.confirm = nil
		m.mode = c.returnTo
		return m.startExecute(c)
	case key.Matches(k, ks.DeleteBranch) && c.canToggleBranch():
		return m.toggleDeleteBranch(c)
	case key.Matches(k, ks.No):
		m.confirm = nil
		m.mode = c.returnTo
		m.status = infoStatus("cancelled: nothing changed")
		return m, nil
	}
	return m, nil
}

func (m Model) onPaste(p tea.PasteMsg) (tea.Model, tea.Cmd) {
	if m.op != nil {
		return m, nil
	}
	switch m.mode {
	case modeFilter:
		return m.typeFilter(p)
	case modeForm:
		baseSeq := m.form.baseSeq
		cmd, changed := m.form.update(p, m.keys)
		return m, m.formChecks(cmd, changed, baseSeq)
	case modeSession:
		var cmd tea.Cmd
		m.sessionAsk.input, cmd = m.sessionAsk.input.Update(p)
		return m, cmd
	}
	return m, nil
}

// wheelStep is how many rows one wheel notch scrolls.
const wheelStep = 3

func (m Model) onWheel(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	if m.mode != modeList && m.mode != modeFilter {
		return m, nil
	}
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		m.scroll(-wheelStep)
	case tea.MouseWheelDown:
		m.scroll(wheelStep)
	}
	return m, nil
}

// onClick selects the clicked row; it never acts on it (enter does that).
func (m Model) onClick(msg tea.MouseClickMsg) (tea.Model, tea.Cmd) {
	mo := msg.Mouse()
	if (m.mode != modeList && m.mode != modeFilter) || mo.Button != tea.MouseLeft {
		return m, nil
	}
	if i := m.rowAt(mo.Y); i >= 0 {
		m.cursor = i
		m.clampCursor()
	}
	return m, nil
}
