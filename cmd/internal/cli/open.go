package cli

import (
	"context"
	"fmt"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// OpenOptions are `copse open`'s inputs.
type OpenOptions struct {
	Request core.OpenRequest
	mutation
}

// NewCmdOpen builds `copse open (--path ABS | --branch NAME | --id ID) [--label TEXT] [--focus]`.
func NewCmdOpen(f *Factory, runF func(context.Context, *OpenOptions) error) *cobra.Command {
	opts := &OpenOptions{}
	var path, branch, label, id string
	cmd := &cobra.Command{
		Use:   "open (--path ABS | --branch NAME | --id ID) [--label TEXT] [--focus]",
		Short: "Open an existing worktree in a workspace (Herdr); without Herdr, the same as switch",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			opts.Request.Path = optional(cmd, "path", path)
			opts.Request.Branch = optional(cmd, "branch", branch)
			opts.Request.ID = optional(cmd, "id", id)
			opts.Request.Label = optional(cmd, "label", label)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return openRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&path, "path", "", "the worktree at absolute `PATH`")
	fl.StringVar(&branch, "branch", "", "the worktree that has `NAME` checked out")
	fl.StringVar(&id, "id", "", "the worktree with `ID` (copse list --json)")
	fl.StringVar(&label, "label", "", "workspace label `TEXT` (Herdr; tmux: the window name)")
	fl.BoolVar(&opts.Request.Focus, "focus", false, "focus the workspace (Herdr workspace or tmux window)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands; change nothing")
	return cmd
}

func openRun(ctx context.Context, f *Factory, opts *OpenOptions) error {
	return opts.runMutation(ctx, f, opts.Request, "", func(svc *core.Service, out *core.Outcome) error {
		if !svc.HasWorkspaces() {
			return f.deliver(ctx, svc, out, out.Path) // open is switch without workspaces
		}
		return f.report(out, func() error {
			_, err := fmt.Fprintf(f.Out, "opened %s in workspace %s\n", f.displayPath(out.Path), core.Escape(out.WorkspaceID))
			return err
		})
	})
}
