package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// statusKind says how the status line's message is drawn.
type statusKind int

const (
	statusNone statusKind = iota
	statusInfo
	statusError
)

// statusLine is the one place user feedback appears: a message (an error carries how to
// proceed as hint), then any warnings (the listing's, or an outcome's). All of it is
// cleared by the next key, so it never hides the help for long.
type statusLine struct {
	kind      statusKind
	msg       string
	hint      string
	warns     []string    // drawn after the message, at warning level
	notes     []string    // drawn after the warnings as information (a branch now tracks its remote)
	untilLoad bool        // "refreshing…": replaced as soon as the list arrives
	offer     *forceOffer // the refused request F sends again with force (wayout.go)
}

func infoStatus(msg string) statusLine { return statusLine{kind: statusInfo, msg: msg} }

// addWarnings appends warnings not already shown, made safe for one line.
func (s *statusLine) addWarnings(ws []string) {
	for _, w := range ws {
		w = oneLine(w)
		if w != "" && !containsStr(s.warns, w) {
			s.warns = append(s.warns, w)
		}
	}
}

// addNotices appends an outcome's notices not already shown, made safe for one line.
func (s *statusLine) addNotices(ns []string) {
	for _, n := range ns {
		n = oneLine(n)
		if n != "" && !containsStr(s.notes, n) {
			s.notes = append(s.notes, n)
		}
	}
}

// errorStatus renders any error through core's Error type, so the TUI says exactly what
// the CLI and the JSON tool would: the message, then core's hint on how to proceed.
func errorStatus(err error) statusLine {
	e := core.AsError(err)
	return statusLine{kind: statusError, msg: oneLine(e.Message), hint: oneLine(e.Hint)}
}

// removeRefusedStatus is a removal refused for a reason force would get past (core sets
// ForceHelps): core's hint names the CLI flag, so the picker phrases its own, ending in the
// key that does it here.
// path is the worktree the user asked to remove, raw (home as ~, not escaped): the hint
// quotes it for a shell, and quoting an escaped path would name another one.
func removeRefusedStatus(e *core.Error, path string) statusLine {
	return statusLine{kind: statusError, msg: oneLine(e.Message), hint: forceHint(e.Code, path)}
}

// forceHint is the picker's way out of a refusal that force removal gets past, by code.
func forceHint(code, path string) string {
	const d = "press D to force-remove (asks twice)"
	switch code {
	case core.CodeDirtyWorktree:
		return "commit or stash them, or " + d
	case core.CodeLockedWorktree:
		if path == "" {
			return "unlock it (git worktree unlock), or " + d
		}
		return "unlock it (git worktree unlock " + textsafe.ShellQuotePath(path) + "), or " + d
	case core.CodeClaimedWorktree:
		return "ask its session to release it (C releases your own), or " + d
	case core.CodeStatusUnknown:
		return "fix the worktree, or press D to force-remove it anyway (asks twice)"
	}
	return d
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
	force      bool   // a force removal: D, confirmed twice
	path       string // remove: the worktree asked for, raw with home as ~ (the refusal hint quotes it)
	req        core.Request
	branch     string        // remove: the row's branch
	fallback   *confirmState // re-preparing an open dialog: reopened on a refusal
	shown      []string      // the warnings and notices the confirmation showed: not repeated after

	executing bool                 // Execute runs (a Prepare changes nothing)
	settled   chan Settled         // receives Execute's answer even after the picker has quit
	lockWait  chan core.LockHolder // core names the lock holder here (core.WithLockWait)
	lockedBy  *core.LockHolder     // who holds the repository lock this operation waits for
}

// busyText is the spinner line: what runs, for how long, and how to stop it.
func (m Model) busyText() string {
	op := m.op
	secs := int(m.now().Sub(op.started).Seconds())
	if op.cancelling {
		return fmt.Sprintf("%s %s… cancelling (%ds) · ctrl+c again quits", m.spinner.View(), op.label, secs)
	}
	return fmt.Sprintf("%s %s… %ds · ctrl+c cancels", m.spinner.View(), op.label, secs)
}

// renderStatus returns the status line(s): the error and its hint or an info message,
// the warnings, then the busy spinner. Errors and warnings wrap (a few lines at most); the
// rest is cut to the width.
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
		// "created <branch> at <path>" is worth its second line on a narrow terminal.
		for _, l := range wrapLines("", m.status.msg, w, maxHintLines) {
			out = append(out, st.StatusInfo.Render(l))
		}
		// What to do next after a success (a land's publish command), when there is one.
		if m.status.hint != "" {
			for _, l := range wrapLines("  ", m.status.hint, w, maxHintLines) {
				out = append(out, st.StatusHint.Render(l))
			}
		}
	}
	for _, warn := range m.status.warns {
		for _, l := range wrapLines("! ", warn, w, maxHintLines) {
			out = append(out, st.StatusWarn.Render(l))
		}
	}
	for _, note := range m.status.notes {
		for _, l := range wrapLines("· ", note, w, maxHintLines) {
			out = append(out, st.StatusInfo.Render(l))
		}
	}
	if m.op != nil {
		out = append(out, st.Busy.Render(cutStyled(m.busyText(), w)))
		if h := m.op.lockedBy; h != nil && !m.op.cancelling {
			// Its own lines: the holder's pid must not be cut off on a narrow terminal.
			for _, l := range wrapLines("  ", "waiting for the repository lock, held by "+h.String(), w, maxHintLines) {
				out = append(out, st.Busy.Render(l))
			}
		}
	}
	return out
}
