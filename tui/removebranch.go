package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// The remove dialog's "delete the branch too" toggle (b). Toggling asks core to prepare
// the removal again with DeleteBranch, so the dialog shows core's own confirmation of it
// ("delete branch  X at abc: N commits only on it") and the state token covers it.

// removeReq is the dialog's request when it is a removal of a branch's worktree.
func (c *confirmState) removeReq() (core.RemoveRequest, bool) {
	r, ok := c.req.(core.RemoveRequest)
	return r, ok && c.kind == core.OpRemove && c.branch != ""
}

func (c *confirmState) canToggleBranch() bool {
	_, ok := c.removeReq()
	return ok && c.step == 1
}

// toggleDeleteBranch closes the dialog and prepares the removal again with the toggle
// flipped; the new plan opens the new dialog, a refusal reopens this one with the reason.
func (m Model) toggleDeleteBranch(c *confirmState) (tea.Model, tea.Cmd) {
	req, _ := c.removeReq()
	req.DeleteBranch = !req.DeleteBranch
	m.confirm = nil
	m.mode = c.returnTo
	c.note = ""
	return m.startOp(core.OpRemove, c.label, req, opOptions{force: c.force, path: c.path, branch: c.branch, fallback: c})
}

// reopenDialog shows the dialog a toggle replaced, saying why the toggle did not apply.
func (m Model) reopenDialog(c *confirmState, err error) Model {
	e := core.AsError(err)
	c.note = "cannot delete the branch too: " + oneLine(e.Message)
	if e.ForceHelps && !c.force {
		c.note += " — press D on the row to force-remove with the branch"
	} else if e.Hint != "" {
		c.note += " — " + oneLine(e.Hint)
	}
	m.confirm = c
	m.mode = modeConfirm
	return m
}

// branchToggle is the toggle's line in the dialog (none for detached worktrees and on the
// second question of a force removal).
func (c *confirmState) branchToggle(st *Styles, inner int) []string {
	req, ok := c.removeReq()
	if !ok || c.step > 1 {
		return nil
	}
	box := "[ ]"
	if req.DeleteBranch {
		box = "[x]"
	}
	lines := []string{st.DialogKeys.Render(cut(box+" b  delete the branch "+textsafe.Escape(c.branch)+" too", inner))}
	if c.note != "" {
		for _, l := range wrapLines("! ", c.note, inner, maxNoteLines) {
			lines = append(lines, st.DialogWarn.Render(l))
		}
	}
	return lines
}
