package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
)

// confirmState is an open confirmation dialog for a prepared plan. Nothing runs until the
// user presses y (enter alone does not); a force removal asks a second time.
type confirmState struct {
	plan     *core.Plan
	kind     core.Operation
	label    string // what the spinner says once confirmed, e.g. "removing feat/x"
	steps    int    // 2 for force removal
	step     int    // 1-based
	returnTo mode   // where n/esc goes back to (the list, or the create form)
	nudge    bool   // enter was pressed: remind that only y confirms
}

// maxDialogWidth keeps the dialog readable on very wide terminals.
const maxDialogWidth = 100

// view draws the dialog from core's Confirmation. Field values arrive escaped from core;
// oneLine re-checks them, so even a value that slipped through cannot break a line, and
// every line is cut to the box with "…" instead of wrapping.
func (c *confirmState) view(st *Styles, width int) []string {
	boxW := min(width, maxDialogWidth)
	inner := max(1, boxW-st.DialogBox.GetHorizontalFrameSize())
	conf := c.plan.Confirm

	var lines []string
	title := oneLine(conf.Title)
	if c.steps > 1 && c.step > 1 {
		title = "Force removal discards what is listed below. Are you sure?"
	}
	lines = append(lines, st.DialogTitle.Render(cut(title, inner)), "")

	nameW := 0
	for _, f := range conf.Fields {
		nameW = max(nameW, ansi.StringWidth(oneLine(f.Name)))
	}
	for _, f := range conf.Fields {
		name := pad(oneLine(f.Name), nameW)
		valW := inner - nameW - 2
		if valW < 1 {
			lines = append(lines, st.DialogName.Render(cut(name, inner)))
			continue
		}
		lines = append(lines, st.DialogName.Render(name)+"  "+st.DialogValue.Render(cut(oneLine(f.Value), valW)))
	}
	for _, l := range conf.Losses {
		lines = append(lines, st.DialogLoss.Render(cut("! "+oneLine(l), inner)))
	}
	for _, w := range conf.Warnings {
		lines = append(lines, st.DialogWarn.Render(cut("! "+oneLine(w), inner)))
	}
	if c.plan != nil {
		for _, w := range c.plan.Warnings {
			if !containsStr(conf.Warnings, w) {
				lines = append(lines, st.DialogWarn.Render(cut("! "+oneLine(w), inner)))
			}
		}
	}
	lines = append(lines, "")
	keys := "y confirm · n/esc cancel (default: no)"
	if c.steps > 1 {
		keys = "y confirm (" + strconv.Itoa(c.step) + "/" + strconv.Itoa(c.steps) + ") · n/esc cancel (default: no)"
	}
	lines = append(lines, st.DialogKeys.Render(cut(keys, inner)))
	if c.nudge {
		lines = append(lines, st.DialogWarn.Render(cut("enter does not confirm: press y", inner)))
	}
	box := st.DialogBox.Width(boxW).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
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

// centerBlock centres lines horizontally in width (the dialog floats over the list area).
func centerBlock(lines []string, width int) []string {
	w := 0
	for _, l := range lines {
		w = max(w, lipgloss.Width(l))
	}
	left := max(0, (width-w)/2)
	if left == 0 {
		return lines
	}
	padS := strings.Repeat(" ", left)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = padS + l
	}
	return out
}
