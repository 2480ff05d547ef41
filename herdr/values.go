package herdr

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The builder re-checks every value although core's typed parsers already did: this is
// the last place before a value becomes an argument of another program, and the cheapest
// place to make sure a bug elsewhere cannot smuggle in an option or a disguised string.

// Length limits, in characters, matching core's parsers.
const (
	maxBranch = 255
	maxRef    = 255
	maxPath   = 4096
	maxLabel  = 120
)

// isBidi reports the bidirectional marks that can make text display differently from
// what it is: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
func isBidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F ||
		(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// isHidden reports characters that must never reach an argument or a terminal unescaped:
// C0/C1 controls and DEL, bidirectional marks, line/paragraph separators and the BOM.
func isHidden(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r) ||
		r == 0x2028 || r == 0x2029 || r == 0xFEFF
}

// checkText holds for every value: non-empty, valid UTF-8, nothing hidden, not padded,
// no leading '-' (it would read as an option), at most maxLen characters.
func checkText(v string, maxLen int) string {
	switch {
	case v == "":
		return "is empty"
	case !utf8.ValidString(v):
		return "is not valid UTF-8"
	}
	for _, r := range v {
		switch {
		case isBidi(r):
			return "contains a bidirectional mark"
		case isHidden(r):
			return "contains a control character"
		}
	}
	switch {
	case strings.TrimSpace(v) != v:
		return "starts or ends with white space"
	case strings.HasPrefix(v, "-"):
		return "starts with '-' and would be read as an option"
	case utf8.RuneCountInString(v) > maxLen:
		return fmt.Sprintf("is longer than %d characters", maxLen)
	}
	return ""
}

// checkPath also requires an absolute, already clean path: relative paths would resolve
// against whatever directory herdr runs in.
func checkPath(v string) string {
	if why := checkText(v, maxPath); why != "" {
		return why
	}
	if !filepath.IsAbs(v) {
		return "is not an absolute path"
	}
	if filepath.Clean(v) != v {
		return "is not a clean path"
	}
	return ""
}

// checkWorkspaceID requires "w" + 1-16 ASCII letters or digits: Herdr would read a bare
// number as a sidebar position (§3), and nothing else is an id Herdr hands out.
func checkWorkspaceID(v string) string {
	if len(v) < 2 || len(v) > 17 || v[0] != 'w' {
		return "is not a Herdr workspace id (w followed by 1-16 letters or digits)"
	}
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "is not a Herdr workspace id (w followed by 1-16 letters or digits)"
		}
	}
	return ""
}

// quote shows s safely on one line: Go-quoted with every non-printable or non-ASCII rune
// escaped (so no control character or bidi mark reaches a terminal), cut to max runes.
func quote(s string, max int) string {
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return strconv.QuoteToASCII(s)
}

// sanitize makes free text from herdr (error messages, stderr) safe for one terminal line
// while keeping it readable: hidden characters and new lines are escaped, not dropped.
func sanitize(s string, max int) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r == '\n':
			b.WriteString(`\n`)
		case isHidden(r) || !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
