package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
)

// String surgery in display cells. Everything on screen is measured with x/ansi, never
// with len, so wide runes and escapes are counted as the terminal draws them.

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

// oneLine makes s safe to draw on one line without double-escaping text core already
// escaped: only runes that could break or reorder the line are escaped (control characters,
// line separators, bidirectional marks); backslashes are left alone.
func oneLine(s string) string {
	clean := true
	for _, r := range s {
		if unsafeDisplay(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeDisplay(r) {
			b.WriteString(core.Escape(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unsafeDisplay(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return false
}

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
	if w <= ansi.StringWidth(indent) {
		return []string{cut(prefix+s, w)}
	}
	var lines []string
	line, lineW := prefix, ansi.StringWidth(prefix)
	fresh := true // nothing but the indent on this line yet
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
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
			line, lineW = indent+word, ansi.StringWidth(indent)+ww
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
		if ansi.StringWidth(last) >= w {
			last = ansi.Truncate(last, w-1, "")
		}
		lines[len(lines)-1] = last + "…"
	}
	return lines
}
