package cli

import (
	"context"
	"fmt"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// CreateOptions are `copse create`'s inputs.
type CreateOptions struct {
	Request core.CreateRequest
	mutation
}

// NewCmdCreate builds `copse create BRANCH [--base REF] [--path ABS] [--label TEXT] [--focus] [--yes]`.
func NewCmdCreate(f *Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{}
	var base, path, label, session string
	cmd := &cobra.Command{
		Use:   "create BRANCH [--base REF] [--path ABS] [--label TEXT] [--focus] [--claim [--session ID]] [--yes]",
		Short: "Create a worktree for BRANCH (a new branch from --base, or an existing one no worktree holds)",
		Long: `Create a worktree for BRANCH. A new branch starts at --base (default HEAD); an existing
local branch that no worktree holds is checked out. The checkout goes to
<parent of the main checkout>/<repo>.worktrees/<branch-slug> (or git config copse.root),
or to --path, which must be absolute and asks for confirmation (--yes without a terminal).
--claim claims the new worktree for the session (see copse claim) before any other copse
can see it unclaimed.`,
		Args: exactArgs(1, "a BRANCH"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Request.Branch = args[0]
			opts.Request.Base = optional(cmd, "base", base)
			opts.Request.Path = optional(cmd, "path", path)
			opts.Request.Label = optional(cmd, "label", label)
			opts.Request.Session = optional(cmd, "session", session)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return createRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&base, "base", "", "start a new branch at `REF` (default HEAD)")
	fl.StringVar(&path, "path", "", "absolute checkout `PATH` (asks for confirmation)")
	fl.StringVar(&label, "label", "", "workspace label `TEXT` (Herdr only)")
	fl.BoolVar(&opts.Request.Focus, "focus", false, "focus the new workspace (Herdr only)")
	fl.BoolVar(&opts.Request.Claim, "claim", false, "claim the new worktree for the session in the same locked step")
	fl.StringVar(&session, "session", "", "session `ID` for --claim (default $COPSE_SESSION, else the Herdr workspace)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands; change nothing")
	return cmd
}

func createRun(ctx context.Context, f *Factory, opts *CreateOptions) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	out, err := opts.run(ctx, f, svc, opts.Request)
	if err != nil {
		return err
	}
	if out.DryRun {
		return f.printDryRun(out)
	}
	f.warn(out.Warnings)
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	w := out.Worktree
	fmt.Fprintf(f.Out, "created %s at %s (%s)\n", core.Escape(w.Branch), f.displayPath(w.Path), short(w.Head))
	if out.WorkspaceID != "" {
		fmt.Fprintf(f.Out, "workspace %s\n", core.Escape(out.WorkspaceID))
	}
	if out.Claim != nil {
		fmt.Fprintf(f.Out, "claimed for session %s (id %s)\n", core.Escape(out.Claim.Session), core.Escape(w.ID))
	}
	return nil
}

func short(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}
