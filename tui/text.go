package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/internal/textsafe"
)

// String surgery in display cells. Plain text is measured and shortened with textsafe, the
// one width measure shared with core and copse list. Only text that already carries styles
// (a rendered line, the spinner) is measured by x/ansi or lipgloss, which skip escape
// sequences and agree with textsafe on plain text (TestWidthAgreesWithLipgloss).

// cut, midCut and pathCut are textsafe's cuts under the short names the views use.
func cut(s string, w int) string     { return textsafe.Cut(s, w) }
func midCut(s string, w int) string  { return textsafe.MidCut(s, w) }
func pathCut(s string, w int) string { return textsafe.PathCut(s, w) }

// cutStyled shortens text that already carries styles (the spinner's frame) to w cells,
// ending in "…": x/ansi skips the escape sequences. Plain text is cut with textsafe.Cut.
func cutStyled(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// pad fills s (plain text) with spaces to w cells.
func pad(s string, w int) string { return textsafe.Pad(s, w) }

// oneLine makes text safe to draw on one line without escaping twice what core already
// escaped (see package textsafe for who escapes what).
func oneLine(s string) string { return textsafe.EscapeHidden(s) }

const (
	maxErrorLines = 3
	maxHintLines  = 2
)

// wrapLines wraps s at spaces to width w, at most n lines, the first starting with
// prefix and the rest indented two cells; a word wider than a line is cut. When text is
// left out, the last line ends in "…".
func wrapLines(prefix, s string, w, n int) []string {
	return wrapIndent(prefix, "  ", s, w, n)
}

// wrapIndent is wrapLines with the continuation lines starting with indent.
func wrapIndent(prefix, indent, s string, w, n int) []string {
	if w <= textsafe.Width(indent) {
		return []string{cut(prefix+s, w)}
	}
	var lines []string
	line, lineW := prefix, textsafe.Width(prefix)
	fresh := true // nothing but the indent on this line yet
	for _, word := range strings.Fields(s) {
		ww := textsafe.Width(word)
		switch {
		case fresh:
			line += word
			lineW += ww
			fresh = false
		case lineW+1+ww <= w:
			line += " " + word
			lineW += 1 + ww
		default:
			lines = append(lines, line)
			line, lineW = indent+word, textsafe.Width(indent)+ww
		}
	}
	lines = append(lines, line)
	truncated := len(lines) > n
	if truncated {
		lines = lines[:n]
	}
	for i, l := range lines {
		lines[i] = cut(l, w)
	}
	if last := lines[len(lines)-1]; truncated && !strings.HasSuffix(last, "…") {
		if textsafe.Width(last) >= w {
			last = textsafe.Head(last, w-1)
		}
		lines[len(lines)-1] = last + "…"
	}
	return lines
}
