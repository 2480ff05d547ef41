// Package textsafe owns how copse shows text it did not write: which runes are safe to put
// on a terminal line, how an unsafe one is escaped, how wide a line is, how it is cut to a
// width, and how a value is quoted for a shell. It is the only place these rules live, so
// a value is judged the same way by the parsers (core), the command builders (gitx, herdr)
// and the front ends (cli, tui). It imports the standard library only (gitx may import
// nothing else) and must never print, run anything or know about worktrees.
//
// Who escapes what, exactly once:
//   - core escapes every raw value it puts into a message, a hint or a confirmation field
//     (Escape, Quote). Text that comes out of core is already safe to show.
//   - Front ends (cli, tui) escape the raw values they show themselves (a branch or path
//     from a listing) with Escape, and never re-escape core's text: for text that was
//     already escaped they use EscapeHidden, which leaves backslashes alone.
//   - A command meant to be pasted into a shell (a dry-run line, a `cd`, an unlock hint)
//     quotes the raw value with ShellQuote, never an already escaped one: escaping first
//     would double every backslash and name another path.
//   - gitx and herdr refuse values with hidden runes (IsHidden) rather than escape them:
//     an argument is passed as it is or not at all.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsBidi reports the bidirectional formatting marks that can make a terminal show text in
// another order than it is stored: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
func IsBidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F ||
		(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// IsControl reports C0 and C1 control characters and DEL.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// IsInvisibleSeparator reports the line and paragraph separators and the byte order mark:
// printable by Go's rules, but they break or hide a line on some terminals.
func IsInvisibleSeparator(r rune) bool { return r == 0x2028 || r == 0x2029 || r == 0xFEFF }

// IsHidden reports a rune that must never reach an argument or a terminal line raw: a
// control character, a bidirectional mark, or an invisible separator.
func IsHidden(r rune) bool { return IsControl(r) || IsBidi(r) || IsInvisibleSeparator(r) }

// IsUnsafe reports a rune a single-line display must not emit raw: a hidden rune, any
// other rune that is neither printable nor a space, and the replacement character that
// stands for invalid UTF-8.
func IsUnsafe(r rune) bool {
	return IsHidden(r) || (!unicode.IsPrint(r) && !unicode.IsSpace(r)) || r == utf8.RuneError
}

// FirstHidden returns the first hidden rune of s and true, or 0 and false.
func FirstHidden(s string) (rune, bool) {
	for _, r := range s {
		if IsHidden(r) {
			return r, true
		}
	}
	return 0, false
}

// HiddenKind names the kind of the first hidden rune of s, for a refusal ("contains a
// bidirectional mark"), or returns "" when s has none.
func HiddenKind(s string) string {
	r, ok := FirstHidden(s)
	switch {
	case !ok:
		return ""
	case IsBidi(r):
		return "a bidirectional mark"
	case IsControl(r):
		return "a control character"
	}
	return "an invisible separator"
}

// Escape makes raw safe to show on one line: control characters, bidirectional marks and
// invalid UTF-8 become visible escapes (\n, \t, \x1b, \u202e) and a backslash becomes \\,
// so a hostile value can neither break the line nor reorder what is around it, and the
// escaped text reads back unambiguously.
func Escape(raw string) string { return escape(raw, true) }

// EscapeHidden makes text that is already escaped (core's messages) safe to draw on one
// line without escaping it twice: only unsafe runes are escaped; backslashes stay.
func EscapeHidden(s string) string { return escape(s, false) }

func escape(s string, backslash bool) string {
	clean := true
	for _, r := range s {
		if (backslash && r == '\\') || IsUnsafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case backslash && r == '\\':
			b.WriteString(`\\`)
		default:
			escapeRune(&b, r)
		}
		i += size
	}
	return b.String()
}

func escapeRune(b *strings.Builder, r rune) {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x80 && IsUnsafe(r):
		fmt.Fprintf(b, `\x%02x`, r)
	case IsUnsafe(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
}

// Quote shows a raw value inside a message: escaped, cut to maxCells, between double
// quotes, so a message stays one readable line whatever was sent.
func Quote(raw string, maxCells int) string { return `"` + Cut(Escape(raw), maxCells) + `"` }
