package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
)

// ListOptions are `copse list`'s inputs.
type ListOptions struct {
	Status bool
}

// NewCmdList builds `copse list [--json] [--status]`.
func NewCmdList(f *Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list [--json] [--status]",
		Short: "List every worktree, branch first",
		Long: `List every worktree of the repository, branch first:

  * main        ~/src/app                       main
    feat/login  ~/src/app.worktrees/feat-login  ✚3 ↑2

'*' marks the worktree you are in. Markers: main (the main checkout), (detached abc1234),
locked, ⚑ SESSION (claimed by that session: copse claim), prunable, the open Herdr workspace; with --status, ✚N uncommitted changes,
↑N/↓N commits ahead of/behind the upstream. --json prints git's view in full.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), f, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.Status, "status", false, "compute every worktree's status (uncommitted changes, ahead/behind)")
	return cmd
}

func listRun(ctx context.Context, f *Factory, opts *ListOptions) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	// List, not Prepare+Execute: a list has no preconditions, and Prepare would read
	// git's worktree list once more.
	l, err := svc.List(ctx, opts.Status)
	if err != nil {
		return err
	}
	f.warn(l.Warnings) // e.g. Herdr's list failed: rows show no workspaces
	if f.Global.JSON {
		return f.writeJSON(l)
	}
	width := 0
	if f.OutTerminal() {
		// On a terminal each row fits its width; a program reading a pipe gets every value whole.
		width = f.TermWidth()
	}
	return renderList(f.Out, l, f.home(), f.color(), width)
}

// home is $HOME without a trailing slash, or "" when unset.
func (f *Factory) home() string {
	h := f.Getenv("HOME")
	if h == "" || h == "/" || !filepath.IsAbs(h) {
		return ""
	}
	return filepath.Clean(h)
}

// displayPath is a path for people: home as ~, escaped.
func (f *Factory) displayPath(p string) string { return tildePath(p, f.home()) }

func tildePath(p, home string) string {
	if home != "" {
		if p == home {
			p = "~"
		} else if rest, ok := strings.CutPrefix(p, home+"/"); ok {
			p = "~/" + rest
		}
	}
	return core.Escape(p)
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiRed    = "\x1b[31m"
	ansiCyan   = "\x1b[36m"
)

// renderList prints aligned rows, branch first; every value is escaped, so a hostile
// branch or path cannot drive the terminal or forge a row. With width > 0 (a terminal)
// rows fit it: paths are shortened in the middle first (their leaf tells rows apart),
// then what is still too long is cut with "…".
func renderList(w io.Writer, l *core.Listing, home string, color bool, width int) error {
	paint := func(code, s string) string {
		if !color || s == "" {
			return s
		}
		return code + s + ansiReset
	}
	type row struct {
		mark, name, path string
		marks            []string // already painted
		current          bool
	}
	rows := make([]row, 0, len(l.Worktrees))
	nameW, pathW := 0, 0
	for _, wt := range l.Worktrees {
		r := row{mark: " ", path: tildePath(wt.Path, home), current: wt.Current}
		switch {
		case wt.Bare:
			r.name = "(bare)"
		case wt.Branch != "" && (wt.Rebasing || wt.Bisecting):
			r.name = core.Escape(wt.Branch) // git lists it detached; the rebase or bisect holds the branch
		case wt.Detached || wt.Branch == "":
			r.name = "(detached " + short(wt.Head) + ")"
		default:
			r.name = core.Escape(wt.Branch)
		}
		if wt.Current {
			r.mark = "*"
		}
		if wt.Main {
			r.marks = append(r.marks, paint(ansiCyan, "main"))
		}
		if wt.Rebasing {
			r.marks = append(r.marks, paint(ansiYellow, "rebasing"))
		}
		if wt.Bisecting {
			r.marks = append(r.marks, paint(ansiYellow, "bisecting"))
		}
		if wt.Claim != nil {
			r.marks = append(r.marks, paint(ansiYellow, "⚑ "+core.Cut(core.Escape(wt.Claim.Session), 40)))
		} else if wt.Locked != nil {
			m := "locked"
			if *wt.Locked != "" {
				m += ": " + core.Cut(core.Escape(*wt.Locked), 60)
			}
			r.marks = append(r.marks, paint(ansiYellow, m))
		}
		if wt.Prunable != nil {
			r.marks = append(r.marks, paint(ansiRed, "prunable"))
		}
		if wt.WorkspaceID != nil {
			r.marks = append(r.marks, paint(ansiCyan, "workspace "+core.Escape(*wt.WorkspaceID)))
		}
		if st := wt.Status; st != nil {
			badges := *st
			badges.Rebasing = badges.Rebasing && !wt.Rebasing // already marked above
			r.marks = append(r.marks, statusBadges(badges, paint)...)
		}
		nameW = max(nameW, runewidth.StringWidth(r.name))
		pathW = max(pathW, runewidth.StringWidth(r.path))
		rows = append(rows, r)
	}
	if width > 0 {
		marksW := 0
		for _, r := range rows {
			marksW = max(marksW, ansi.StringWidth(strings.Join(r.marks, " ")))
		}
		fixed := 2 + nameW + 2 // mark, name, gap
		if marksW > 0 {
			fixed += 2 + marksW
		}
		if room := width - fixed; room < pathW {
			pathW = max(room, minPathWidth)
			for i := range rows {
				rows[i].path = midCut(rows[i].path, pathW)
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		name := r.name + strings.Repeat(" ", nameW-runewidth.StringWidth(r.name))
		path := r.path
		if len(r.marks) > 0 {
			path += strings.Repeat(" ", pathW-runewidth.StringWidth(r.path))
		}
		if r.current {
			name = paint(ansiBold+ansiGreen, name)
		}
		line := r.mark + " " + name + "  " + paint(ansiDim, path)
		if len(r.marks) > 0 {
			line += "  " + strings.Join(r.marks, " ")
		}
		if width > 0 {
			line = ansi.Truncate(line, width, "…")
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// minPathWidth keeps enough of a path to recognise it: its start and its leaf.
const minPathWidth = 16

// midCut shortens s to w cells with "…" in the middle.
func midCut(s string, w int) string {
	sw := runewidth.StringWidth(s)
	if sw <= w {
		return s
	}
	if w <= 1 {
		return runewidth.Truncate(s, w, "")
	}
	head := (w - 1) / 3
	tail := w - 1 - head
	return runewidth.Truncate(s, head, "") + "…" + runewidth.TruncateLeft(s, sw-tail, "")
}

// statusBadges: ✚N uncommitted, ↑N ahead, ↓N behind, rebasing/merging, ✓ clean; an error
// is shown as such, never as clean.
func statusBadges(st core.Status, paint func(code, s string) string) []string {
	if st.Error != "" {
		return []string{paint(ansiRed, "status unknown: "+core.Cut(st.Error, 60))}
	}
	var out []string
	if n := st.Changes(); n > 0 {
		out = append(out, paint(ansiYellow, fmt.Sprintf("✚%d", n)))
	}
	if st.Conflicted > 0 {
		out = append(out, paint(ansiRed, fmt.Sprintf("conflicts %d", st.Conflicted)))
	}
	if st.Ahead > 0 {
		out = append(out, fmt.Sprintf("↑%d", st.Ahead))
	}
	if st.Behind > 0 {
		out = append(out, fmt.Sprintf("↓%d", st.Behind))
	}
	if st.Rebasing {
		out = append(out, paint(ansiRed, "rebasing"))
	}
	if st.Merging {
		out = append(out, paint(ansiRed, "merging"))
	}
	if len(out) == 0 {
		// Computed and clean, said as such (as the picker does), so it cannot be
		// mistaken for a status that was never computed.
		out = append(out, paint(ansiGreen, "✓"))
	}
	return out
}
