package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
)

// statusKind says how the status line is drawn.
type statusKind int

const (
	statusNone statusKind = iota
	statusInfo
	statusError
)

// statusLine is the one place user feedback appears. An error carries core's suggested fix
// as hint. It is cleared by the next key, so it never hides the help for long.
type statusLine struct {
	kind      statusKind
	msg       string
	hint      string
	untilLoad bool // "refreshing…": replaced as soon as the list arrives
}

func infoStatus(msg string) statusLine { return statusLine{kind: statusInfo, msg: msg} }

// errorStatus renders any error through core's Error type, so the TUI says exactly what
// the CLI and the JSON tool would (message, then how to proceed).
func errorStatus(err error) statusLine {
	e := core.AsError(err)
	return statusLine{kind: statusError, msg: oneLine(e.Message), hint: pickerHint(oneLine(e.Hint))}
}

// pickerHint translates the one CLI flag core's hints suggest into the picker's key, so the
// suggested fix is something the user can do right here.
func pickerHint(h string) string {
	return strings.ReplaceAll(h, "pass --force", "press D (force remove)")
}

// operation is a long-running request (create, remove, open, switch, back). Its context
// is cancelled by ctrl+c, which stops core's child processes but leaves the picker running.
type operation struct {
	id         int
	kind       core.Operation
	label      string // "removing feat/x"
	started    time.Time
	ctx        context.Context
	cancel     context.CancelFunc
	cancelling bool
	force      bool
}

// busyText is the spinner line: what runs, for how long, and how to stop it.
func (m Model) busyText() string {
	op := m.op
	secs := int(m.now().Sub(op.started).Seconds())
	if op.cancelling {
		return fmt.Sprintf("%s %s… cancelling (%ds)", m.spinner.View(), op.label, secs)
	}
	return fmt.Sprintf("%s %s… %ds · ctrl+c cancels", m.spinner.View(), op.label, secs)
}

// renderStatus returns the status line(s): the error and its hint, an info message, or
// the busy spinner. Each line is cut to the width, never wrapped.
func (m Model) renderStatus() []string {
	w := m.w()
	st := &m.styles
	var out []string
	switch m.status.kind {
	case statusError:
		// An error is the one message worth wrapping: on a narrow terminal the user must
		// still read what state remains and how to proceed.
		for _, l := range wrapLines("✗ ", m.status.msg, w, maxErrorLines) {
			out = append(out, st.StatusError.Render(l))
		}
		if m.status.hint != "" {
			for _, l := range wrapLines("  ", m.status.hint, w, maxHintLines) {
				out = append(out, st.StatusHint.Render(l))
			}
		}
	case statusInfo:
		out = append(out, st.StatusInfo.Render(cut(m.status.msg, w)))
	}
	if m.op != nil {
		out = append(out, st.Busy.Render(cut(m.busyText(), w)))
	}
	return out
}
