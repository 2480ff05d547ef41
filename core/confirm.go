package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Confirmation is what a human must agree to before a mutation runs. It is built from the
// caller's raw values, before parsing, so what is shown is exactly what was asked; each
// value is escaped and cut to one line, so no value can forge the lines around it.
type Confirmation struct {
	Title    string         // e.g. "Remove worktree?"
	Fields   []ConfirmField // one value a line
	Losses   []string       // what would be lost: uncommitted changes, unique commits, a lock
	Warnings []string
	Notices  []string   // information, not a risk: e.g. the branch stays, with its commits
	Token    StateToken // the worktree list this was shown against
	// shownOnly are lines of Losses and Warnings the token leaves out because they change
	// by themselves while the person reads them (a process list with the pids of
	// short-lived children, "last output 2s ago"); decides stands for them in the token:
	// what they say that the person decides on (which programs, which panes).
	shownOnly map[string]bool
	decides   []string
}

// showOnly marks lines as shown but not in the token, and key as what the token holds of
// them instead.
func (c *Confirmation) ShowOnly(lines []string, key ...string) {
	if c.shownOnly == nil {
		c.shownOnly = map[string]bool{}
	}
	for _, l := range lines {
		c.shownOnly[l] = true
	}
	c.decides = append(c.decides, key...)
}

// ConfirmField is one labelled value; Value is already escaped (single line, no controls).
type ConfirmField struct {
	Name  string
	Value string
}

func (c *Confirmation) Add(name, raw string) {
	c.Fields = append(c.Fields, ConfirmField{Name: name, Value: Escape(raw)})
}

// Lines renders the confirmation, each line cut to width display cells with "…".
func (c *Confirmation) Lines(width int) []string {
	var out []string
	out = append(out, textsafe.Cut(c.Title, width))
	nameW := 0
	for _, f := range c.Fields {
		nameW = max(nameW, len(f.Name))
	}
	for _, f := range c.Fields {
		out = append(out, textsafe.Cut(fmt.Sprintf("  %-*s  %s", nameW, f.Name, f.Value), width))
	}
	for _, l := range c.Losses {
		out = append(out, textsafe.Cut("  ! "+l, width))
	}
	for _, w := range c.Warnings {
		out = append(out, textsafe.Cut("  ! "+w, width))
	}
	for _, n := range c.Notices {
		out = append(out, textsafe.Cut("  · "+n, width))
	}
	return out
}

// Line is the whole confirmation as one line (agent hosts show it in an approval prompt).
func (c *Confirmation) Line() string {
	parts := []string{c.Title}
	for _, f := range c.Fields {
		parts = append(parts, f.Name+": "+textsafe.Cut(f.Value, 200))
	}
	parts = append(parts, c.Losses...)
	parts = append(parts, c.Warnings...)
	parts = append(parts, c.Notices...)
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
		if !c.shownOnly[l] {
			io.WriteString(h, "\x00l\x00"+l)
		}
	}
	for _, w := range c.Warnings {
		if !c.shownOnly[w] {
			io.WriteString(h, "\x00w\x00"+w)
		}
	}
	for _, n := range c.Notices {
		io.WriteString(h, "\x00n\x00"+n)
	}
	for _, d := range c.decides {
		io.WriteString(h, "\x00d\x00"+d)
	}
	return StateToken(hex.EncodeToString(h.Sum(nil)[:12]))
}

// Escape makes raw safe to show on one line (textsafe.Escape). core's messages call it by
// this short name; the rule itself lives in textsafe.
func Escape(raw string) string { return textsafe.Escape(raw) }

// Quote shows a raw value in a message: escaped and between double quotes, once.
// Values longer than 300 cells are cut: a message stays readable whatever was sent.
func Quote(raw string) string { return textsafe.Quote(raw, 300) }
