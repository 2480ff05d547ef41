package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Confirmation is what a human must agree to before a mutation runs. It is built from the
// caller's raw values, before parsing, so what is shown is exactly what was asked; each
// value is escaped and cut to one line, so no value can forge the lines around it.
type Confirmation struct {
	Title    string         // e.g. "Remove worktree?"
	Fields   []ConfirmField // one value a line
	Losses   []string       // what would be lost: uncommitted changes, unique commits, a lock
	Warnings []string
	Token    StateToken // the worktree list this was shown against
}

// ConfirmField is one labelled value; Value is already escaped (single line, no controls).
type ConfirmField struct {
	Name  string
	Value string
}

func (c *Confirmation) add(name, raw string) {
	c.Fields = append(c.Fields, ConfirmField{Name: name, Value: Escape(raw)})
}

// Lines renders the confirmation, each line cut to width display cells with "…".
func (c *Confirmation) Lines(width int) []string {
	var out []string
	out = append(out, Cut(c.Title, width))
	nameW := 0
	for _, f := range c.Fields {
		nameW = max(nameW, len(f.Name))
	}
	for _, f := range c.Fields {
		out = append(out, Cut(fmt.Sprintf("  %-*s  %s", nameW, f.Name, f.Value), width))
	}
	for _, l := range c.Losses {
		out = append(out, Cut("  ! "+l, width))
	}
	for _, w := range c.Warnings {
		out = append(out, Cut("  ! "+w, width))
	}
	return out
}

// Line is the whole confirmation as one line (agent hosts show it in an approval prompt).
func (c *Confirmation) Line() string {
	parts := []string{c.Title}
	for _, f := range c.Fields {
		parts = append(parts, f.Name+": "+Cut(f.Value, 200))
	}
	parts = append(parts, c.Losses...)
	parts = append(parts, c.Warnings...)
	return strings.Join(parts, " · ")
}

// digest is the token of a confirmation shown against the worktree list list: any change
// to the list or to anything the confirmation says (a new untracked file, one more commit
// that would be lost) gives another token.
func (c *Confirmation) digest(list StateToken) StateToken {
	h := sha256.New()
	io.WriteString(h, "copse confirmation v1\x00"+string(list)+"\x00"+c.Title)
	for _, f := range c.Fields {
		io.WriteString(h, "\x00f\x00"+f.Name+"\x00"+f.Value)
	}
	for _, l := range c.Losses {
		io.WriteString(h, "\x00l\x00"+l)
	}
	for _, w := range c.Warnings {
		io.WriteString(h, "\x00w\x00"+w)
	}
	return StateToken(hex.EncodeToString(h.Sum(nil)[:12]))
}

// isBidi reports the bidirectional formatting marks that can reorder what a terminal shows.
func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// unsafeRune is any rune a single-line display must not emit raw.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r) ||
		r == 0x2028 || r == 0x2029 || r == 0xFEFF || (!unicode.IsPrint(r) && !unicode.IsSpace(r)) || r == utf8.RuneError
}

// Escape makes raw safe to show on one line: control characters, bidirectional marks and
// invalid UTF-8 become visible escapes (\n, \t, \x1b, \u202e), so a hostile value can
// neither break the line nor reorder what is around it.
func Escape(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRuneInString(raw[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, raw[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Cut shortens an already-safe single line to at most width display cells, ending in "…".
// Width counts East Asian wide runes as two cells.
func Cut(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if cells(s) <= width {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := runeCells(r)
		if w+rw > width-1 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	b.WriteString("…")
	return b.String()
}

func cells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || (r >= 0xFF00 && r <= 0xFF60) || (r >= 0x1F300 && r <= 0x1FAFF) {
		return 2
	}
	return 1
}

// quote shows a raw value in a message: escaped and between double quotes, once.
// Values longer than 300 cells are cut: a message stays readable whatever was sent.
func quote(raw string) string { return "\"" + Cut(Escape(raw), 300) + "\"" }
