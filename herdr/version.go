package herdr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Version is a Herdr release as printed by `herdr --version`.
type Version struct {
	Major, Minor, Patch int
	Raw                 string // the version as printed, suffix included: "0.8.2-preview.17"
}

// MinVersion is the oldest Herdr copse drives: the release the protocol reference was
// verified against (the worktree CLI exists since 0.6.2, existing-branch checkout and the
// non-blocking server since 0.7.1).
var MinVersion = Version{Major: 0, Minor: 8, Patch: 2}

// versionRE accepts "herdr X.Y.Z" with an optional pre-release or build suffix
// (preview builds print "0.8.2-preview.<id>" or "0.8.2-<channel>"). Components are
// limited to 9 digits so Atoi cannot overflow.
// It is compiled on first use: every copse start would otherwise pay for it, and only
// runs inside Herdr need it.
var versionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^herdr\s+([0-9]{1,9})\.([0-9]{1,9})\.([0-9]{1,9})([-+][0-9A-Za-z.+-]*)?$`)
})

// ParseVersion reads the output of `herdr --version`, e.g. "herdr 0.8.2\n" or
// "herdr 0.8.2-preview.17". Surrounding white space is ignored; anything else is an error.
func ParseVersion(out string) (Version, error) {
	line := strings.TrimSpace(out)
	m := versionRE().FindStringSubmatch(line)
	if m == nil {
		return Version{}, fmt.Errorf("herdr --version printed %s, want \"herdr X.Y.Z\"", quote(line, 80))
	}
	v := Version{Raw: strings.TrimSpace(strings.TrimPrefix(line, "herdr"))}
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	return v, nil
}

// Less orders by major, minor, patch. The suffix is ignored on purpose: a preview build
// of 0.8.2 carries 0.8.2's CLI, so it must pass a ">= 0.8.2" gate (semver would rank it
// below 0.8.2).
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// String is the version as Herdr printed it, or X.Y.Z when it was not parsed.
func (v Version) String() string {
	if v.Raw != "" {
		return v.Raw
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}
