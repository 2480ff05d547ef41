package tui

import (
	"context"
	"sort"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// Sorting: the main checkout first, then by branch name (the default), by most recent
// activity (the last commit's time), by path, or the worktrees whose agent needs you
// first (then by name). s cycles; the header shows the choice,
// and git config copse.sort remembers it (read and written by core, in tea.Cmds).

// sortOrder is the effective order ("" before git config has been read: by name).
func (m Model) sortOrder() string {
	if m.views.sort == "" {
		return core.SortName
	}
	return m.views.sort
}

func nextSort(s string) string {
	for i, o := range core.SortOrders {
		if o == s {
			return core.SortOrders[(i+1)%len(core.SortOrders)]
		}
	}
	return core.SortOrders[0]
}

// sortLabel is what the header says.
func sortLabel(s string) string {
	switch s {
	case core.SortRecent:
		return "by recent"
	case core.SortPath:
		return "by path"
	case core.SortNeedsYou:
		return "needs you first"
	}
	return "by name"
}

// sortedOrder is every row index in the chosen order. Detached and bare rows (no branch
// name) follow the branches when sorting by name; rows without a known commit time
// follow the others when sorting by activity. Ties keep git's order.
func (m Model) sortedOrder() []int {
	idx := make([]int, len(m.rows))
	for i := range idx {
		idx[i] = i
	}
	order := m.sortOrder()
	less := func(a, b row) bool {
		switch order {
		case core.SortRecent:
			ta, tb := a.last, b.last
			switch {
			case ta == nil || tb == nil:
				return ta != nil && tb == nil
			case !ta.When.Equal(tb.When):
				return ta.When.After(tb.When)
			}
			return false
		case core.SortPath:
			return rowmarks.NaturalCompare(a.wt.Path, b.wt.Path) < 0
		case core.SortNeedsYou:
			if na, nb := a.wt.NeedsYou(), b.wt.NeedsYou(); na != nb {
				return na
			}
		}
		// A branch being rebased or bisected is listed detached but still shows its name.
		na, nb := a.wt.Branch != "" && !a.wt.Bare, b.wt.Branch != "" && !b.wt.Bare
		if na != nb {
			return na
		}
		return rowmarks.CompareLabels(a.label, b.label) < 0 // as copse list orders them
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := m.rows[idx[i]], m.rows[idx[j]]
		if a.wt.Main != b.wt.Main {
			return a.wt.Main
		}
		return less(a, b)
	})
	return idx
}

// resort applies the order with the cursor kept on the same worktree.
func (m *Model) resort() {
	keep := m.selectedPath()
	m.applyFilter()
	m.selectByPath(keep)
}

// sortReadMsg is git config copse.sort, read once when the first list arrives.
type sortReadMsg struct{ order string }

func readSortCmd(ctx context.Context, svc *core.Service) tea.Cmd {
	return func() tea.Msg { return sortReadMsg{order: svc.SortOrder(ctx)} }
}

// sortSavedMsg says whether remembering the order worked.
type sortSavedMsg struct{ err error }

func saveSortCmd(ctx context.Context, svc *core.Service, order string) tea.Cmd {
	return func() tea.Msg { return sortSavedMsg{err: svc.SetSortOrder(ctx, order)} }
}

// cycleSort is s: the next order, applied at once and remembered in the background.
func (m Model) cycleSort() (Model, tea.Cmd) {
	m.views.sort = nextSort(m.sortOrder())
	m.resort()
	m.status = infoStatus("sorted " + sortLabel(m.views.sort))
	if m.views.sort == core.SortRecent && m.views.commits == nil {
		m.status.msg += " (reading the last commits…)"
	}
	return m, m.saveSort()
}

// saveSort writes the order unless a write is under way: two git config writes at once
// would fight over .git/config.lock. onSortSaved writes again if s was pressed meanwhile.
func (m *Model) saveSort() tea.Cmd {
	if m.svc == nil || m.views.sortSaving != "" {
		return nil
	}
	m.views.sortSaving = m.views.sort
	return saveSortCmd(m.ctx, m.svc, m.views.sort)
}

func (m Model) onSortSaved(msg sortSavedMsg) (Model, tea.Cmd) {
	saved := m.views.sortSaving
	m.views.sortSaving = ""
	if msg.err != nil {
		m.status.addWarnings([]string{"could not remember the sort order: " + core.AsError(msg.err).Message})
		return m, nil
	}
	if saved != m.views.sort {
		return m, m.saveSort()
	}
	return m, nil
}
