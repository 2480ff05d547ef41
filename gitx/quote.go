package gitx

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteArgv joins argv for display in a form a POSIX shell (bash/zsh for the
// $'…' case) would parse back into the same arguments.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// ShellQuote quotes one argument for display the way Cmd.String does, so hints and
// dry-run lines elsewhere (a `cd`, an unlock command) read back as the same argument.
func ShellQuote(s string) string { return shellQuote(s) }

func shellQuote(s string) string {
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

// needsEscapes: plain single quotes would show these raw, so a newline could
// start a fake line of output or a bidi mark could reorder what is shown.
func needsEscapes(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
		if !unicode.IsPrint(r) || isBidi(r) {
			return true
		}
	}
	return false
}

// ansiCQuote renders s as $'…' with every non-printable rune escaped.
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
		case !unicode.IsPrint(r) || isBidi(r):
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
