package core

import (
	"os"
	"strings"

	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/copse-dev/copse/internal/textsafe"
)

// BuilderErr: a builder refusing a value the parsers accepted is a bug, reported as bad input.
func BuilderErr(err error) *Error {
	return &Error{Kind: KindUsage, Code: CodeBadArgument, Err: err, Message: Escape(err.Error()),
		Hint: "this value passed copse's parser but not the command builder; please report it"}
}

// QuoteDisplay quotes a value for display exactly as the builders' String() does: safe
// words bare, others single-quoted, and control characters or bidirectional marks as
// $'…' escapes, so the text reads back as the same argument and cannot forge lines.
func QuoteDisplay(p string) string { return textsafe.ShellQuote(p) }

func BaseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// isCopse reports a pane's program that is copse: this process, or another copse's.
func IsCopse(fg liveproc.Foreground) bool {
	return fg.PID == os.Getpid() || fg.Name == "copse" || fg.Name == "copse-mcp"
}

func TmuxText(s string, max int) string { return HerdrText(s, max) }

// herdrText makes text from Herdr safe for one line: escaped and cut to max cells.
func HerdrText(s string, max int) string {
	if s == "" {
		return `""`
	}
	return textsafe.Cut(Escape(s), max)
}
