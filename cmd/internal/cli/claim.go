package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// idPrefix marks a TARGET that names a worktree by its id (`copse list --json` shows it).
// git forbids ':' in branch names and a path here must be absolute, so "id:" is never
// either.
const idPrefix = "id:"

// splitTargetID is splitTarget plus the "id:ID" form.
func splitTargetID(target string) (path, branch, id *string) {
	if rest, ok := strings.CutPrefix(target, idPrefix); ok {
		return nil, nil, &rest
	}
	path, branch = splitTarget(target)
	return path, branch, nil
}

// ClaimOptions are `copse claim`'s and `copse release`'s inputs.
type ClaimOptions struct {
	Target  string
	Session *string
	Force   bool
	Release bool
	mutation
}

const targetHelp = `TARGET is a branch, the absolute path of a worktree, or id:ID (its id, as copse list --json
shows it).`

const sessionHelp = `The session is --session, else $COPSE_SESSION, else the Herdr workspace copse runs in
(herdr:<workspace id>); without any, the command is refused (exit 2).`

// NewCmdClaim builds `copse claim TARGET [--session ID] [--force] [--yes]`.
func NewCmdClaim(f *Factory, runF func(context.Context, *ClaimOptions) error) *cobra.Command {
	return newClaimCmd(f, runF, false)
}

// NewCmdRelease builds `copse release TARGET [--session ID] [--force] [--yes]`.
func NewCmdRelease(f *Factory, runF func(context.Context, *ClaimOptions) error) *cobra.Command {
	return newClaimCmd(f, runF, true)
}

func newClaimCmd(f *Factory, runF func(context.Context, *ClaimOptions) error, release bool) *cobra.Command {
	opts := &ClaimOptions{Release: release}
	var session string
	cmd := &cobra.Command{
		Use:   "claim TARGET [--session ID] [--force] [--yes]",
		Short: "Claim a worktree for a session, so other sessions keep off it (a git worktree lock)",
		Long: `Claim a linked worktree for a session. The claim is a git worktree lock with the reason
"copse claim: session=<id> since=<time>", so git itself (worktree remove, worktree prune)
respects it. A worktree claimed by another session is refused, naming the holder; --force
takes it over and reports the previous session. A lock copse did not write (a human's
git worktree lock) is refused unless --force. The main checkout cannot be claimed.
--force asks for confirmation on a terminal; without one, pass --yes.

` + targetHelp + `
` + sessionHelp,
		Args: exactArgs(1, "a TARGET (a branch, the absolute path of a worktree, or id:ID)"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			opts.Session = optional(cmd, "session", session)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return claimRun(cmd.Context(), f, opts)
		}),
	}
	if release {
		cmd.Use = "release TARGET [--session ID] [--force] [--yes]"
		cmd.Short = "Release a session's claim on a worktree"
		cmd.Long = `Release the claim on a worktree (unlock it). Only the session that holds the claim may
release it; --force releases another session's claim, or a lock copse did not write, and
needs no session. --force asks for confirmation on a terminal; without one, pass --yes.

` + targetHelp + `
` + sessionHelp
	}
	fl := cmd.Flags()
	fl.StringVar(&session, "session", "", "the session `ID` (default $COPSE_SESSION, else the Herdr workspace)")
	if release {
		fl.BoolVar(&opts.Force, "force", false, "release another session's claim or a human's lock (asks first)")
	} else {
		fl.BoolVar(&opts.Force, "force", false, "take over another session's claim or a human's lock (asks first)")
	}
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands; change nothing")
	return cmd
}

func (o *ClaimOptions) request() core.Request {
	path, branch, id := splitTargetID(o.Target)
	if o.Release {
		return core.ReleaseRequest{Path: path, Branch: branch, ID: id, Session: o.Session, Force: o.Force}
	}
	return core.ClaimRequest{Path: path, Branch: branch, ID: id, Session: o.Session, Force: o.Force}
}

func claimRun(ctx context.Context, f *Factory, opts *ClaimOptions) error {
	return opts.runMutation(ctx, f, opts.request(), opts.Target, func(_ *core.Service, out *core.Outcome) error {
		return f.report(out, func() error { return printClaimed(f, out, opts.Release) })
	})
}

func printClaimed(f *Factory, out *core.Outcome, release bool) error {
	where := f.displayPath(out.Path)
	switch {
	case release && out.Previous != "":
		fmt.Fprintf(f.Out, "released %s (it was claimed by session %s)\n", where, core.Escape(out.Previous))
	case release:
		fmt.Fprintf(f.Out, "released %s\n", where)
	case out.Claim != nil && out.Previous != "":
		fmt.Fprintf(f.Out, "claimed %s for session %s (taken over from session %s)\n", where, core.Escape(out.Claim.Session), core.Escape(out.Previous))
	case out.Claim != nil:
		fmt.Fprintf(f.Out, "claimed %s for session %s\n", where, core.Escape(out.Claim.Session))
	default:
		// Already held by this session: the warning said so; the claim is unchanged.
		if out.Worktree != nil && out.Worktree.Claim != nil {
			fmt.Fprintf(f.Out, "%s is claimed by session %s since %s\n", where, core.Escape(out.Worktree.Claim.Session), out.Worktree.Claim.Since.Format(time.RFC3339))
		}
	}
	return nil
}
