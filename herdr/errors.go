package herdr

import (
	"fmt"
	"strings"
)

// ErrKind says how a herdr run failed, which decides what core may conclude about it.
type ErrKind int

const (
	// ErrReply: herdr answered with its JSON error envelope (exit 1). Code and Message are
	// set. Herdr refused or failed; the request did not take effect.
	ErrReply ErrKind = iota + 1
	// ErrUsage: herdr rejected the arguments (exit 2). The builder should make this
	// impossible, so it is a bug in copse (or a Herdr whose CLI changed).
	ErrUsage
	// ErrWrongReply: exit 0, but the reply is not JSON, has no result, or has another type
	// than the request asks for. Herdr may have done something: the outcome is uncertain.
	ErrWrongReply
	// ErrTimeout: copse's timeout killed herdr. Herdr's server keeps going after its CLI
	// dies, so the outcome is uncertain; core reconciles by listing.
	ErrTimeout
	// ErrCanceled: the caller's context ended (cancel or its own deadline).
	ErrCanceled
	// ErrExec: herdr could not be started, was killed by a signal, or failed without a
	// JSON error envelope (non-JSON stderr, or no error text at all).
	ErrExec
	// ErrOutputLimit: stdout or stderr passed the output cap; the reply is lost.
	ErrOutputLimit
)

func (k ErrKind) String() string {
	names := map[ErrKind]string{ErrReply: "reply", ErrUsage: "usage", ErrWrongReply: "wrong_reply",
		ErrTimeout: "timeout", ErrCanceled: "canceled", ErrExec: "exec", ErrOutputLimit: "output_limit"}
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("ErrKind(%d)", int(k))
}

// Error is every failure of a herdr run (builder refusals are *ArgError instead).
type Error struct {
	Kind     ErrKind
	Code     string // Herdr's error code (ErrReply), e.g. "linked_worktree_source"
	Message  string // Herdr's message (ErrReply), or what went wrong
	ExitCode int    // -1 when the process did not exit by itself
	Stderr   string // raw stderr, as herdr wrote it
	Argv     []string
	Started  bool // the process was started: a mutation may have reached Herdr's server
	Err      error
}

func (e *Error) Error() string {
	what := "herdr"
	if len(e.Argv) >= 3 && (e.Argv[1] == "worktree" || e.Argv[1] == "workspace") {
		what = "herdr " + e.Argv[1] + " " + e.Argv[2]
	}
	msg := sanitize(e.Message, 500)
	switch e.Kind {
	case ErrReply:
		return fmt.Sprintf("%s failed: %s: %s", what, sanitize(e.Code, 80), msg)
	case ErrUsage:
		return fmt.Sprintf("%s rejected its arguments (exit 2), a bug in copse: %s", what, msg)
	case ErrWrongReply:
		return fmt.Sprintf("%s: unexpected reply: %s; whether it took effect is unknown", what, msg)
	case ErrTimeout:
		return fmt.Sprintf("%s %s and was stopped; whether it took effect is unknown", what, msg)
	case ErrCanceled:
		if e.Started {
			return fmt.Sprintf("%s was canceled while running; whether it took effect is unknown", what)
		}
		return fmt.Sprintf("%s was canceled before it started", what)
	default:
		return fmt.Sprintf("%s: %s", what, msg)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Uncertain reports that the request may or may not have taken effect, so core must
// reconcile with `worktree list` and git instead of assuming nothing changed: a timeout,
// a cancel after the process started, and a success exit whose reply was lost or could
// not be trusted (wrong reply, output cap).
func (e *Error) Uncertain() bool {
	switch e.Kind {
	case ErrTimeout, ErrWrongReply:
		return true
	case ErrCanceled, ErrOutputLimit:
		return e.Started
	}
	return false
}

// firstLine is the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
