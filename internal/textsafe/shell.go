package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShellQuote quotes one raw argument so that a POSIX shell (bash or zsh for the $'…' form)
// reads it back as the same argument: plain when no shell treats any of its characters
// specially, in single quotes otherwise, and as $'…' with visible escapes when it holds a
// rune that single quotes would show raw (a newline could start a fake line of output, a
// bidirectional mark could reorder what is shown).
func ShellQuote(s string) string {
	switch {
	case s == "":
		return "''"
	case isShellSafe(s):
		return s
	case needsEscapes(s):
		return ansiCQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuotePath is ShellQuote for a path shown with the home directory as "~": a leading
// "~/" stays outside the quotes, so the shell still expands it.
func ShellQuotePath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && rest != "" {
		return "~/" + ShellQuote(rest)
	}
	return ShellQuote(p)
}

// ShellJoin quotes every argument of argv and joins them with spaces.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// isShellSafe: characters no common shell treats specially anywhere in a word.
func isShellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func needsEscapes(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
		if !unicode.IsPrint(r) || IsHidden(r) {
			return true
		}
	}
	return false
}

// ansiCQuote renders s as $'…' with every non-printable or hidden rune escaped.
func ansiCQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) || IsHidden(r):
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}
