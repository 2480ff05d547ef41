package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// The linker sets these at build time (a release build passes
// -ldflags "-X github.com/copse-dev/copse/cmd/internal/cli.ldflagsVersion=v1.2.3
// -X ….ldflagsCommit=<sha> -X ….ldflagsDate=<RFC 3339>"); nothing assigns them at run time.
// Builds without them fall back to what Go recorded (debug.ReadBuildInfo).
var (
	ldflagsVersion = ""
	ldflagsCommit  = ""
	ldflagsDate    = ""
)

// buildInfo is what `copse version` reports: the version, the commit the binary was built
// from ("+dirty" when the tree had uncommitted changes), when it was built (known only
// from the linker's stamp: a release build), when that commit was made (Go's VCS stamp),
// and with which Go.
type buildInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	Date       string `json:"date"` // the build's date; "" when no linker stamp says it
	CommitDate string `json:"commit_date,omitempty"`
	Go         string `json:"go"`
}

// readBuildInfo prefers the linker's stamps, then Go's module and VCS stamps; a value
// nobody recorded is "" (the version is "dev").
func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	return buildInfoFrom(bi, ok)
}

// buildInfoFrom is readBuildInfo from what Go recorded (bi, when ok). The commit's time
// is never passed off as the build's: a binary built today from last month's commit
// says both.
func buildInfoFrom(bi *debug.BuildInfo, ok bool) buildInfo {
	b := buildInfo{Version: ldflagsVersion, Commit: ldflagsCommit, Date: ldflagsDate, Go: runtime.Version()}
	if ok && b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	if ok {
		var rev, at, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if b.Commit == "" && rev != "" {
			b.Commit = rev + dirty
		}
		b.CommitDate = at
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

func version() string { return readBuildInfo().Version }

// buildIdentity is the version with the commit the binary was built from: copse and
// copse-mcp built from the same source agree on it. Builds without version or VCS stamps
// all say "dev".
func buildIdentity() string {
	b := readBuildInfo()
	if b.Commit == "" {
		return b.Version
	}
	return b.Version + " " + b.Commit
}

// versionLine is the one line `copse version` and `copse --version` print:
// "copse v1.2.3 (commit 0123456789ab of 2026-01-01T10:00:00Z, built 2026-01-02T03:04:05Z, go1.26.8)".
func versionLine() string { return versionLineOf(readBuildInfo()) }

func versionLineOf(b buildInfo) string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if sha, dirty, ok := strings.Cut(c, "+"); ok && len(sha) > 12 {
			c = sha[:12] + "+" + dirty
		} else if len(c) > 12 && !ok {
			c = c[:12]
		}
		if b.CommitDate != "" {
			c += " of " + b.CommitDate
		}
		parts = append(parts, "commit "+c)
	} else if b.CommitDate != "" {
		parts = append(parts, "committed "+b.CommitDate)
	}
	if b.Date != "" {
		parts = append(parts, "built "+b.Date)
	}
	parts = append(parts, b.Go)
	return fmt.Sprintf("copse %s (%s)\n", b.Version, strings.Join(parts, ", "))
}

// NewCmdVersion builds `copse version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print copse's version, commit and its date, and the build date where known (--json for scripts)",
		Args:  noArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			if f.Global.JSON {
				return f.writeJSON(readBuildInfo())
			}
			_, err := fmt.Fprint(f.Out, versionLine())
			return err
		}),
	}
}
