package cli

import (
	"context"
	"fmt"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// SetupOptions are `copse setup`'s inputs.
type SetupOptions struct {
	Target string // "" = the worktree copse runs in
}

// NewCmdSetup builds `copse setup [TARGET]`.
func NewCmdSetup(f *Factory, runF func(context.Context, *SetupOptions) error) *cobra.Command {
	opts := &SetupOptions{}
	cmd := &cobra.Command{
		Use:   "setup [TARGET]",
		Short: "Copy the copse.copy files and run the copse.setup steps in a worktree again",
		Long: `Set a worktree up like the main checkout, as create does: copy the untracked or ignored
files git config copse.copy names from the main checkout (never overwriting), then run the
git config copse.setup commands in it, in order, their output on stderr. Each step runs
with sh -c in its own process group, with a time limit (git config copse.setupTimeout,
default 10m); ctrl+c stops it. .worktreeinclude and .copse.conf apply as in create: a
.copse.conf command runs only once a person approved it (asked here on a terminal). TARGET is a branch, the absolute path of a worktree or id:ID; without
it, the worktree copse runs in.`,
		Args: maxArgs(1, "at most one TARGET"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Target = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return setupRun(cmd.Context(), f, opts)
		}),
	}
	return cmd
}

func setupRun(ctx context.Context, f *Factory, opts *SetupOptions) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	var path, branch, id *string
	if opts.Target != "" {
		path, branch, id = splitTargetID(opts.Target)
	}
	if id != nil {
		p, err := svc.PathOfID(ctx, *id)
		if err != nil {
			return err
		}
		path = &p
	}
	dest, err := svc.SetupTarget(ctx, path, branch)
	if err != nil {
		return relativeHint(err, opts.Target)
	}
	cfg, err := svc.SetupConfig(ctx)
	if err != nil {
		return err
	}
	if cfg.Empty() {
		return &core.Error{Kind: core.KindRefused, Code: core.CodeNoSetupConfigured,
			Message: "nothing to set up: git config has no copse.copy and no copse.setup, and there is no .worktreeinclude or .copse.conf",
			Hint:    "add some, e.g. git config --add copse.copy '.env*' and git config --add copse.setup 'npm ci'"}
	}
	if err := f.projectApproved(ctx, svc, cfg, "runs `copse setup "+textsafe.ShellQuote(dest)+"` again"); err != nil {
		return err
	}
	rep, err := f.runSetup(ctx, svc, dest, cfg)
	if err != nil {
		return err
	}
	if f.Global.JSON {
		return f.writeJSON(rep)
	}
	fmt.Fprintf(f.Out, "set up %s\n", f.displayPath(dest))
	return nil
}
