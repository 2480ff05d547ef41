package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// ldflagsVersion is the one package variable: the linker sets it at build time
// (go build -ldflags "-X github.com/copse-dev/copse/cmd/internal/cli.ldflagsVersion=v1.2.3");
// nothing assigns it at run time.
var ldflagsVersion = ""

func version() string {
	if ldflagsVersion != "" {
		return ldflagsVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// buildIdentity is version() with the commit the binary was built from, when Go recorded
// one (vcs.revision, and "+dirty" for uncommitted changes): copse and copse-mcp built from
// the same source agree on it. Builds without version or VCS stamps all say "dev".
func buildIdentity() string {
	id := version()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return id
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		id += " " + rev + dirty
	}
	return id
}

// NewCmdVersion builds `copse version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print copse's version",
		Args:  noArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			if f.Global.JSON {
				return f.writeJSON(map[string]string{"version": version(), "go": runtime.Version()})
			}
			_, err := fmt.Fprintf(f.Out, "copse %s (%s)\n", version(), runtime.Version())
			return err
		}),
	}
}
