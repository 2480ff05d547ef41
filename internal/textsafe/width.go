package textsafe

import (
	"strings"
	"unicode"
)

// The one width measure: display cells as a terminal draws plain (unstyled, already safe)
// text. East Asian wide and full-width runes and emoji take two cells, combining marks and
// zero-width characters none, everything else one. It follows the ranges terminals and
// x/ansi agree on; a test in tui checks it against lipgloss's measure.

// RuneWidth is the cells r takes.
func RuneWidth(r rune) int {
	switch {
	case r == 0:
		return 0
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
		return 0
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 0
	case isWide(r):
		return 2
	}
	return 1
}

func isWide(r rune) bool {
	return r >= 0x1100 && (r <= 0x115F || // Hangul Jamo initial consonants
		r == 0x2329 || r == 0x232A ||
		(r >= 0x2E80 && r <= 0xA4CF && r != 0x303F) || // CJK … Yi
		(r >= 0xAC00 && r <= 0xD7A3) || // Hangul syllables
		(r >= 0xF900 && r <= 0xFAFF) || // CJK compatibility ideographs
		(r >= 0xFE10 && r <= 0xFE19) || // vertical forms
		(r >= 0xFE30 && r <= 0xFE6F) || // CJK compatibility forms
		(r >= 0xFF00 && r <= 0xFF60) || // full-width forms
		(r >= 0xFFE0 && r <= 0xFFE6) ||
		(r >= 0x1F300 && r <= 0x1F64F) || // symbols, pictographs and emoticons
		(r >= 0x1F900 && r <= 0x1F9FF) ||
		(r >= 0x20000 && r <= 0x2FFFD) ||
		(r >= 0x30000 && r <= 0x3FFFD))
}

// Width is the cells s takes on one line.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += RuneWidth(r)
	}
	return n
}

// Cut shortens a single line to at most w cells, ending in "…" when anything was left out.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return Head(s, w-1) + "…"
}

// MidCut shortens a single line to at most w cells by replacing its middle with "…". The
// tail is kept longer than the head: a path's leaf directory is what tells rows apart.
func MidCut(s string, w int) string {
	sw := Width(s)
	if sw <= w {
		return s
	}
	if w <= 1 {
		return Head(s, w)
	}
	h := (w - 1) / 3
	return Head(s, h) + "…" + tail(s, w-1-h)
}

// PathCut shortens a path to at most w cells and keeps its leaf whole: the leading
// directories that fit, "…", then the leaf ("~/src/…/feat-checkout-v2"), since the leaf is
// what tells worktrees apart and a person reads whole names. A leaf too long for that is
// cut in the middle like any other text (MidCut).
func PathCut(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return MidCut(s, w)
	}
	leaf := s[i:] // with its slash: "/feat-checkout-v2"
	lw := Width(leaf)
	if lw+1 > w {
		return MidCut(s, w)
	}
	head := ""
	for j := 0; j < i; j++ {
		if s[j] == '/' && Width(s[:j+1])+1+lw <= w {
			head = s[:j+1]
		}
	}
	return head + "…" + leaf
}

// Pad fills s with spaces to w cells; wider text is returned as it is.
func Pad(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Head is the longest prefix of s at most w cells wide, with no "…".
func Head(s string, w int) string {
	n := 0
	for i, r := range s {
		rw := RuneWidth(r)
		if n+rw > w {
			return s[:i]
		}
		n += rw
	}
	return s
}

// tail is the longest suffix of s at most w cells wide.
func tail(s string, w int) string {
	rs := []rune(s)
	n, i := 0, len(rs)
	for i > 0 {
		rw := RuneWidth(rs[i-1])
		if n+rw > w {
			break
		}
		n += rw
		i--
	}
	return string(rs[i:])
}
