package cli

import (
	"context"
	"strings"

	"github.com/copse-dev/copse/assets"
	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// InitOptions are `copse init`'s inputs.
type InitOptions struct {
	Shell string
}

// NewCmdInit builds `copse init bash|zsh|fish`.
func NewCmdInit(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{}
	shells := strings.Join(assets.Shells(), "|")
	return &cobra.Command{
		Use:   "init " + shells,
		Short: "Print the shell integration: a copse function that changes directory on switch and back",
		Long: `Print a shell function named copse that runs this binary and changes to the worktree
it hands back (switch, back, the picker). Add to your shell's startup file:

  bash (~/.bashrc):                eval "$(command copse init bash)"
  zsh (~/.zshrc):                  eval "$(command copse init zsh)"
  fish (~/.config/fish/config.fish): command copse init fish | source

The directory you left is kept in a shell variable (never on disk) for copse back.`,
		ValidArgs: assets.Shells(),
		Args:      exactArgs(1, "a shell: "+strings.ReplaceAll(shells, "|", ", ")),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Shell = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			script, ok := assets.Shell(opts.Shell)
			if !ok {
				return &core.Error{Kind: core.KindUsage, Code: "unknown_shell",
					Message: "no shell integration for " + core.Escape(opts.Shell),
					Hint:    "use one of: " + strings.ReplaceAll(shells, "|", ", ")}
			}
			_, err := f.Out.Write(script)
			return err
		}),
	}
}
