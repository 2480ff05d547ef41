package core

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/copse-dev/copse/internal/textsafe"
)

// The typed values a command is made of. Each has an unexported field, so the only way to
// get one is through its parser: a plain string fits nowhere in a command.

// BranchName is a local branch name as git resolved it (`@{-1}` becomes the real name).
type BranchName struct{ s string }

// BaseCommit is the ref a new branch starts from and the commit it named when parsed; the
// OID travels with it so a ref that moves before the create is noticed.
type BaseCommit struct {
	Ref string
	OID string
}

// AbsPath is an absolute, cleaned path.
type AbsPath struct{ s string }

// Label is a Herdr workspace label.
type Label struct{ s string }

// WorkspaceID is an opaque Herdr workspace id: "w" + 1-16 letters or digits.
type WorkspaceID struct{ s string }

func (b BranchName) String() string  { return b.s }
func (p AbsPath) String() string     { return p.s }
func (l Label) String() string       { return l.s }
func (w WorkspaceID) String() string { return w.s }

// IsZero reports an absent optional value.
func (p AbsPath) IsZero() bool { return p.s == "" }
func (l Label) IsZero() bool   { return l.s == "" }

// Limits of each value, in characters (runes).
const (
	MaxBranch = 255
	maxPath   = 4096
	maxLabel  = 120
	maxRef    = 255
)

// CheckText applies the rules every raw value obeys before anything else looks at it:
// valid UTF-8, no control characters, no bidirectional marks, not padded with spaces,
// no leading '-', and a length limit. field names the request field in the message.
func CheckText(field, raw string, maxLen int) error {
	hint := fmt.Sprintf("pass a plain %s", field)
	if raw == "" {
		return Usage(CodeEmptyValue, field, hint, "%s is empty", field)
	}
	if !utf8.ValidString(raw) {
		return Usage("invalid_utf8", field, hint, "%s %s is not valid UTF-8", field, Quote(raw))
	}
	for _, r := range raw {
		switch {
		case textsafe.IsControl(r):
			return Usage(CodeControlCharacter, field, hint+" without control characters",
				"%s %s contains a control character (%s)", field, Quote(raw), Escape(string(r)))
		case textsafe.IsBidi(r):
			return Usage(CodeBidiMark, field, hint+" without bidirectional marks",
				"%s %s contains a bidirectional mark (%s), which can disguise what is shown", field, Quote(raw), Escape(string(r)))
		case textsafe.IsInvisibleSeparator(r):
			return Usage(CodeInvisibleCharacter, field, hint, "%s %s contains an invisible separator (%s)", field, Quote(raw), Escape(string(r)))
		}
	}
	if strings.TrimSpace(raw) != raw {
		return Usage(CodeUntrimmedValue, field, "remove the leading or trailing spaces", "%s %s starts or ends with white space", field, Quote(raw))
	}
	if strings.HasPrefix(raw, "-") {
		return Usage(CodeLeadingDash, field, fmt.Sprintf("a %s may not start with '-' (it would be read as an option)", field),
			"%s %s starts with '-'", field, Quote(raw))
	}
	if n := utf8.RuneCountInString(raw); n > maxLen {
		return Usage(CodeTooLong, field, fmt.Sprintf("use at most %d characters", maxLen),
			"%s is %d characters long (limit %d)", field, n, maxLen)
	}
	return nil
}

// GitsBranch is a branch name git itself recorded (a worktree list, a land record copse
// wrote from one): already git's, and so not parsed again as typed input is.
func GitsBranch(name string) BranchName { return BranchName{name} }

// GitsPath is a path git itself recorded (a worktree list, a restore record): absolute and
// clean as git wrote it, and so not parsed as typed input is (it may hold a newline, which
// a typed path may not).
func GitsPath(p string) AbsPath { return AbsPath{p} }

// ParseAbsPath accepts an absolute path with no `.`/`..` segments and no repeated or
// trailing separators, i.e. a path that is already clean: copse never guesses what a
// relative or unclean path was meant to name.
func ParseAbsPath(field, raw string) (AbsPath, error) {
	if err := CheckText(field, raw, maxPath); err != nil {
		return AbsPath{}, err
	}
	if !filepath.IsAbs(raw) {
		return AbsPath{}, Usage(CodeRelativePath, field, "pass an absolute path, e.g. "+filepath.Join("/", "src", "app.worktrees", "feat-x"),
			"%s %s is not absolute", field, Quote(raw))
	}
	for _, seg := range strings.Split(raw, "/") {
		if seg == "." || seg == ".." {
			return AbsPath{}, Usage(CodeDotSegment, field, "pass the path without '.' or '..' segments",
				"%s %s has a %s segment", field, Quote(raw), Quote(seg))
		}
	}
	if clean := filepath.Clean(raw); clean != raw {
		return AbsPath{}, Usage(CodeUncleanPath, field, "pass "+Quote(clean), "%s %s is not a clean path", field, Quote(raw))
	}
	return AbsPath{raw}, nil
}

// ParseLabel accepts 1-120 characters of plain text.
func ParseLabel(raw string) (Label, error) {
	if err := CheckText("label", raw, maxLabel); err != nil {
		return Label{}, err
	}
	return Label{raw}, nil
}

// ParseWorkspaceID accepts "w" followed by 1-16 ASCII letters or digits.
func ParseWorkspaceID(raw string) (WorkspaceID, error) {
	if err := CheckText("workspace_id", raw, 17); err != nil {
		return WorkspaceID{}, err
	}
	ok := len(raw) >= 2 && len(raw) <= 17 && raw[0] == 'w'
	for i := 1; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if !ok {
		return WorkspaceID{}, Usage(CodeBadWorkspaceID, "workspace_id", "use the id `copse list --json` shows, e.g. wG",
			"workspace_id %s is not a Herdr workspace id", Quote(raw))
	}
	return WorkspaceID{raw}, nil
}

// BranchSlug turns a branch into a directory name: lower case, runs of anything but ASCII
// letters and digits collapsed to '-', trimmed; "worktree" if nothing is left.
func BranchSlug(branch string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(branch) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "worktree"
	}
	return s
}
