package tui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/copse-dev/copse/internal/textsafe"
)

// columns is the row layout for one frame: the branch, path and status columns' widths.
type columns struct {
	width        int
	branch, path int
	badges, tags int
	narrow       bool // path moved to the detail line
	tagGap       int  // space between badges and tags (0 when either is empty)
}

const (
	rowPrefix   = 3  // cursor, current marker, space
	colGap      = 2  // between columns
	minPathW    = 14 // below this the path moves to the detail line
	narrowWidth = 60
	// minNarrowBranch is what the branch keeps on a narrow terminal before status and
	// markers get the rest.
	minNarrowBranch = 15
)

// layoutColumns fits the widest branch, path, badges and tags of the rows (measured in
// Update) into width, giving the path what is left, or moving it to the detail line.
func layoutColumns(width, maxBranch, maxPath, maxBadges, maxTags int) columns {
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
		right = min(right, rest-min(maxBranch, minNarrowBranch))
		c.branch = min(maxBranch, rest-right)
		return c
	}
	// Status follows the path directly rather than hugging the right edge: the row reads
	// as one phrase, and short paths leave no wide gap to jump across.
	c.path = min(c.path, maxPath)
	return c
}

// renderRow draws one row on one line of exactly c.width cells. Every column is padded
// to its width, so positions are known without measuring the output.
func renderRow(r row, selected bool, c columns, st *Styles) string {
	w := rowWriter{}
	if selected {
		w.bg = st.SelectedBg
	}
	if selected {
		w.styled(st.Cursor, "›", 1)
	} else {
		w.space(1)
	}
	if r.current {
		w.styled(st.CurrentMark, "●", 1)
	} else {
		w.space(1)
	}
	w.space(1)

	bs := st.Branch
	switch {
	case r.current:
		bs = st.BranchCurrent
	case r.wt.Detached || r.wt.Bare:
		bs = st.Detached
	}
	if selected {
		bs = NewInk(bs.Style.Bold(true))
	}
	if len(r.hl) > 0 {
		w.highlighted(bs, st.Match, r.label, r.labelW, c.branch, r.hl)
	} else {
		w.column(bs, r.label, r.labelW, c.branch, cut)
	}

	if !c.narrow {
		w.space(colGap)
		w.column(st.Path, r.path, r.pathW, c.path, pathCut)
	}

	right := c.width - w.used - colGap
	if right > 0 {
		w.space(colGap)
		w.segs(badges(r, st), min(c.badges, right))
		if c.tags > 0 && right > c.badges {
			w.space(c.tagGap)
			w.segs(tags(r, st), min(c.tags, right-c.badges-c.tagGap))
		}
	}
	w.lastCommit(r, c.width, st)
	w.space(c.width - w.used)
	return w.b.String()
}

// rowWriter builds a row from styled pieces and counts the cells written. On the selected
// row every piece, spaces included, gets the selection background.
type rowWriter struct {
	b    strings.Builder
	bg   color.Color
	used int
}

func (w *rowWriter) styled(k Ink, s string, cells int) {
	if w.bg != nil {
		w.b.WriteString(k.Style.Background(w.bg).Render(s))
	} else {
		w.b.WriteString(k.Render(s))
	}
	w.used += cells
}

// blanks serves padding without allocating for the usual widths.
var blanks = strings.Repeat(" ", 256)

func (w *rowWriter) space(n int) {
	if n <= 0 {
		return
	}
	s := blanks
	if n > len(s) {
		s = strings.Repeat(" ", n)
	}
	s = s[:n]
	if w.bg != nil {
		w.b.WriteString(lipgloss.NewStyle().Background(w.bg).Render(s))
	} else {
		w.b.WriteString(s)
	}
	w.used += n
}

// column writes text (of textW cells) into exactly width cells, shortened by shorten when
// it does not fit.
func (w *rowWriter) column(k Ink, text string, textW, width int, shorten func(string, int) string) {
	if width <= 0 {
		return
	}
	if textW > width {
		text = shorten(text, width)
		textW = textsafe.Width(text)
	}
	if textW > 0 {
		w.styled(k, text, textW)
	}
	w.space(width - textW)
}

// segs writes space-separated segments into n cells, cutting the last one that does not
// fit with "…" and padding the rest.
func (w *rowWriter) segs(ss []seg, n int) {
	start := w.used
	for i, s := range ss {
		room := n - (w.used - start)
		if i > 0 {
			if room <= 1 {
				break
			}
			w.space(1)
			room--
		}
		t := s.text
		tw := textsafe.Width(t)
		if tw > room {
			t = cut(t, room)
			tw = textsafe.Width(t)
		}
		w.styled(s.ink, t, tw)
		if w.used-start >= n {
			break
		}
	}
	w.space(n - (w.used - start))
}
