package cli

import (
	"context"
	"fmt"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// RemoveOptions are `copse remove`'s inputs.
type RemoveOptions struct {
	Target    string // branch or absolute path; "" with --workspace
	Workspace *string
	Force     bool
	DeleteBr  bool
	mutation
}

// NewCmdRemove builds `copse remove TARGET [--force] [--delete-branch] [--yes]`.
func NewCmdRemove(f *Factory, runF func(context.Context, *RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{}
	var ws string
	cmd := &cobra.Command{
		Use:   "remove (TARGET | --workspace ID) [--force] [--delete-branch] [--yes]",
		Short: "Remove a worktree (TARGET: its branch, or its absolute path); always asks",
		Long: `Remove a linked worktree. TARGET is an absolute path, a branch or id:ID; inside Herdr a worktree
can also be named by --workspace ID (under tmux: its window, @N). copse never removes the main checkout or the worktree
it runs in, and refuses a dirty or locked worktree without --force. --delete-branch also
deletes the branch, refusing one with commits on no other branch or remote without --force.

A forced remove, or one that deletes the branch, first records what it deletes (HEAD, the
index, every working file but ignored ones, the branch tip) and prints the id:
copse restore ID brings it back (see copse restore --help).

It always asks for confirmation on a terminal (default No); without one, pass --yes.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("workspace") {
				if len(args) > 0 {
					return usagef("usage: "+cmd.UseLine(), "name the worktree by TARGET or by --workspace, not both")
				}
				return nil
			}
			return exactArgs(1, "a TARGET (a branch, or the absolute path of a worktree) or --workspace ID")(cmd, args)
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Target = args[0]
			}
			opts.Workspace = optional(cmd, "workspace", ws)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return removeRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&ws, "workspace", "", "the worktree open in Herdr workspace `ID` (tmux: window @N)")
	fl.BoolVar(&opts.Force, "force", false, "remove even if dirty or locked; delete an unmerged branch")
	fl.BoolVar(&opts.DeleteBr, "delete-branch", false, "also delete the worktree's branch")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands; change nothing")
	return cmd
}

func (o *RemoveOptions) request() core.RemoveRequest {
	r := core.RemoveRequest{WorkspaceID: o.Workspace, Force: o.Force, DeleteBranch: o.DeleteBr}
	if o.Workspace == nil {
		r.Path, r.Branch, r.ID = splitTargetID(o.Target)
	}
	return r
}

func removeRun(ctx context.Context, f *Factory, opts *RemoveOptions) error {
	return opts.runMutation(ctx, f, opts.request(), opts.Target, func(_ *core.Service, out *core.Outcome) error {
		return f.report(out, func() error { return printRemoved(f, out) })
	})
}

func printRemoved(f *Factory, out *core.Outcome) error {
	what := "detached"
	if out.Worktree != nil && out.Worktree.Branch != "" {
		what = "branch " + core.Escape(out.Worktree.Branch)
	}
	fmt.Fprintf(f.Out, "removed %s (%s)\n", f.displayPath(out.Path), what)
	if out.BranchDeleted {
		fmt.Fprintf(f.Out, "deleted branch %s\n", core.Escape(out.Worktree.Branch))
	}
	if out.RestoreID != "" {
		fmt.Fprintf(f.Out, "recorded what was removed; undo with: copse restore %s\n", out.RestoreID)
	}
	return nil
}
