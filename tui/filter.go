package tui

import (
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/sahilm/fuzzy"
)

// The picker's filter: fuzzy over each row's branch and path, with rows whose branch
// contains the query as typed (ignoring case) ranked above scattered matches, and the
// matched characters of the branch highlighted. `copse pick --select-1` applies exactly
// this filter through Filter, so it returns the row the picker would have put first.

// filterMatch is one row that matches, and the byte offsets in its label to highlight.
type filterMatch struct {
	index int
	hl    []int
}

// filterRows ranks the rows matching q: branch substring matches first (earliest position
// first), then the rest in fuzzy's order (best score first); ties keep the listing order.
func filterRows(rows []row, q string) []filterMatch {
	matches := fuzzy.FindFrom(q, rowSource(rows))
	lq := strings.ToLower(q)
	type ranked struct {
		filterMatch
		substring bool
		at, order int
	}
	rs := make([]ranked, 0, len(matches))
	for i, mt := range matches {
		r := ranked{filterMatch: filterMatch{index: mt.Index}, order: i}
		label := rows[mt.Index].label
		if at := strings.Index(strings.ToLower(label), lq); at >= 0 && len(strings.ToLower(label)) == len(label) {
			r.substring, r.at = true, at
			for b := at; b < at+len(lq); b++ {
				r.hl = append(r.hl, b)
			}
		} else {
			for _, b := range mt.MatchedIndexes {
				if b < len(label) {
					r.hl = append(r.hl, b)
				}
			}
		}
		rs = append(rs, r)
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.substring != b.substring {
			return a.substring
		}
		if a.substring && a.at != b.at {
			return a.at < b.at
		}
		return a.order < b.order
	})
	out := make([]filterMatch, len(rs))
	for i, r := range rs {
		out[i] = r.filterMatch
	}
	return out
}

// Filter returns the worktrees of l that the picker shows for query, in the picker's
// order: exactly the picker's filter, for `copse pick --query Q --select-1`.
func Filter(l *core.Listing, query string) []core.Worktree {
	if l == nil {
		return nil
	}
	home, _ := os.UserHomeDir()
	rows := make([]row, len(l.Worktrees))
	for i, wt := range l.Worktrees {
		rows[i] = newRow(wt, home)
	}
	if query == "" {
		return append([]core.Worktree(nil), l.Worktrees...)
	}
	var out []core.Worktree
	for _, mt := range filterRows(rows, query) {
		out = append(out, rows[mt.index].wt)
	}
	return out
}

// highlighted writes a label into width cells like column does, drawing the bytes at hl
// (rune starts) in the match ink. A label cut to the width keeps its highlights up to the "…".
func (w *rowWriter) highlighted(k, match Ink, text string, textW, width int, hl []int) {
	if width <= 0 {
		return
	}
	cutAt := len(text)
	if textW > width {
		text = cut(text, width)
		cutAt = len(strings.TrimSuffix(text, "…"))
		textW = textsafe.Width(text)
	}
	on := make(map[int]bool, len(hl))
	for _, b := range hl {
		on[b] = true
	}
	start := 0
	flush := func(end int, lit bool) {
		if end <= start {
			return
		}
		s := text[start:end]
		ink := k
		if lit {
			ink = match
		}
		w.styled(ink, s, textsafe.Width(s))
		start = end
	}
	lit := false
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRuneInString(text[i:])
		l := i < cutAt && on[i]
		if l != lit {
			flush(i, lit)
			lit = l
		}
		i += size
	}
	flush(len(text), lit)
	w.space(width - textW)
}

// startFilter sets the picker up for `copse pick`: typing goes to the filter from the
// first key, which starts with --query's text.
func (m *Model) startFilter() {
	if m.opts.Query != "" {
		m.filter.SetValue(m.opts.Query)
		m.filter.CursorEnd()
	}
	if m.opts.Pick {
		m.mode = modeFilter
		m.filter.Focus()
	}
}

// typeIntoFilter: a printable key the list does not bind starts typing the filter, in
// the picker as in pick mode (fzf's habit); a text that starts with a letter the list
// binds (n, d, s…) needs / first, which the help line names.
func (m Model) typeIntoFilter(k tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
		return m, nil, false
	}
	m.mode = modeFilter
	m.filter.Focus()
	mm, cmd := m.typeFilter(k)
	return mm.(Model), cmd, true
}
