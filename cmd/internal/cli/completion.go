package cli

import (
	"context"
	"io"
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
		Long: `Print the completion script for a shell. Commands, flags, and for switch, remove, setup,
claim, release and land the branches and paths of existing worktrees complete;
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
				if err := root.GenBashCompletionV2(f.Out, true); err != nil {
					return err
				}
				_, err := io.WriteString(f.Out, bashWithoutPackage)
				return err
			case "zsh":
				return root.GenZshCompletion(f.Out)
			case "fish":
				return root.GenFishCompletion(f.Out, true)
			}
			return usagef("usage: "+cmd.UseLine(), "unknown shell %q: copse completes bash, zsh and fish", core.Escape(args[0]))
		}),
	}
}

// bashWithoutPackage lets the bash script work where the bash-completion package is not
// loaded (a minimal container, macOS's bash): cobra's script then calls
// _get_comp_words_by_ref, which that package defines, and bash prints "command not
// found" on every tab. (Its other helper, _filedir, is called only for directory and
// extension filters, which no copse flag uses; files complete through `complete -o default`.) The fallback splits the line up to the cursor on
// blanks only, so "id:feat" and "--flag=value" stay one word as bash-completion's
// "-n =:" keeps them. It is decided at each tab, so a package loaded later still wins.
const bashWithoutPackage = `
# Without the bash-completion package: split the line up to the cursor on blanks.
__copse_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT}
    read -r -a words <<< "$line"
    [[ -z $line || $line == *[[:blank:]] ]] && words+=("")
    cword=$(( ${#words[@]} - 1 ))
    cur=${words[cword]}
    prev=${words[cword-1]-}
}
`

// completeWith is the frame of every completion of a command's first argument: open the
// service, ask suggest for candidates of what was typed. Completion must never print an
// error into the shell, so any failure completes nothing.
func completeWith(f *Factory, suggest func(ctx context.Context, svc *core.Service, typed string) ([]cobra.Completion, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := completionContext(cmd)
		svc, err := f.open(ctx)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out, err := suggest(ctx, svc, toComplete)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeWorktrees completes a TARGET: the branch of every linked worktree and the path
// of every worktree.
func completeWorktrees(f *Factory) cobra.CompletionFunc {
	return completeWith(f, func(ctx context.Context, svc *core.Service, typed string) ([]cobra.Completion, error) {
		l, err := svc.List(ctx, false)
		if err != nil {
			return nil, err
		}
		var out []cobra.Completion
		for _, w := range l.Worktrees {
			if w.Bare {
				continue
			}
			if w.Branch != "" && strings.HasPrefix(w.Branch, typed) {
				out = append(out, cobra.CompletionWithDesc(w.Branch, w.Path))
			}
			if strings.HasPrefix(w.Path, typed) {
				desc := w.Branch
				if desc == "" {
					desc = "detached " + short(w.Head)
				}
				out = append(out, cobra.CompletionWithDesc(w.Path, desc))
			}
		}
		return out, nil
	})
}

// completeBranches completes create's BRANCH: local branches and remote-tracking ones.
func completeBranches(f *Factory) cobra.CompletionFunc {
	return completeWith(f, func(ctx context.Context, svc *core.Service, typed string) ([]cobra.Completion, error) {
		names, err := svc.AllBranches(ctx)
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, typed) {
				out = append(out, n)
			}
		}
		return out, err
	})
}

func completionContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
