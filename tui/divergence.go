package tui

import (
	"context"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// How far each worktree is from the main branch, for the detail line: one git rev-list per
// worktree, in the background after each load.

type divergenceMsg struct {
	seq int
	div map[string]core.Divergence
}

func divergenceCmd(ctx context.Context, svc *core.Service, seq int, mainBranch string, paths []string) tea.Cmd {
	return func() tea.Msg {
		return divergenceMsg{seq: seq, div: svc.Divergences(ctx, mainBranch, paths)}
	}
}

// divergenceOf asks for every listed worktree but the main checkout.
func (m *Model) divergenceOf() tea.Cmd {
	mb := m.mainBranch()
	if m.svc == nil || mb == "" {
		return nil
	}
	var paths []string
	for _, r := range m.rows {
		if !r.wt.Main && wantsStatus(r.wt) {
			paths = append(paths, r.wt.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return divergenceCmd(m.ctx, m.svc, m.loadSeq, mb, paths)
}

func (m Model) onDivergence(msg divergenceMsg) Model {
	if msg.seq != m.loadSeq {
		return m
	}
	m.views.div = msg.div
	m.fillDivergence()
	return m
}

func (m *Model) fillDivergence() {
	mb := m.mainBranch()
	for i := range m.rows {
		if d, ok := m.views.div[m.rows[i].wt.Path]; ok && mb != "" {
			m.rows[i].vsMain = &mainDivergence{branch: mb, Divergence: d}
		} else {
			m.rows[i].vsMain = nil
		}
	}
}

// mainDivergence is a row's distance from the main branch, as the detail line says it.
type mainDivergence struct {
	branch string
	core.Divergence
}

// aheadBehind is " ↑2 ↓5", " ↑2", " even" (nothing either side).
func aheadBehind(ahead, behind int) string {
	s := ""
	if ahead > 0 {
		s += " ↑" + strconv.Itoa(ahead)
	}
	if behind > 0 {
		s += " ↓" + strconv.Itoa(behind)
	}
	if s == "" {
		return " even"
	}
	return s
}
