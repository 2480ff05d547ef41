package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/internal/textsafe"
)

// View draws the whole screen: header, optional filter line, the body for the mode (list,
// form or dialog), then the footer (detail line, status line, help). Every line is cut to
// the width and the frame is exactly the terminal's height, so nothing wraps or scrolls.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true // focus regained: the list is re-read (watch.go)
	v.WindowTitle = "copse"
	if m.repoRoot != "" {
		v.WindowTitle = "copse — " + textsafe.Escape(filepath.Base(m.repoRoot))
	}
	return v
}

func (m Model) render() string {
	if m.quitting {
		return ""
	}
	w, h := m.w(), m.h()
	lines := make([]string, 0, h)
	lines = append(lines, m.headerLine())
	if m.filterShown() {
		lines = append(lines, m.filterLine())
	}
	footer := m.footer()
	bodyH := max(0, h-len(lines)-len(footer))

	body, panel := m.panelBody(w, bodyH)
	switch {
	case panel:
	case m.mode == modeForm:
		body = fitWidth(m.form.view(&m.styles, w), w)
	case m.mode == modeLand:
		body = fitWidth(m.landForm.view(&m.styles, w), w)
	case m.mode == modeSession && m.sessionAsk != nil:
		body = fitWidth(m.sessionAsk.view(&m.styles, w), w)
	case m.mode == modeConfirm:
		body = fitWidth(centerBlock(m.confirm.view(&m.styles, w, bodyH), w), w)
	default:
		body = m.listBody(bodyH) // rows are drawn to the exact width already
	}
	if len(body) > bodyH {
		body = body[:bodyH]
	}
	fitWidth(lines, w)
	lines = append(lines, body...)
	for i := len(body); i < bodyH; i++ {
		lines = append(lines, "")
	}
	lines = append(lines, fitWidth(footer, w)...)
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// fitWidth cuts any line wider than w, so a long value can never wrap and push the frame
// off the screen.
func fitWidth(lines []string, w int) []string {
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return lines
}

func (m Model) headerLine() string {
	st := &m.styles
	s := st.Header.Render("copse")
	if m.repoRoot != "" {
		s += " " + st.Repo.Render(textsafe.Escape(filepath.Base(m.repoRoot)))
	}
	var meta []string
	if m.loaded {
		n := len(m.rows)
		word := " worktrees"
		if n == 1 {
			word = " worktree"
		}
		meta = append(meta, strconv.Itoa(n)+word)
	}
	if m.backend != "" {
		meta = append(meta, m.backend)
	}
	if m.opts.Pick {
		meta = append(meta, "pick")
	}
	if m.loaded {
		meta = append(meta, sortLabel(m.sortOrder()))
	}
	if len(meta) > 0 {
		s += "  " + st.Meta.Render(strings.Join(meta, " · "))
	}
	return ansi.Truncate(s, m.w(), "…")
}

// filterShown: the filter line is there while typing and while a filter is applied.
func (m Model) filterShown() bool {
	return (m.mode == modeFilter || m.mode == modeList) && (m.mode == modeFilter || m.filter.Value() != "")
}

func (m Model) filterLine() string {
	st := &m.styles
	count := " " + strconv.Itoa(len(m.visible)) + "/" + strconv.Itoa(len(m.rows))
	in := m.filter
	in.SetWidth(max(1, m.w()-2-len(count)-1))
	return st.FilterPrompt.Render("/ ") + in.View() + st.FilterCount.Render(count)
}

func (m Model) listBody(h int) []string {
	st := &m.styles
	if !m.loaded {
		return []string{st.Empty.Render("  loading worktrees…")}
	}
	if len(m.visible) == 0 {
		if m.listFailed {
			return []string{st.Empty.Render(cut("  could not read the worktree list; press r to try again", m.w()))}
		}
		if m.filter.Value() != "" {
			return []string{st.Empty.Render(cut("  no worktree matches "+strconv.Quote(m.filter.Value()), m.w()))}
		}
		return m.emptyHint()
	}
	c := m.columns()
	rows := h
	if m.onlyMain() && m.filter.Value() == "" {
		rows -= len(m.emptyHint())
	}
	end := min(len(m.visible), m.offset+max(1, rows))
	out := make([]string, 0, h)
	for vi := m.offset; vi < end; vi++ {
		out = append(out, renderRow(m.rows[m.visible[vi]], vi == m.cursor, c, st))
	}
	if m.onlyMain() && m.filter.Value() == "" {
		out = append(out, m.emptyHint()...)
	}
	return out
}

// emptyHint is shown when only the main checkout exists.
func (m Model) emptyHint() []string {
	return []string{"", m.styles.Empty.Render(cut("  No other worktrees yet. Press n to create one.", m.w()))}
}

func (m Model) columns() columns {
	return layoutColumns(m.w(), m.maxBranch, m.maxPath, m.maxBadges, m.maxTags)
}

// footer is everything below the body: the selected row's detail (list modes only), the
// status line and the help, short or full.
func (m Model) footer() []string {
	var out []string
	if m.mode == modeList || m.mode == modeFilter {
		out = append(out, m.detailLine(m.columns()))
	}
	out = append(out, m.renderStatus()...)
	out = append(out, strings.Split(m.helpView(), "\n")...)
	return out
}

// footerHeight is len(m.footer()) without drawing it: listHeight runs on every cursor
// move and several times while a list is taken in, and drawing the detail line and the
// help only to count them cost the first frame a noticeable part of a millisecond.
func (m Model) footerHeight() int {
	n := len(m.renderStatus())
	if m.mode == modeList || m.mode == modeFilter {
		n++ // the detail line
	}
	if !m.help.ShowAll {
		return n + 1 // the short help is one line, cut to the width
	}
	return n + strings.Count(m.helpView(), "\n") + 1
}

// helpView is bubbles/help over the mode's bindings: the short line, or with ? the full
// columns. When the full columns are wider than the terminal they are regrouped into
// fewer, tighter columns instead of being cut off.
func (m Model) helpView() string {
	hv := m.help
	w := m.w()
	hv.SetWidth(w)
	keys := m.helpFor()
	if !hv.ShowAll {
		return shortHelp(hv, keys.short, m.keys.Quit, w)
	}
	// Measured without a width: with one, bubbles/help cuts columns off with "…".
	hv.SetWidth(0)
	full := hv.FullHelpView(keys.full)
	if lipgloss.Width(full) <= w {
		return full
	}
	var flat []key.Binding
	for _, g := range keys.full {
		for _, b := range g {
			if b.Enabled() {
				flat = append(flat, b)
			}
		}
	}
	hv.FullSeparator = "  "
	for cols := 3; cols >= 1; cols-- {
		per := (len(flat) + cols - 1) / cols
		var groups [][]key.Binding
		for i := 0; i < len(flat); i += per {
			groups = append(groups, flat[i:min(i+per, len(flat))])
		}
		if v := hv.FullHelpView(groups); lipgloss.Width(v) <= w || cols == 1 {
			return v
		}
	}
	return full // not reached: one column is always returned
}

// shortHelp is the one-line help cut to w cells. bubbles/help cuts at the end, and the
// list's line ends with quit: there the bindings before quit go first (? leads to them
// all), so how to leave stays visible at any width.
func shortHelp(hv help.Model, b []key.Binding, quit key.Binding, w int) string {
	if len(b) < 3 || !sameKeys(b[len(b)-1], quit) {
		return hv.View(helpKeys{short: b})
	}
	hv.SetWidth(0)
	for len(b) > 2 {
		if v := hv.ShortHelpView(b); lipgloss.Width(v) <= w {
			return v
		}
		b = append(b[:len(b)-2:len(b)-2], b[len(b)-1])
	}
	hv.SetWidth(w)
	return hv.ShortHelpView(b)
}

// sameKeys reports whether two bindings are bound to the same keys.
func sameKeys(a, b key.Binding) bool { return slices.Equal(a.Keys(), b.Keys()) }

// listTop is the screen line of the first row (mouse clicks map through it).
func (m Model) listTop() int {
	if m.filterShown() {
		return 2
	}
	return 1
}

// listHeight is how many rows fit: the same arithmetic View uses, so Update can keep the
// cursor on screen.
func (m Model) listHeight() int {
	h := m.h() - m.listTop() - m.footerHeight()
	if m.onlyMain() && m.filter.Value() == "" {
		h -= len(m.emptyHint())
	}
	return max(1, h)
}
