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
	// Hooks installs copse's hooks into an agent's settings (claude, codex, gemini,
	// opencode); with Uninstall it removes exactly them.
	Hooks, Uninstall bool
}

// NewCmdInit builds `copse init bash|zsh|fish|pi|omp`.
func NewCmdInit(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{}
	targets := append(assets.Shells(), "pi", "omp", "claude", "codex", "gemini", "opencode")
	shells := strings.Join(assets.Shells(), ", ")
	cmd := &cobra.Command{
		Use:   "init " + strings.Join(targets, "|") + " [--install [--force] | --hooks [--uninstall]]",
		Short: "Print the shell integration, or the pi or omp extension (/worktree); install an agent's hooks",
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
~/.omp/agent/extensions); its extension adds the herdr_worktree tool.

copse init claude|codex|gemini|opencode --hooks installs copse's hooks into the agent's
settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json, an opencode
plugin), merged with your own hooks, so the agent reports its state (working, needs you,
idle) to copse list --status and the picker; --uninstall removes exactly copse's.`,
		ValidArgs: targets,
		Args:      exactArgs(1, "a shell ("+shells+"), pi, omp, or an agent for --hooks"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if opts.Hooks || opts.Uninstall {
				if !opts.Hooks || opts.Install || opts.Force {
					return usagef("usage: copse init claude|codex|gemini|opencode --hooks [--uninstall]", "--uninstall goes with --hooks (and --hooks not with --install or --force)")
				}
				if runF != nil {
					return runF(cmd.Context(), opts)
				}
				return initHooks(f, opts.Target, opts.Uninstall)
			}
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
			if _, isAgent := hookHosts[opts.Target]; isAgent || opts.Target == "opencode" {
				return usagef("usage: copse init "+opts.Target+" --hooks [--uninstall]", "copse init %s needs --hooks (it installs the agent's hooks; there is no script to print)", opts.Target)
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
	cmd.Flags().BoolVar(&opts.Hooks, "hooks", false, "claude, codex, gemini, opencode: install copse's hooks into the agent's settings")
	cmd.Flags().BoolVar(&opts.Uninstall, "uninstall", false, "with --hooks: remove copse's hooks")
	return cmd
}
