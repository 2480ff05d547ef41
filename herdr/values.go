package herdr

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/copse-dev/copse/internal/textsafe"
)

// The builder re-checks every value although core's typed parsers already did: this is
// the last place before a value becomes an argument of another program, and the cheapest
// place to make sure a bug elsewhere cannot smuggle in an option or a disguised string.

// Length limits, in characters, matching core's parsers.
const (
	maxBranch = 255
	maxRef    = 255
	maxPath   = 4096
	maxLabel  = 120
)

// checkText holds for every value: non-empty, valid UTF-8, nothing hidden, not padded,
// no leading '-' (it would read as an option), at most maxLen characters.
func checkText(v string, maxLen int) string {
	switch {
	case v == "":
		return "is empty"
	case !utf8.ValidString(v):
		return "is not valid UTF-8"
	}
	if kind := textsafe.HiddenKind(v); kind != "" {
		return "contains " + kind
	}
	switch {
	case strings.TrimSpace(v) != v:
		return "starts or ends with white space"
	case strings.HasPrefix(v, "-"):
		return "starts with '-' and would be read as an option"
	case utf8.RuneCountInString(v) > maxLen:
		return fmt.Sprintf("is longer than %d characters", maxLen)
	}
	return ""
}

// checkPath also requires an absolute, already clean path: relative paths would resolve
// against whatever directory herdr runs in.
func checkPath(v string) string {
	if why := checkText(v, maxPath); why != "" {
		return why
	}
	if !filepath.IsAbs(v) {
		return "is not an absolute path"
	}
	if filepath.Clean(v) != v {
		return "is not a clean path"
	}
	return ""
}

// checkWorkspaceID requires "w" + 1-16 ASCII letters or digits: Herdr would read a bare
// number as a sidebar position (§3), and nothing else is an id Herdr hands out.
func checkWorkspaceID(v string) string {
	if len(v) < 2 || len(v) > 17 || v[0] != 'w' {
		return "is not a Herdr workspace id (w followed by 1-16 letters or digits)"
	}
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "is not a Herdr workspace id (w followed by 1-16 letters or digits)"
		}
	}
	return ""
}

// quote shows a value in a refusal: escaped, cut to max cells, in double quotes.
func quote(s string, max int) string { return textsafe.Quote(s, max) }

// sanitize makes free text from herdr (error messages, stderr) safe for one terminal line
// while keeping it readable: unsafe runes and new lines are escaped, not dropped, and
// backslashes are kept (the text is not a value anyone must read back).
func sanitize(s string, max int) string {
	return textsafe.Cut(textsafe.EscapeHidden(strings.TrimSpace(s)), max)
}
