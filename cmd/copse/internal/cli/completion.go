package cli

import (
	"context"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// NewCmdCompletion builds `copse completion bash|zsh|fish`: cobra's completion scripts,
// which ask `copse __complete` for commands, flags and, for the verbs that name a
// worktree, the branches and paths of the worktrees that exist.
func NewCmdCompletion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. Commands, flags, and for switch, remove, open,
setup (and the lifecycle verbs) the branches and paths of existing worktrees complete;
create completes local and remote branches.

  bash (~/.bashrc):                   source <(copse completion bash)
  zsh (~/.zshrc, after compinit):     source <(copse completion zsh)
  fish:                               copse completion fish > ~/.config/fish/completions/copse.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      exactArgs(1, "a shell: bash, zsh or fish"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(f.Out, true)
			case "zsh":
				return root.GenZshCompletion(f.Out)
			case "fish":
				return root.GenFishCompletion(f.Out, true)
			}
			return usagef("usage: "+cmd.UseLine(), "unknown shell %q: copse completes bash, zsh and fish", core.Escape(args[0]))
		}),
	}
}

// completeWorktrees completes a TARGET: the branch of every linked worktree and the path
// of every worktree. Completion must never print an error into the shell, so a failure
// completes nothing.
func completeWorktrees(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		svc, err := f.open(completionContext(cmd))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		l, err := svc.List(completionContext(cmd), false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, w := range l.Worktrees {
			if w.Bare {
				continue
			}
			if w.Branch != "" && strings.HasPrefix(w.Branch, toComplete) {
				out = append(out, cobra.CompletionWithDesc(w.Branch, w.Path))
			}
			if strings.HasPrefix(w.Path, toComplete) {
				desc := w.Branch
				if desc == "" {
					desc = "detached " + short(w.Head)
				}
				out = append(out, cobra.CompletionWithDesc(w.Path, desc))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeBranches completes create's BRANCH: local branches and remote-tracking ones.
func completeBranches(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		svc, err := f.open(completionContext(cmd))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names, err := svc.AllBranches(completionContext(cmd))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func completionContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
