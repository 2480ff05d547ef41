package tui

import (
	"github.com/copse-dev/copse/core"
)

// The list part of the model: rows, the fuzzy filter, the cursor and scrolling. These are
// plain methods on Model called from Update; none does I/O.

// rowSource lets fuzzy match on each row's label and path without building a []string.
type rowSource []row

func (s rowSource) String(i int) string { return s[i].filterOn }
func (s rowSource) Len() int            { return len(s) }

// setListing replaces the rows with a fresh listing, keeping known statuses of rows that
// are still there (the refresh then updates them) and the cursor on the same worktree.
// session is where this session is (core's SessionPath); when set it decides the current
// row, since after a switch in this process git's Current still marks where it started.
func (m *Model) setListing(l *core.Listing, session string) {
	old := make(map[string]*core.Status, len(m.rows))
	for _, r := range m.rows {
		if r.wt.Status != nil {
			old[r.wt.Path] = r.wt.Status
		}
	}
	keep := m.selectedPath()
	if m.selectPath != "" {
		keep = m.selectPath
		m.selectPath = ""
	}
	m.repoRoot = l.RepoRoot
	m.backend = l.Backend
	// A fresh slice, not m.rows[:0]: earlier copies of the (value) model must not see
	// their rows rewritten underneath them.
	m.rows = make([]row, 0, len(l.Worktrees))
	for _, wt := range l.Worktrees {
		if wt.Status == nil {
			wt.Status = old[wt.Path]
		}
		r := newRow(wt, m.home)
		r.pending = wt.Status == nil && wantsStatus(wt)
		if session != "" {
			r.current = wt.Path == session
		} else {
			r.current = wt.Current
		}
		m.rows = append(m.rows, r)
	}
	m.current = session
	if session == "" {
		for _, r := range m.rows {
			if r.current {
				m.current = r.wt.Path
			}
		}
	}
	m.loaded = true
	m.applyFilter()
	if keep == "" {
		keep = m.current
	}
	m.selectByPath(keep)
}

// wantsStatus: prunable worktrees have no directory and bare ones no work tree, so asking
// git about them would only produce errors.
func wantsStatus(wt core.Worktree) bool { return wt.Prunable == nil && !wt.Bare }

// statusPaths are the rows whose status the worker pool should compute.
func (m *Model) statusPaths() []string {
	var ps []string
	for _, r := range m.rows {
		if wantsStatus(r.wt) {
			ps = append(ps, r.wt.Path)
		}
	}
	return ps
}

// screen identifies which rows are on screen: the first one, how many fit, how many match.
type screen struct{ first, offset, height, n int }

func (m Model) screenKey() screen {
	k := screen{first: -1, offset: m.offset, height: m.listHeight(), n: len(m.visible)}
	if m.offset < len(m.visible) {
		k.first = m.visible[m.offset]
	}
	return k
}

// onScreenPending are the paths of the rows on screen still waiting for a status, top
// down: the status pool computes them first.
func (m Model) onScreenPending() []string {
	var ps []string
	end := min(len(m.visible), m.offset+m.listHeight())
	for vi := m.offset; vi < end; vi++ {
		if r := m.rows[m.visible[vi]]; r.pending {
			ps = append(ps, r.wt.Path)
		}
	}
	return ps
}

// applyStatuses fills rows from a batch. Results for paths no longer listed are dropped.
func (m *Model) applyStatuses(rs []core.StatusResult) {
	if len(rs) == 0 {
		return
	}
	idx := make(map[string]int, len(m.rows))
	for i, r := range m.rows {
		idx[r.wt.Path] = i
	}
	for _, res := range rs {
		i, ok := idx[res.Path]
		if !ok {
			continue
		}
		s := res.Status
		m.rows[i].wt.Status = &s
		m.rows[i].pending = false
	}
	m.measure()
}

// applyPendingStatuses fills, from the status cache's answer, only rows still waiting: a
// row the pool has already read keeps git's newer answer.
func (m *Model) applyPendingStatuses(rs []core.StatusResult) {
	pending := make(map[string]bool, len(m.rows))
	for _, r := range m.rows {
		if r.pending {
			pending[r.wt.Path] = true
		}
	}
	var keep []core.StatusResult
	for _, r := range rs {
		if pending[r.Path] {
			keep = append(keep, r)
		}
	}
	m.applyStatuses(keep)
}

// applyProcesses sets each row's process count (its "N proc" marker). Unknown counts
// (nil) leave the rows without one.
func (m *Model) applyProcesses(counts map[string]int) {
	if counts == nil {
		return
	}
	for i := range m.rows {
		if n, ok := counts[m.rows[i].wt.Path]; ok {
			m.rows[i].wt.Processes = &n
		}
	}
	m.measure()
}

// applyAgents sets what works in each row (a "needs you" marker when an agent waits for
// a person); sorted by needs-you, the order follows.
func (m *Model) applyAgents(agents map[string][]core.Agent) {
	for i := range m.rows {
		m.rows[i].wt.Agents = agents[m.rows[i].wt.Path]
	}
	if m.sortOrder() == core.SortNeedsYou {
		m.resort()
	}
	m.measure()
}

// finishStatuses marks rows whose status never came (pool cancelled or failed) as not
// pending, so they stop showing "…".
func (m *Model) finishStatuses() {
	for i := range m.rows {
		m.rows[i].pending = false
	}
}

// applyFilter recomputes the visible rows from the filter text: all rows in listing order
// when empty, else fuzzy matches on branch and path, best first.
func (m *Model) applyFilter() {
	q := m.filter.Value()
	m.visible = make([]int, 0, len(m.rows))
	for i := range m.rows {
		m.rows[i].hl = nil
	}
	if q == "" {
		m.visible = m.sortedOrder()
	} else {
		for _, mt := range filterRows(m.rows, q) {
			m.visible = append(m.visible, mt.index)
			m.rows[mt.index].hl = mt.hl
		}
	}
	m.measure()
	m.clampCursor()
}

// measure records the widest branch, badge set and tag set of the visible rows, so View
// only lays out and draws the rows on screen (a thousand rows cost no more than twenty).
func (m *Model) measure() {
	m.maxBranch, m.maxPath, m.maxBadges, m.maxTags = 0, 0, 0, 0
	for _, i := range m.visible {
		r := &m.rows[i]
		m.maxBranch = max(m.maxBranch, r.labelW)
		m.maxPath = max(m.maxPath, r.pathW)
		m.maxBadges = max(m.maxBadges, segsWidth(badges(*r, &m.styles)))
		m.maxTags = max(m.maxTags, segsWidth(tags(*r, &m.styles)))
	}
}

func (m Model) selected() (row, bool) {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return row{}, false
	}
	return m.rows[m.visible[m.cursor]], true
}

func (m Model) selectedPath() string {
	if r, ok := m.selected(); ok {
		return r.wt.Path
	}
	return ""
}

func (m *Model) selectByPath(p string) {
	for vi, i := range m.visible {
		if m.rows[i].wt.Path == p {
			m.cursor = vi
			m.clampCursor()
			return
		}
	}
	m.clampCursor()
}

// nextNeedsYou moves the cursor to the next visible row (after the cursor, cycling) whose
// agent waits for its person; the status line says so when none does.
func (m *Model) nextNeedsYou() {
	n := len(m.visible)
	for step := 1; step <= n; step++ {
		vi := (m.cursor + step) % n
		if m.rows[m.visible[vi]].wt.NeedsYou() {
			m.cursor = vi
			m.clampCursor()
			return
		}
	}
	m.status = infoStatus("no agent needs you")
}

func (m *Model) moveCursor(delta int) {
	m.cursor += delta
	m.clampCursor()
}

// clampCursor keeps the cursor on a row and the row on screen.
func (m *Model) clampCursor() {
	n := len(m.visible)
	m.cursor = max(0, min(m.cursor, n-1))
	h := m.listHeight()
	if h <= 0 {
		m.offset = 0
		return
	}
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = max(0, min(m.offset, n-h))
}

// scroll moves the viewport (mouse wheel) and drags the cursor along when it would leave.
func (m *Model) scroll(delta int) {
	h := m.listHeight()
	n := len(m.visible)
	m.offset = max(0, min(m.offset+delta, n-h))
	if m.cursor < m.offset {
		m.cursor = m.offset
	}
	if h > 0 && m.cursor >= m.offset+h {
		m.cursor = m.offset + h - 1
	}
	m.cursor = max(0, min(m.cursor, n-1))
}

// rowAt maps a screen line to a visible row index (mouse clicks), or -1.
func (m Model) rowAt(y int) int {
	i := y - m.listTop()
	if i < 0 || i >= m.listHeight() {
		return -1
	}
	i += m.offset
	if i >= len(m.visible) {
		return -1
	}
	return i
}

// onlyMain is the empty state: nothing but the main checkout.
func (m Model) onlyMain() bool {
	if !m.loaded || len(m.rows) == 0 {
		return false
	}
	for _, r := range m.rows {
		if !r.wt.Main {
			return false
		}
	}
	return true
}

// detailLine describes the selected row in one line, cut to the width.
func (m Model) detailLine(c columns) string {
	r, ok := m.selected()
	if !ok {
		return ""
	}
	parts := detailParts(r, c.narrow)
	if len(parts) == 0 {
		return ""
	}
	w := m.w()
	if c.narrow {
		// The path is the most useful part: it goes first, shortened in the middle so its
		// leaf stays visible; the rest is cut at the end of the line.
		parts[0] = pathCut(parts[0], w-2)
	}
	line := "  "
	for i, p := range parts {
		if i > 0 {
			line += " · "
		}
		line += p
	}
	return m.styles.Detail.Render(cut(line, w))
}
