package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// confirmState is an open confirmation dialog for a prepared plan. Nothing runs until the
// user presses y; enter answers the default, No; a force removal asks a second time.
type confirmState struct {
	plan     *core.Plan
	kind     core.Operation
	label    string // what the spinner says once confirmed, e.g. "removing feat/x"
	steps    int    // 2 for force removal
	step     int    // 1-based
	returnTo mode   // where n/esc goes back to (the list, or the create form)
	force    bool
	path     string // remove: the row's path as shown (carried to the operation)
	req      core.Request
	branch   string // remove: the row's branch; "" when detached (no toggle then)
	note     string // why the last toggle could not be applied
}

// maxDialogWidth keeps the dialog readable on very wide terminals.
const maxDialogWidth = 100

// maxNoteLines bounds one loss or warning in the dialog.
const maxNoteLines = 3

// view draws the dialog from core's Confirmation. Field values arrive escaped from core;
// oneLine re-checks them, so even a value that slipped through cannot break a line, and
// each is shortened to the box with "…" in its middle instead of wrapping. The title,
// losses and warnings wrap: they are what the user agrees to.
func (c *confirmState) view(st *Styles, width, height int) []string {
	boxW := min(width, maxDialogWidth)
	inner := max(1, boxW-st.DialogBox.GetHorizontalFrameSize())
	conf := c.plan.Confirm

	var lines []string
	title := oneLine(conf.Title)
	if c.steps > 1 && c.step > 1 {
		title = "Force removal discards what is listed below. Are you sure?"
	}
	// The question is what the user answers: it wraps rather than lose its end.
	for _, l := range wrapIndent("", "", title, inner, maxNoteLines) {
		lines = append(lines, st.DialogTitle.Render(l))
	}
	lines = append(lines, "")

	nameW := 0
	for _, f := range conf.Fields {
		nameW = max(nameW, textsafe.Width(oneLine(f.Name)))
	}
	for _, f := range conf.Fields {
		name := pad(oneLine(f.Name), nameW)
		valW := inner - nameW - 2
		if valW < 1 {
			lines = append(lines, st.DialogName.Render(cut(name, inner)))
			continue
		}
		// Shortened in the middle: a path's leaf and a branch's last part tell rows apart.
		lines = append(lines, st.DialogName.Render(name)+"  "+st.DialogValue.Render(midCut(oneLine(f.Value), valW)))
	}
	// Losses and warnings are sentences core wrote (values inside already escaped); they
	// wrap rather than lose their end, because they are what the user is agreeing to.
	var notesAs func(style lipgloss.Style, prefix string, ss []string)
	notes := func(style lipgloss.Style, ss []string) { notesAs(style, "! ", ss) }
	notesAs = func(style lipgloss.Style, prefix string, ss []string) {
		for _, l := range ss {
			for _, wl := range wrapLines(prefix, oneLine(l), inner, maxNoteLines) {
				lines = append(lines, style.Render(wl))
			}
		}
	}
	notes(st.DialogLoss, conf.Losses)
	notes(st.DialogWarn, conf.Warnings)
	var extra []string
	for _, w := range c.plan.Warnings {
		if !containsStr(conf.Warnings, w) {
			extra = append(extra, w)
		}
	}
	notes(st.DialogWarn, extra)
	// Notices are information (what stays, how it is undone): drawn plainly, not as "!".
	notesAs(st.DialogValue, "· ", conf.Notices)
	var extraNotes []string
	for _, n := range c.plan.Notices {
		if !containsStr(conf.Notices, n) {
			extraNotes = append(extraNotes, n)
		}
	}
	notesAs(st.DialogValue, "· ", extraNotes)
	lines = append(lines, "")
	keys := "y yes · n/esc/enter no (the default)"
	if c.steps > 1 {
		keys = "y yes (" + strconv.Itoa(c.step) + "/" + strconv.Itoa(c.steps) + ") · n/esc/enter no (the default)"
	}
	lines = append(lines, st.DialogKeys.Render(cut(keys, inner)))
	// After the keys: on a short terminal what is cut is the toggle (the help line names b).
	lines = append(lines, c.branchToggle(st, inner)...)
	// On a short terminal the spacer lines go first, then the border, so the fields,
	// losses and keys stay.
	if frame := st.DialogBox.GetVerticalFrameSize(); len(lines)+frame > height {
		kept := lines[:0:0]
		for _, l := range lines {
			if l != "" {
				kept = append(kept, l)
			}
		}
		lines = kept
		if len(lines)+frame > height {
			return lines // and then the border: the content is what must be read
		}
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
