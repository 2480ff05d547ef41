package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// RestoreOptions are `copse restore`'s inputs.
type RestoreOptions struct {
	Request core.RestoreRequest
	mutation
}

// NewCmdRestore builds `copse restore [ID] [--path ABS] [--yes] | copse restore --list`.
func NewCmdRestore(f *Factory, runF func(context.Context, *RestoreOptions) error) *cobra.Command {
	opts := &RestoreOptions{}
	var path string
	cmd := &cobra.Command{
		Use:   "restore [ID] [--path ABS] [--yes] | restore --list",
		Short: "Bring back a worktree that a forced remove took (--list: what can be restored)",
		Long: `Before a forced remove (or a remove that deletes the branch) deletes anything git does not
hold, copse records the worktree: HEAD, the index and every working file, untracked ones
included (ignored ones are not), plus the branch tip. restore brings it back: the working
files byte for byte and the index as it was.

ID is from the remove's output or from --list (a unique prefix of 4 or more characters
will do); without ID, the most recent record. It goes back to where it was, on its branch
when the branch is free (recreated if it was deleted); if the branch is checked out
elsewhere or has moved, the worktree comes back detached at the recorded commit. If its
path is taken, pass --path ABS (which asks for confirmation; --yes without a terminal).

Records are kept for git config copse.keepRemoved (default 14d; also 2w, 36h), then
prune drops them. A restored record is deleted once the restore is verified.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return exactArgs(1, "at most one ID")(cmd, args)
			}
			return nil
		},
		ValidArgsFunction: completeRemoved(f),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Request.ID = &args[0]
			}
			opts.Request.Path = optional(cmd, "path", path)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return restoreRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Request.List, "list", false, "list what can be restored, with age and size")
	fl.StringVar(&path, "path", "", "restore to this absolute `PATH` instead (asks for confirmation)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands; change nothing")
	return cmd
}

func restoreRun(ctx context.Context, f *Factory, opts *RestoreOptions) error {
	return opts.runMutation(ctx, f, opts.Request, "", func(_ *core.Service, out *core.Outcome) error {
		return f.report(out, func() error { return printRestored(f, out) })
	})
}

func printRestored(f *Factory, out *core.Outcome) error {
	if l, ok := out.Result().(*core.RemovedListing); ok {
		return renderRemoved(f.Out, l, f.home(), time.Now())
	}
	w := out.Worktree
	what := "detached at " + short(w.Head)
	if w.Branch != "" {
		what = "branch " + core.Escape(w.Branch)
	}
	fmt.Fprintf(f.Out, "restored %s (%s) from %s\n", f.displayPath(out.Path), what, out.Restored.ID)
	return nil
}

// completeRemoved completes restore's ID with the records, described by branch and path.
func completeRemoved(f *Factory) cobra.CompletionFunc {
	return completeWith(f, func(ctx context.Context, svc *core.Service, typed string) ([]cobra.Completion, error) {
		out, err := svc.Do(ctx, core.RestoreRequest{List: true}, false)
		if err != nil {
			return nil, err
		}
		l, _ := out.Result().(*core.RemovedListing)
		var ids []cobra.Completion
		for _, e := range l.Removed {
			if strings.HasPrefix(e.ID, typed) {
				what := e.Branch
				if what == "" {
					what = "detached " + short(e.Head)
				}
				ids = append(ids, cobra.CompletionWithDesc(e.ID, what+" "+e.Path))
			}
		}
		return ids, nil
	})
}

// renderRemoved prints one aligned row per record, newest first; every value is escaped.
func renderRemoved(w io.Writer, l *core.RemovedListing, home string, now time.Time) error {
	if len(l.Removed) == 0 {
		_, err := fmt.Fprintln(w, "nothing to restore (records are kept for "+keepText(l.Keep)+")")
		return err
	}
	type row struct{ id, age, name, path, size string }
	rows := []row{{"ID", "AGE", "BRANCH", "PATH", "CHANGES"}}
	for _, e := range l.Removed {
		name := "(detached " + short(e.Head) + ")"
		if e.Branch != "" {
			name = core.Escape(e.Branch)
			if e.BranchDeleted {
				name += " (deleted)"
			}
		}
		size := plural(e.Files, "file") + ", " + byteSize(e.Bytes)
		if e.DirMissing {
			size = "branch only"
		}
		rows = append(rows, row{e.ID, age(now.Sub(e.Time)), name, tildePath(e.Path, home), size})
	}
	var wid [4]int
	for _, r := range rows {
		for i, c := range []string{r.id, r.age, r.name, r.path} {
			wid[i] = max(wid[i], textsafe.Width(c))
		}
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s  %s  %s  %s  %s\n", textsafe.Pad(r.id, wid[0]), textsafe.Pad(r.age, wid[1]), textsafe.Pad(r.name, wid[2]), textsafe.Pad(r.path, wid[3]), r.size)
	}
	_, err := fmt.Fprintf(w, "kept for %s; copse restore ID brings one back\n", keepText(l.Keep))
	return err
}

// age is a short human age: 45s, 12m, 5h, 3d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(max(int(d.Seconds()), 0)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// keepText says core's copse.keepRemoved ("14d", "36h", "never") in words.
func keepText(keep string) string {
	if keep == "never" {
		return "good (copse.keepRemoved is never)"
	}
	if n, ok := strings.CutSuffix(keep, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil {
			return plural(days, "day")
		}
	}
	return keep
}

func byteSize(n int64) string {
	switch {
	case n < 1024:
		return plural(int(n), "byte")
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MiB"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
