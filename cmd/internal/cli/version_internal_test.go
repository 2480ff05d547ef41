package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// A release build's linker stamps win over what Go recorded, and the line names all three.
// Not parallel (nor the next one): the stamps are package variables the test sets.
func TestVersionFromLinkerStamps(t *testing.T) {
	defer func(v, c, d string) { ldflagsVersion, ldflagsCommit, ldflagsDate = v, c, d }(ldflagsVersion, ldflagsCommit, ldflagsDate)
	ldflagsVersion, ldflagsCommit, ldflagsDate = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"
	b := readBuildInfo()
	if b.Version != "v1.2.3" || b.Commit != ldflagsCommit || b.Date != ldflagsDate || b.Go != runtime.Version() {
		t.Fatalf("build info %+v", b)
	}
	want := "copse v1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z, " + runtime.Version() + ")\n"
	if got := versionLine(); got != want {
		t.Fatalf("version line %q, want %q", got, want)
	}
	if got := buildIdentity(); got != "v1.2.3 "+ldflagsCommit {
		t.Fatalf("build identity %q", got)
	}
	ldflagsCommit = "0123456789abcdef0123456789abcdef01234567+dirty"
	if got := versionLine(); !strings.Contains(got, "commit 0123456789ab+dirty,") {
		t.Fatalf("dirty build's line %q", got)
	}
}

// Without stamps the version is "dev" and nothing is made up.
func TestVersionWithoutStamps(t *testing.T) {
	defer func(v, c, d string) { ldflagsVersion, ldflagsCommit, ldflagsDate = v, c, d }(ldflagsVersion, ldflagsCommit, ldflagsDate)
	ldflagsVersion, ldflagsCommit, ldflagsDate = "", "", ""
	b := readBuildInfo()
	if b.Version == "" || b.Go != runtime.Version() {
		t.Fatalf("build info %+v", b)
	}
	if b.Commit == "" && strings.Contains(versionLine(), "commit") {
		t.Fatalf("line names a commit nobody recorded: %q", versionLine())
	}
}

// A build without the linker's date (go install, go build) shows Go's VCS time as the
// commit's, never as the build's; a release build shows both, each named.
func TestVersionNamesTheCommitTimeAsTheCommits(t *testing.T) {
	defer func(v, c, d string) { ldflagsVersion, ldflagsCommit, ldflagsDate = v, c, d }(ldflagsVersion, ldflagsCommit, ldflagsDate)
	ldflagsVersion, ldflagsCommit, ldflagsDate = "", "", ""
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-01T10:00:00Z"},
	}}
	b := buildInfoFrom(bi, true)
	if b.Date != "" || b.CommitDate != "2026-01-01T10:00:00Z" {
		t.Fatalf("the commit's time taken for the build's: %+v", b)
	}
	line := versionLineOf(b)
	if !strings.Contains(line, "commit 0123456789ab of 2026-01-01T10:00:00Z,") || strings.Contains(line, "built") {
		t.Fatalf("version line %q", line)
	}
	ldflagsDate = "2026-02-03T04:05:06Z"
	line = versionLineOf(buildInfoFrom(bi, true))
	if !strings.Contains(line, "commit 0123456789ab of 2026-01-01T10:00:00Z, built 2026-02-03T04:05:06Z,") {
		t.Fatalf("release build's line %q", line)
	}
}
