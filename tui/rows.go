package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
)

// row is one worktree as the picker shows it. The display strings are computed once when
// the listing arrives (escaped, home as ~), not on every frame.
type row struct {
	wt       core.Worktree
	label    string // branch, or "(detached abc1234)"; escaped
	path     string // escaped, home shown as ~
	labelW   int    // display cells of label
	pending  bool   // status requested and not back yet
	filterOn string // what the fuzzy filter matches: label and path
}

func newRow(wt core.Worktree, home string) row {
	r := row{wt: wt, label: branchLabel(wt), path: core.Escape(tildePath(wt.Path, home))}
	r.labelW = ansi.StringWidth(r.label)
	r.filterOn = r.label + " " + r.path
	return r
}

// branchLabel is what the branch column shows: branch first, as the design asks.
func branchLabel(wt core.Worktree) string {
	switch {
	case wt.Bare:
		return "(bare)"
	case wt.Detached || wt.Branch == "":
		return "(detached " + shortHash(wt.Head) + ")"
	}
	return core.Escape(wt.Branch)
}

func shortHash(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// tildePath shows the home directory as ~ so paths fit; only a whole leading component
// is replaced, never a prefix of a longer name (/home/al vs /home/alice).
func tildePath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	home = strings.TrimSuffix(home, "/")
	if p == home {
		return "~"
	}
	if strings.HasPrefix(p, home+"/") {
		return "~" + p[len(home):]
	}
	return p
}

// midCut shortens s to w cells by replacing its middle with "…". The tail is kept longer
// than the head because a worktree's leaf directory is what tells rows apart.
func midCut(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	if w <= 1 {
		return ansi.Truncate(s, w, "")
	}
	head := (w - 1) / 3
	tail := w - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, sw-tail, "")
}

// cut shortens s to w cells, ending in "…".
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// pad fills s (plain text) with spaces to w cells.
func pad(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// seg is a piece of plain text and the style it is drawn with. Rows are built from
// segments so widths are measured on plain text and styling happens once, at the end.
type seg struct {
	text  string
	style lipgloss.Style
}

func segsWidth(ss []seg) int {
	n := 0
	for i, s := range ss {
		if i > 0 {
			n++
		}
		n += ansi.StringWidth(s.text)
	}
	return n
}

// badges are the status column: uncommitted count, ahead/behind, conflicts, and a rebase
// or merge in progress. A row whose status failed shows "?" (it is never shown as clean).
func badges(r row, st *Styles) []seg {
	s := r.wt.Status
	switch {
	case r.wt.Prunable != nil || r.wt.Bare:
		return nil
	case s == nil && r.pending:
		return []seg{{"…", st.Pending}}
	case s == nil:
		return nil
	case s.Error != "":
		return []seg{{"?", st.StatusErr}}
	}
	var out []seg
	if c := s.Changes() - s.Conflicted; c > 0 {
		out = append(out, seg{"✚" + strconv.Itoa(c), st.Changes})
	}
	if s.Conflicted > 0 {
		out = append(out, seg{"✖" + strconv.Itoa(s.Conflicted), st.Conflict})
	}
	if s.Ahead > 0 {
		out = append(out, seg{"↑" + strconv.Itoa(s.Ahead), st.Ahead})
	}
	if s.Behind > 0 {
		out = append(out, seg{"↓" + strconv.Itoa(s.Behind), st.Behind})
	}
	if s.Rebasing {
		out = append(out, seg{"rebase", st.Progress})
	}
	if s.Merging {
		out = append(out, seg{"merge", st.Progress})
	}
	if len(out) == 0 {
		out = append(out, seg{"✓", st.Clean})
	}
	return out
}

// tags are the row's markers: main checkout, locked, prunable and an open Herdr workspace.
// The lock and prune reasons go to the detail line, where there is room for them.
func tags(r row, st *Styles) []seg {
	var out []seg
	if r.wt.Main {
		out = append(out, seg{"main", st.TagMain})
	}
	if r.wt.Locked != nil {
		out = append(out, seg{"locked", st.TagLocked})
	}
	if r.wt.Prunable != nil {
		out = append(out, seg{"prunable", st.TagPrunable})
	}
	if r.wt.WorkspaceID != nil && *r.wt.WorkspaceID != "" {
		out = append(out, seg{"[" + core.Escape(*r.wt.WorkspaceID) + "]", st.TagWS})
	}
	return out
}

// columns is the row layout for one frame: the branch, path and status columns' widths.
type columns struct {
	width            int
	branch, path     int
	badges, tags     int
	narrow           bool // path moved to the detail line
	tagGap           int  // space between badges and tags (0 when either is empty)
}

const (
	rowPrefix   = 3  // cursor, current marker, space
	colGap      = 2  // between columns
	minPathW    = 14 // below this the path moves to the detail line
	narrowWidth = 60
)

// layoutColumns fits the widest branch, badges and tags of all rows (measured in Update)
// into width, giving the path what is left, or moving it to the detail line.
func layoutColumns(width, maxBranch, maxBadges, maxTags int) columns {
	c := columns{width: width, badges: maxBadges, tags: maxTags}
	right := c.badges
	if c.tags > 0 {
		if right > 0 {
			c.tagGap = 1
		}
		right += c.tagGap + c.tags
	}
	c.branch = min(maxBranch, max(12, width*35/100))
	c.path = width - rowPrefix - c.branch - right - 2*colGap
	if width < narrowWidth || c.path < minPathW {
		c.narrow = true
		c.path = 0
		// Without a path column the branch may take everything the status does not need,
		// but the status keeps at least half of what is left.
		rest := width - rowPrefix - colGap
		right = min(right, rest/2)
		c.branch = min(maxBranch, rest-right)
	}
	return c
}

// renderRow draws one row on one line of exactly c.width cells.
func renderRow(r row, selected bool, c columns, st *Styles) string {
	var b strings.Builder
	paint := func(style lipgloss.Style, s string) {
		if selected && st.SelectedBg != nil {
			style = style.Background(st.SelectedBg)
		}
		b.WriteString(style.Render(s))
	}
	plain := lipgloss.NewStyle()
	used := 0
	write := func(style lipgloss.Style, s string) {
		paint(style, s)
		used += ansi.StringWidth(s)
	}

	if selected {
		write(st.Cursor, "›")
	} else {
		write(plain, " ")
	}
	if r.wt.Current {
		write(st.CurrentMark, "●")
	} else {
		write(plain, " ")
	}
	write(plain, " ")

	bs := st.Branch
	switch {
	case r.wt.Current:
		bs = st.BranchCurrent
	case r.wt.Detached || r.wt.Bare:
		bs = st.Detached
	}
	if selected {
		bs = bs.Bold(true)
	}
	write(bs, pad(cut(r.label, c.branch), c.branch))

	if !c.narrow {
		write(plain, strings.Repeat(" ", colGap))
		write(st.Path, pad(midCut(r.path, c.path), c.path))
	}

	right := c.width - used - colGap
	if right > 0 {
		write(plain, strings.Repeat(" ", colGap))
		writeSegs(write, plain, badges(r, st), min(c.badges, right))
		if c.tags > 0 && right > c.badges {
			write(plain, strings.Repeat(" ", c.tagGap))
			writeSegs(write, plain, tags(r, st), right-c.badges-c.tagGap)
		}
	}
	if used < c.width {
		write(plain, strings.Repeat(" ", c.width-used))
	}
	return b.String()
}

// writeSegs writes space-separated segments into w cells, cutting the last one that does
// not fit with "…" and padding the rest.
func writeSegs(write func(lipgloss.Style, string), plain lipgloss.Style, ss []seg, w int) {
	n := 0
	for i, s := range ss {
		if i > 0 {
			if n+1 >= w {
				break
			}
			write(plain, " ")
			n++
		}
		t := s.text
		if tw := ansi.StringWidth(t); n+tw > w {
			t = cut(t, w-n)
		}
		write(s.style, t)
		n += ansi.StringWidth(t)
		if n >= w {
			break
		}
	}
	if n < w {
		write(plain, strings.Repeat(" ", w-n))
	}
}

// detailParts describes the selected row beyond what its line shows: where it is (on
// narrow terminals), the commit, the uncommitted breakdown, upstream, and why it is locked
// or prunable. Every value from git is escaped.
func detailParts(r row, narrow bool) []string {
	var parts []string
	if narrow {
		parts = append(parts, r.path)
	}
	if !r.wt.Detached && r.wt.Head != "" {
		parts = append(parts, shortHash(r.wt.Head))
	}
	if s := r.wt.Status; s != nil {
		if s.Error != "" {
			parts = append(parts, "status unknown: "+core.Escape(s.Error))
		}
		var counts []string
		for _, c := range []struct {
			n    int
			name string
		}{{s.Staged, "staged"}, {s.Unstaged, "modified"}, {s.Untracked, "untracked"}, {s.Conflicted, "conflicted"}} {
			if c.n > 0 {
				counts = append(counts, strconv.Itoa(c.n)+" "+c.name)
			}
		}
		if len(counts) > 0 {
			parts = append(parts, strings.Join(counts, ", "))
		}
		if s.Upstream != "" {
			parts = append(parts, "upstream "+core.Escape(s.Upstream))
		}
		if s.Rebasing {
			parts = append(parts, "rebase in progress")
		}
		if s.Merging {
			parts = append(parts, "merge in progress")
		}
	}
	if l := r.wt.Locked; l != nil {
		if *l != "" {
			parts = append(parts, "locked: "+core.Escape(*l))
		} else {
			parts = append(parts, "locked")
		}
	}
	if p := r.wt.Prunable; p != nil {
		if *p != "" {
			parts = append(parts, "prunable: "+core.Escape(*p))
		} else {
			parts = append(parts, "prunable")
		}
	}
	if ws := r.wt.WorkspaceID; ws != nil && *ws != "" {
		parts = append(parts, "workspace "+core.Escape(*ws))
	}
	return parts
}
