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
	Target  string // a shell, "pi" or "omp"
	Install bool   // pi, omp: write the extension into the agent's extensions folder
	Force   bool   // pi, omp: replace a copy the user changed
}

// NewCmdInit builds `copse init bash|zsh|fish|pi|omp`.
func NewCmdInit(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{}
	targets := append(assets.Shells(), "pi", "omp")
	shells := strings.Join(assets.Shells(), ", ")
	cmd := &cobra.Command{
		Use:   "init " + strings.Join(targets, "|") + " [--install [--force]]",
		Short: "Print the shell integration, or the pi or omp extension (/worktree)",
		Long: `Print a shell function named copse that runs this binary and changes to the worktree
it hands back (switch, back, the picker). Add to your shell's startup file:

  bash (~/.bashrc):                eval "$(command copse init bash)"
  zsh (~/.zshrc):                  eval "$(command copse init zsh)"
  fish (~/.config/fish/config.fish): command copse init fish | source

The directory you left is kept in a shell variable (never on disk) for copse back.

copse init pi prints the pi extension (the /worktree command and git_worktree_* tools);
copse init pi --install writes it to pi's extensions folder ($PI_CODING_AGENT_DIR/extensions,
by default ~/.pi/agent/extensions). A copy you changed is kept unless --force.

copse init omp [--install [--force]] does the same for Oh My Pi (default
~/.omp/agent/extensions); its extension adds the herdr_worktree tool.`,
		ValidArgs: targets,
		Args:      exactArgs(1, "a shell ("+shells+"), pi or omp"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			agent := opts.Target == "pi" || opts.Target == "omp"
			if (opts.Install || opts.Force) && !agent {
				return usagef("usage: copse init pi|omp --install [--force]", "--install and --force are for pi and omp, not %s", core.Escape(opts.Target))
			}
			if opts.Force && !opts.Install {
				return usagef("usage: copse init "+opts.Target+" --install --force", "--force needs --install")
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
			if opts.Target == "omp" {
				if opts.Install {
					return installOmp(f, opts.Force)
				}
				_, err := f.Out.Write(assets.OmpExtension())
				return err
			}
			script, ok := assets.Shell(opts.Target)
			if !ok {
				return &core.Error{Kind: core.KindUsage, Code: core.CodeUnknownShell,
					Message: "no shell integration for " + core.Escape(opts.Target),
					Hint:    "use one of: " + shells + " (or pi, omp for the agent extensions)"}
			}
			_, err := f.Out.Write(script)
			return err
		}),
	}
	cmd.Flags().BoolVar(&opts.Install, "install", false, "pi, omp: write the extension into the agent's extensions folder")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "pi, omp: with --install, replace a copy you changed")
	return cmd
}
