package tmux

import (
	"fmt"

	"github.com/copse-dev/copse/internal/textsafe"
)

// ErrKind says how a tmux run failed.
type ErrKind int

const (
	// ErrExit: tmux ran and exited non-zero (a missing target, no server on the socket).
	// Stderr holds its message. tmux checks its targets before acting, so nothing was done.
	ErrExit ErrKind = iota + 1
	// ErrExec: tmux could not be started, or was killed by a signal.
	ErrExec
	// ErrTimeout: copse's timeout stopped tmux; whether the server acted is unknown.
	ErrTimeout
	// ErrCanceled: the caller's context ended.
	ErrCanceled
	// ErrWrongReply: exit 0, but the output does not have the shape asked for.
	ErrWrongReply
	// ErrOutputLimit: stdout or stderr passed MaxOutput; the reply is lost.
	ErrOutputLimit
)

func (k ErrKind) String() string {
	switch k {
	case ErrExit:
		return "exit"
	case ErrExec:
		return "exec"
	case ErrTimeout:
		return "timeout"
	case ErrCanceled:
		return "canceled"
	case ErrWrongReply:
		return "wrong_reply"
	case ErrOutputLimit:
		return "output_limit"
	}
	return fmt.Sprintf("ErrKind(%d)", int(k))
}

// Error is every failure of a tmux run (builder refusals are *ArgError instead).
type Error struct {
	Kind     ErrKind
	Message  string
	ExitCode int // -1 when tmux did not exit by itself
	Stderr   string
	Argv     []string
	Started  bool
	Err      error
}

func (e *Error) Error() string {
	what := "tmux"
	if len(e.Argv) > 3 {
		what = "tmux " + e.Argv[3] // tmux -S SOCKET VERB …
	}
	return what + ": " + textsafe.Cut(textsafe.Escape(e.Message), 300)
}

func (e *Error) Unwrap() error { return e.Err }

// Uncertain reports a run after which the server may have acted without copse knowing.
func (e *Error) Uncertain() bool {
	return e.Kind == ErrTimeout || e.Kind == ErrWrongReply || e.Kind == ErrOutputLimit ||
		(e.Kind == ErrCanceled && e.Started) || (e.Kind == ErrExec && e.Started)
}

// ArgError is a command the builder refused; nothing was run.
type ArgError struct {
	Verb   string
	Arg    string
	Reason string
}

func (e *ArgError) Error() string {
	return "tmux " + e.Verb + ": " + e.Arg + ": " + e.Reason
}
