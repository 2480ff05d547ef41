package gitx

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// BuildError is returned by a builder instead of a Cmd when a value is unsafe
// to hand to git. core validates values first; this is the last line, so a
// bug elsewhere cannot turn a value into an option or a different path.
type BuildError struct {
	Action string // the git subcommand, e.g. "worktree add"
	Reason string // which value was refused and why; the value is quoted
}

func (e *BuildError) Error() string {
	return "gitx: refusing to build git " + e.Action + ": " + e.Reason
}

// check returns a *BuildError for the first non-empty reason.
func check(action string, reasons ...string) error {
	for _, r := range reasons {
		if r != "" {
			return &BuildError{Action: action, Reason: r}
		}
	}
	return nil
}

func checkDir(dir string) string { return checkPath("dir", dir) }

// checkPath: paths may hold any byte but NUL (git stores them as C strings),
// must be absolute so they never depend on the process's working directory,
// and must be clean so that "/a/../b" cannot disguise where it points.
func checkPath(field, p string) string {
	switch {
	case p == "":
		return field + " is empty"
	case strings.IndexByte(p, 0) >= 0:
		return field + " " + strconv.Quote(p) + " contains a NUL byte"
	case !filepath.IsAbs(p):
		return field + " " + strconv.Quote(p) + " is not absolute"
	case filepath.Clean(p) != p:
		return field + " " + strconv.Quote(p) + " is not clean (want " + strconv.Quote(filepath.Clean(p)) + ")"
	}
	return ""
}

// checkRef is for any revision or name: not empty, no control characters or
// bidirectional marks (they can disguise what is shown to a user), and no
// leading '-' (it would be parsed as an option where git lacks --end-of-options).
func checkRef(field, v string) string {
	switch {
	case v == "":
		return field + " is empty"
	case textsafe.HiddenKind(v) != "":
		return field + " " + strconv.Quote(v) + " contains " + textsafe.HiddenKind(v)
	case v[0] == '-':
		return field + " " + strconv.Quote(v) + " starts with '-'"
	}
	return ""
}

// checkBranch adds git's own rules for a name under refs/heads/ (see
// git-check-ref-format(1)). core runs the real `git check-ref-format --branch`;
// repeating the rules here means a builder can never receive a glob character
// (which matters in UniqueCommitCount's --exclude pattern) or a name like
// "a..b" that git would read as a range.
func checkBranch(field, v string) string {
	if r := checkRef(field, v); r != "" {
		return r
	}
	bad := func(why string) string { return field + " " + strconv.Quote(v) + " " + why }
	if i := strings.IndexAny(v, " ~^:?*[\\"); i >= 0 {
		return bad("contains " + strconv.QuoteRune(rune(v[i])))
	}
	switch {
	case strings.Contains(v, ".."):
		return bad("contains \"..\"")
	case strings.Contains(v, "@{"):
		return bad("contains \"@{\"")
	case strings.HasSuffix(v, "."):
		return bad("ends with '.'")
	}
	for _, comp := range strings.Split(v, "/") {
		switch {
		case comp == "":
			return bad("has an empty path component")
		case comp[0] == '.':
			return bad("has a component starting with '.'")
		case strings.HasSuffix(comp, ".lock"):
			return bad("has a component ending with \".lock\"")
		}
	}
	return ""
}

// checkOID accepts a full lowercase object id, SHA-1 or SHA-256, as git prints it.
func checkOID(field, v string) string {
	if !isOID(v) {
		return field + " " + strconv.Quote(v) + " is not a full object id"
	}
	return ""
}

func checkConfigKey(key string) string {
	if r := checkRef("key", key); r != "" {
		return r
	}
	if i := strings.IndexByte(key, '.'); i <= 0 || i == len(key)-1 {
		return "key " + strconv.Quote(key) + " is not of the form section.name"
	}
	return ""
}

func isOID(v string) bool {
	if len(v) != 40 && len(v) != 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
