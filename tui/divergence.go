package tui

import (
	"context"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// How far each worktree is from the main branch, for the detail line, read in the
// background after each load: the rows on screen first (the selected one leading), in one
// message, then the rest in another. core keeps the answers by the pair of commits, so a
// row on the main branch's commit, or one whose pair was asked before, runs no git.

type divergenceMsg struct {
	seq int
	div map[string]core.Divergence
	// rest is what is still to ask for this load, once this answer is shown.
	rest []core.Worktree
}

func divergenceCmd(ctx context.Context, svc *core.Service, seq int, mainBranch string, rows, rest []core.Worktree) tea.Cmd {
	return func() tea.Msg {
		return divergenceMsg{seq: seq, div: svc.Divergences(ctx, mainBranch, rows), rest: rest}
	}
}

// divergenceOf asks for every listed worktree but the main checkout: those on screen
// first, the selected one at their head, the others after their answer.
func (m *Model) divergenceOf() tea.Cmd {
	mb := m.mainBranch()
	if m.svc == nil || mb == "" {
		return nil
	}
	// The main checkout's row goes along unasked: it tells core the branch's commit.
	var mainRow []core.Worktree
	var first, rest []core.Worktree
	sel := m.selectedPath()
	onScreen := map[string]bool{}
	end := min(len(m.visible), m.offset+m.listHeight())
	for vi := m.offset; vi < end; vi++ {
		onScreen[m.rows[m.visible[vi]].wt.Path] = true
	}
	for _, r := range m.rows {
		switch {
		case r.wt.Main:
			if r.wt.Branch == mb {
				mainRow = append(mainRow, r.wt)
			}
		case !wantsStatus(r.wt):
		case r.wt.Path == sel:
			first = append([]core.Worktree{r.wt}, first...)
		case onScreen[r.wt.Path]:
			first = append(first, r.wt)
		default:
			rest = append(rest, r.wt)
		}
	}
	if len(first) == 0 {
		first, rest = rest, nil
	}
	if len(first) == 0 {
		return nil
	}
	if len(rest) > 0 {
		rest = append(mainRow, rest...)
	}
	return divergenceCmd(m.ctx, m.svc, m.loadSeq, mb, append(mainRow, first...), rest)
}

func (m Model) onDivergence(msg divergenceMsg) (Model, tea.Cmd) {
	if msg.seq != m.loadSeq {
		return m, nil
	}
	if m.views.divSeq != msg.seq || m.views.div == nil {
		m.views.div, m.views.divSeq = map[string]core.Divergence{}, msg.seq
	}
	for p, d := range msg.div {
		m.views.div[p] = d
	}
	m.fillDivergence()
	if len(msg.rest) == 0 || m.svc == nil {
		return m, nil
	}
	return m, divergenceCmd(m.ctx, m.svc, msg.seq, m.mainBranch(), msg.rest, nil)
}

func (m *Model) fillDivergence() {
	mb := m.mainBranch()
	for i := range m.rows {
		if d, ok := m.views.div[m.rows[i].wt.Path]; ok && mb != "" && !m.rows[i].wt.Main {
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
