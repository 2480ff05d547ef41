package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// Refresh without r: the list is re-read when the terminal reports focus (the user comes
// back from another window), and when git's worktree admin directory changes while the
// picker is open (another shell or an agent added, removed or locked a worktree). The
// check is core.WorktreesStamp, a few stat calls every watchInterval, run in a tea.Cmd.
// A reload keeps the cursor on the same worktree (setListing). With workspaces, each tick
// also re-reads what the agents do (onWatchTick).

// watchInterval is how often the stamp is compared; git is not run for it.
const watchInterval = 2 * time.Second

// stampMsg is the stamp read by stampCmd; first marks the baseline read at start.
type stampMsg struct {
	stamp string
	err   error
}

// watchTickMsg asks for the next stamp.
type watchTickMsg struct{}

func stampCmd(ctx context.Context, svc *core.Service) tea.Cmd {
	return func() tea.Msg {
		s, err := svc.WorktreesStamp(ctx)
		return stampMsg{stamp: s, err: err}
	}
}

func watchTickCmd() tea.Cmd {
	return tea.Tick(watchInterval, func(time.Time) tea.Msg { return watchTickMsg{} })
}

// startWatch reads the baseline stamp once; each answer schedules the next check.
func (m *Model) startWatch() tea.Cmd {
	if m.views.watching || m.svc == nil {
		return nil
	}
	m.views.watching = true
	return stampCmd(m.ctx, m.svc)
}

func (m Model) onStamp(msg stampMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		return m, watchTickCmd() // try again later; r still works
	}
	changed := m.views.stamp != "" && msg.stamp != m.views.stamp
	m.views.stamp = msg.stamp
	if changed && m.op == nil {
		return m, tea.Batch(m.reload(), watchTickCmd())
	}
	return m, watchTickCmd()
}

func (m Model) onWatchTick() (Model, tea.Cmd) {
	if m.svc == nil || m.quitting {
		return m, nil
	}
	if m.loaded && m.svc.HasWorkspaces() {
		// Agents change state without anything in git changing: with workspaces (Herdr,
		// tmux), what runs there is read again on every tick, so "needs you" appears
		// without a keypress.
		wts := make([]core.Worktree, len(m.rows))
		for i, r := range m.rows {
			wts[i] = r.wt
		}
		return m, tea.Batch(stampCmd(m.ctx, m.svc), agentsCmd(m.ctx, m.svc, m.loadSeq, wts))
	}
	return m, stampCmd(m.ctx, m.svc)
}

// onFocus re-reads the list when the terminal window gets focus back (View asks the
// terminal to report focus). Not while an operation runs: its outcome reloads anyway.
func (m Model) onFocus() (Model, tea.Cmd) {
	if !m.loaded || m.op != nil {
		return m, nil
	}
	return m, m.reload()
}
