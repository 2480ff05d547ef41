package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// PruneOptions are `copse prune`'s inputs.
type PruneOptions struct {
	Request core.PruneRequest
	Yes     bool
}

// NewCmdPrune builds `copse prune [--dry-run] [--older-than D] [--delete-branch] [--yes]`.
func NewCmdPrune(f *Factory, runF func(context.Context, *PruneOptions) error) *cobra.Command {
	opts := &PruneOptions{}
	var older string
	cmd := &cobra.Command{
		Use:   "prune [--dry-run] [--older-than D] [--delete-branch] [--yes]",
		Short: "Remove idle, clean, unclaimed worktrees that hold nothing unique; list what stays and why",
		Long: `Remove the linked worktrees nobody needs: clean (no uncommitted or untracked files),
unclaimed and unlocked, not landing, holding no commit that is on no other branch or
remote, and idle for longer than --older-than (default git config copse.pruneAfter, else
72h; idle is the time since the newest of the worktree's index and HEAD log). Entries whose
directory is gone are forgotten with git worktree prune (locked ones never are).

Every worktree it keeps is listed with its reason: main, current, claimed, locked (by a
human), landing, blocked (a land is blocked), mid-operation (rebase, merge, cherry-pick,
revert, bisect), dirty, unique commits, not idle long enough. --dry-run shows the same
report and changes nothing. It asks for confirmation on a terminal; without one, pass
--yes. --delete-branch also deletes the removed worktrees' branches. D is a duration such
as 72h, 90m or 3d.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			opts.Request.OlderThan = optional(cmd, "older-than", older)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pruneRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Request.DryRun, "dry-run", false, "show what would be removed and what is kept, and why; change nothing")
	fl.StringVar(&older, "older-than", "", "idle time `D` before a worktree may go (e.g. 72h, 3d)")
	fl.BoolVar(&opts.Request.DeleteBranch, "delete-branch", false, "also delete the removed worktrees' branches")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func pruneRun(ctx context.Context, f *Factory, opts *PruneOptions) error {
	// prune's dry run is its request's (core lists what it would do), not --dry-run's.
	return mutation{Yes: opts.Yes, again: pruneAgain(opts.Request)}.runMutation(ctx, f, opts.Request, "", func(_ *core.Service, out *core.Outcome) error {
		return f.report(out, func() error { return renderPrune(f.Out, out, f.home()) })
	})
}

// pruneAgain is the prune asked for, with --yes: what to run once the list was checked.
func pruneAgain(r core.PruneRequest) string {
	s := "copse prune"
	if r.OlderThan != nil {
		s += " --older-than " + textsafe.ShellQuote(*r.OlderThan)
	}
	if r.DeleteBranch {
		s += " --delete-branch"
	}
	return s + " --yes"
}

// renderPrune prints what went (or would go), what was forgotten and what stayed, why.
func renderPrune(w io.Writer, out *core.Outcome, home string) error {
	rep := out.Prune
	if rep == nil {
		return nil
	}
	var b strings.Builder
	verb, forget := "removed", "forgot"
	if out.DryRun {
		verb, forget = "would remove", "would forget"
	}
	name := func(e core.PruneEntry) string {
		s := tildePath(e.Path, home)
		if e.Branch != "" {
			s += " (" + core.Escape(e.Branch) + ")"
		}
		return s
	}
	for _, e := range rep.Removed {
		fmt.Fprintf(&b, "%s %s: %s", verb, name(e), tildeIn(e.Detail, home))
		if e.BranchDeleted {
			b.WriteString("; branch deleted")
		}
		if e.RestoreID != "" {
			b.WriteString("; copse restore " + core.Escape(e.RestoreID) + " brings it back")
		}
		b.WriteString("\n")
	}
	for _, e := range rep.Forgotten {
		fmt.Fprintf(&b, "%s %s: %s", forget, name(e), tildeIn(e.Detail, home))
		if e.RestoreID != "" {
			// Recorded first: the commits its admin directory held are in the record.
			b.WriteString("; copse restore " + core.Escape(e.RestoreID) + " brings it back")
		}
		b.WriteString("\n")
	}
	for _, e := range rep.Kept {
		fmt.Fprintf(&b, "kept %s: %s\n", name(e), tildeIn(e.Detail, home)) // the reason code is in --json
	}
	if len(rep.Removed)+len(rep.Forgotten) == 0 {
		fmt.Fprintf(&b, "nothing to prune (idle threshold %s)\n", rep.OlderThan)
	}
	drop := "dropped"
	if out.DryRun {
		drop = "would drop"
	}
	if n := len(rep.DroppedRestores); n > 0 {
		fmt.Fprintf(&b, "%s %s past copse.keepRemoved: %s\n", drop, core.Plural(n, "restore record"), strings.Join(rep.DroppedRestores, ", "))
	}
	if n := len(rep.DroppedLands); n > 0 {
		fmt.Fprintf(&b, "%s %s past copse.keepLands: %s\n", drop, core.Plural(n, "land record"), strings.Join(rep.DroppedLands, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
