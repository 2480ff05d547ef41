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
	Target  string // a shell, or "pi"
	Install bool   // pi: write the extension into pi's extensions folder
	Force   bool   // pi: replace a copy the user changed
}

// NewCmdInit builds `copse init bash|zsh|fish|pi`.
func NewCmdInit(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{}
	targets := append(assets.Shells(), "pi")
	shells := strings.Join(assets.Shells(), ", ")
	cmd := &cobra.Command{
		Use:   "init " + strings.Join(targets, "|") + " [--install [--force]]",
		Short: "Print the shell integration, or the pi extension (/worktree)",
		Long: `Print a shell function named copse that runs this binary and changes to the worktree
it hands back (switch, back, the picker). Add to your shell's startup file:

  bash (~/.bashrc):                eval "$(command copse init bash)"
  zsh (~/.zshrc):                  eval "$(command copse init zsh)"
  fish (~/.config/fish/config.fish): command copse init fish | source

The directory you left is kept in a shell variable (never on disk) for copse back.

copse init pi prints the pi extension (the /worktree command and git_worktree_* tools);
copse init pi --install writes it to pi's extensions folder ($PI_CODING_AGENT_DIR/extensions,
by default ~/.pi/agent/extensions). A copy you changed is kept unless --force.`,
		ValidArgs: targets,
		Args:      exactArgs(1, "a shell ("+shells+") or pi"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if (opts.Install || opts.Force) && opts.Target != "pi" {
				return usagef("usage: copse init pi --install [--force]", "--install and --force are for pi, not %s", core.Escape(opts.Target))
			}
			if opts.Force && !opts.Install {
				return usagef("usage: copse init pi --install --force", "--force needs --install")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Target == "pi" {
				if opts.Install {
					return installPi(f, opts.Force)
				}
				_, err := f.Out.Write(assets.PiExtension())
				return err
			}
			script, ok := assets.Shell(opts.Target)
			if !ok {
				return &core.Error{Kind: core.KindUsage, Code: core.CodeUnknownShell,
					Message: "no shell integration for " + core.Escape(opts.Target),
					Hint:    "use one of: " + shells + " (or pi for the pi extension)"}
			}
			_, err := f.Out.Write(script)
			return err
		}),
	}
	cmd.Flags().BoolVar(&opts.Install, "install", false, "pi: write the extension into pi's extensions folder")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "pi: with --install, replace a copy you changed")
	return cmd
}
