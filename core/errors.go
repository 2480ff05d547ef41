package core

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies a failure by what the caller should do next; it maps onto exit codes.
type Kind int

const (
	// KindUsage: the request itself is bad (exit 2). Nothing ran.
	KindUsage Kind = iota + 1
	// KindRefused: a precondition protected something (exit 1). Nothing changed.
	KindRefused
	// KindFailed: git or herdr failed (exit 1). Postconditions confirmed nothing changed.
	KindFailed
	// KindUncertain: a mutation ran but its postcondition did not hold (exit 3). Report, never retry.
	KindUncertain
	// KindCancelled: the user or caller cancelled (exit 130).
	KindCancelled
)

// Error is the one error type every entry point renders: CLI text, --json, tool replies, the TUI status line.
type Error struct {
	Kind    Kind
	Code    string // stable machine code, e.g. "branch_checked_out"
	Message string // what happened, naming what was protected
	Hint    string // how to proceed
	Field   string // the request field at fault, when there is one
	// ForceHelps marks a refusal that the same request with force would get past
	// (dirty, locked, unmerged): front ends phrase their own hint ("press D", "--force").
	ForceHelps bool
	// StateToken, on needs_approval, is the token of what the confirmation showed.
	StateToken StateToken
	// Log and LogTail, on a failed land test gate, are its log's path and last lines
	// (escaped): what failed is seen without opening the log.
	Log     string
	LogTail []string
	// Reasons, on a refusal with more than one cause, are all of them, the first being
	// Code's: Message says them all, and a caller that acts on codes sees each one.
	Reasons []Reason
	Err     error // underlying cause (git/herdr error), if any
}

// Reason is one cause of a refusal that has several.
type Reason struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func (e *Error) Error() string {
	if e.Hint != "" {
		return e.Message + " — " + e.Hint
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Uncertain reports whether the outcome is unknown (exit 3).
func (e *Error) Uncertain() bool { return e.Kind == KindUncertain }

func Usage(code, field, hint, format string, args ...any) *Error {
	return &Error{Kind: KindUsage, Code: code, Field: field, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

func Refused(code, hint, format string, args ...any) *Error {
	return &Error{Kind: KindRefused, Code: code, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

func Failed(code string, err error, hint, format string, args ...any) *Error {
	if errors.Is(err, context.Canceled) {
		return &Error{Kind: KindCancelled, Code: CodeCancelled, Err: err, Hint: hint, Message: fmt.Sprintf(format, args...) + ": cancelled"}
	}
	return &Error{Kind: KindFailed, Code: code, Err: err, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

func Uncertain(code string, err error, hint, format string, args ...any) *Error {
	return &Error{Kind: KindUncertain, Code: code, Err: err, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as *Error, wrapping foreign errors as KindFailed.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Kind: KindCancelled, Code: CodeCancelled, Message: "cancelled", Err: err}
	}
	return &Error{Kind: KindFailed, Code: CodeFailed, Message: err.Error(), Err: err}
}

// ExitCode maps an error onto copse's exit codes: 0 done, 1 refused or failed,
// 2 bad input, 3 uncertain, 130 cancelled.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	switch AsError(err).Kind {
	case KindUsage:
		return 2
	case KindUncertain:
		return 3
	case KindCancelled:
		return 130
	default:
		return 1
	}
}
