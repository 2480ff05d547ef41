package tui

import (
	"os/exec"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/internal/textsafe"
)

// e opens $VISUAL/$EDITOR in the selected worktree and ! opens $SHELL there. core builds
// the command; Bubble Tea runs it with the terminal handed over (tea.ExecProcess), and the
// picker comes back when it ends, re-reading the list since the user may have changed
// anything. y copies the path with OSC 52, which works over ssh and inside tmux.

// execDoneMsg is the end of an editor or shell the picker handed the terminal to.
type execDoneMsg struct {
	what string // "editor" or "shell"
	err  error
}

func execCmd(c *exec.Cmd, what string) tea.Cmd {
	return tea.ExecProcess(c, func(err error) tea.Msg { return execDoneMsg{what: what, err: err} })
}

func (m Model) onExecDone(msg execDoneMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		m.status = statusLine{kind: statusError, msg: msg.what + " ended with an error: " + oneLine(textsafe.Escape(msg.err.Error()))}
	} else {
		m.status = infoStatus("back from the " + msg.what)
	}
	m.clampCursor()
	return m, m.reload()
}

// openIn starts the editor or the shell in the row's worktree.
func (m Model) openIn(r row, what string) (Model, tea.Cmd) {
	if r.wt.Prunable != nil || r.wt.Bare {
		m.status = statusLine{kind: statusError, msg: "cannot open a " + what + " in " + r.path, hint: "it has no working directory"}
		return m, nil
	}
	if m.svc == nil {
		return m, nil
	}
	var c *exec.Cmd
	if what == "editor" {
		var err error
		if c, err = m.svc.EditorCommand(r.wt.Path); err != nil {
			m.status = errorStatus(err)
			return m, nil
		}
	} else {
		c = m.svc.ShellCommand(r.wt.Path)
	}
	return m, execCmd(c, what)
}

// copyPath puts the row's path on the clipboard (OSC 52) and says so.
func (m Model) copyPath(r row) (Model, tea.Cmd) {
	m.status = infoStatus("copied " + r.path + " to the clipboard (OSC 52)")
	m.clampCursor()
	return m, tea.SetClipboard(r.wt.Path)
}
