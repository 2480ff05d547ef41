package cli

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
	"github.com/spf13/cobra"
)

// ListOptions are `copse list`'s inputs.
type ListOptions struct {
	Status bool
	Watch  bool
}

// watchInterval is how often list --watch reads the worktrees again (the picker's tick).
const watchInterval = 2 * time.Second

// NewCmdList builds `copse list [--json] [--status]`.
func NewCmdList(f *Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list [--json] [--status] [--watch]",
		Short: "List every worktree, branch first",
		Long: `List every worktree of the repository, branch first:

  * main        ~/src/app                       main
    feat/login  ~/src/app.worktrees/feat-login  ✚3 ↑2

'*' marks the worktree you are in. Markers (the picker shows the same): main (the main
checkout), (detached abc1234), rebasing, bisecting, ⚑ SESSION (claimed by that session:
copse claim), locked: REASON, prunable: REASON, [wG] (its open Herdr workspace), its land
job (land #N queued, landing: PHASE, blocked: CODE). Piped, every value is whole. With
--status: ✚N uncommitted changes, ✖N conflicted files, ↑N/↓N commits ahead of/behind the
upstream, rebase or merge in progress, ✓ clean, status unknown: WHY. --json prints git's
view in full.

With --watch (status included) copse keeps running and reads everything again every 2
seconds, printing the listing again whenever it changed (a worktree, a status, an agent's
state), until interrupted; with --json, one listing per line. A change of an agent's
state it sees is logged as an agent.state event (copse events).`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), f, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.Status, "status", false, "compute every worktree's status (uncommitted changes, ahead/behind)")
	cmd.Flags().BoolVar(&opts.Watch, "watch", false, "keep printing the listing (with status) whenever it changes, until interrupted")
	return cmd
}

func listRun(ctx context.Context, f *Factory, opts *ListOptions) error {
	svc, err := f.openToList(ctx)
	if err != nil {
		return err
	}
	if opts.Watch {
		return listWatch(ctx, f, svc)
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
	var b strings.Builder
	if err := renderList(&b, l, f.home(), f.color(), f.listWidth()); err != nil {
		return err
	}
	_, err = io.WriteString(f.Out, b.String())
	return err
}

// listWidth is the width rows fit: a terminal's; 0 (every value whole) for a pipe.
func (f *Factory) listWidth() int {
	if f.OutTerminal() {
		return f.TermWidth()
	}
	return 0
}

// listWatch is list --watch: read everything (status and agents included) every
// watchInterval, print the listing when it differs from the last one printed, and log
// the agents' changes of state, until ctx ends (exit 130, as any interrupted command).
// It takes no lock: the agents' record has its own (core.RecordAgents).
func listWatch(ctx context.Context, f *Factory, svc *core.Service) error {
	last, lastWarn := "", ""
	for first := true; ; first = false {
		began := time.Now()
		l, err := svc.List(ctx, true)
		if err != nil {
			return err
		}
		warnings := append(l.Warnings, svc.RecordAgents(ctx, began, l.Worktrees)...)
		if w := strings.Join(warnings, "\n"); w != lastWarn {
			f.warn(warnings) // once, not every round
			lastWarn = w
		}
		var out string
		if f.Global.JSON {
			var b strings.Builder
			enc := json.NewEncoder(&b) // as writeJSON: one line, HTML left as it is
			enc.SetEscapeHTML(false)
			if err := enc.Encode(l); err != nil {
				return err
			}
			out = b.String()
		} else {
			var b strings.Builder
			if err := renderList(&b, l, f.home(), f.color(), f.listWidth()); err != nil {
				return err
			}
			out = b.String()
		}
		if out != last {
			text := out
			if !f.Global.JSON && !first {
				// A listing per change: on a terminal the new one replaces the screen, piped
				// a blank line parts them.
				text = "\n" + out
				if f.OutTerminal() {
					text = "\x1b[H\x1b[2J" + out
				}
			}
			if _, err := io.WriteString(f.Out, text); err != nil {
				return err
			}
			last = out
		}
		select {
		case <-ctx.Done():
			return core.AsError(ctx.Err())
		case <-time.After(watchInterval):
		}
	}
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
	return textsafe.Escape(p)
}

// tildeIn writes home as ~ in the paths a sentence names: where home/ (or home at the end
// of a word) starts a path, not inside a longer one (/srv/home/me is no home /home/me).
// A command in backquotes is left whole: it must run as written, and a quoted ~ does not
// expand.
func tildeIn(s, home string) string {
	if home == "" {
		return s
	}
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 { // the even parts lie outside backquotes
		parts[i] = tildeWords(parts[i], home)
	}
	return strings.Join(parts, "`")
}

// tildeWords is tildeIn for text without commands.
func tildeWords(s, home string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, home)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(home)
		startsPath := i == 0 || !strings.ContainsRune(pathChars, rune(s[i-1]))
		endsHome := end == len(s) || s[end] == '/' || !strings.ContainsRune(pathChars, rune(s[end]))
		b.WriteString(s[:i])
		if startsPath && endsHome {
			b.WriteString("~")
		} else {
			b.WriteString(home)
		}
		s = s[end:]
	}
}

// pathChars are the bytes that continue a path in a sentence.
const pathChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/~+@"

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
		if !color || s == "" || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	type row struct {
		mark, name, path string
		marks            []string // already painted
		marksW           int      // cells of the marks, separators included
		current          bool
	}
	// The picker's default order (main first, numbers as numbers: task-2 before task-10),
	// so a row is where a person looks for it in both; --json keeps git's order.
	trees := slices.Clone(l.Worktrees)
	slices.SortStableFunc(trees, rowmarks.CompareByName)
	rows := make([]row, 0, len(trees))
	nameW, pathW := 0, 0
	for _, wt := range trees {
		r := row{mark: " ", name: rowmarks.Label(wt), path: tildePath(wt.Path, home), current: wt.Current}
		if wt.Current {
			r.mark = "*"
		}
		// The picker's words, in its order: markers, the land job, then the status. Piped,
		// every value is whole (a claim's session is what `copse release --session` needs);
		// on a terminal the picker's bounds keep a row readable.
		pieces := rowmarks.WholeMarkers(wt)
		if width > 0 {
			pieces = rowmarks.Markers(wt)
		}
		if rowmarks.LandShown(wt.Land) {
			pieces = append(pieces, rowmarks.Land(wt.Land))
		}
		for _, p := range append(pieces, rowmarks.Badges(wt, false)...) {
			text := p.Long()
			if width > 0 {
				text = textsafe.Cut(text, maxMarkCells)
			}
			if len(r.marks) > 0 {
				r.marksW++
			}
			r.marksW += textsafe.Width(text)
			r.marks = append(r.marks, paint(kindColour(p.Kind), text))
		}
		nameW = max(nameW, textsafe.Width(r.name))
		pathW = max(pathW, textsafe.Width(r.path))
		rows = append(rows, r)
	}
	if width > 0 {
		marksW := 0
		for _, r := range rows {
			marksW = max(marksW, r.marksW)
		}
		fixed := 2 + nameW + 2 // mark, name, gap
		if marksW > 0 {
			fixed += 2 + marksW
		}
		if room := width - fixed; room < pathW {
			pathW = max(room, minPathWidth)
			for i := range rows {
				rows[i].path = textsafe.PathCut(rows[i].path, pathW)
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		name := r.name + strings.Repeat(" ", nameW-textsafe.Width(r.name))
		path := r.path
		if len(r.marks) > 0 {
			path += strings.Repeat(" ", pathW-textsafe.Width(r.path))
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

// maxMarkCells bounds one marker with its reason ("locked: …") on a terminal: the row
// stays readable whatever git reported; piped output and --json have it whole.
const maxMarkCells = 70

// kindColour is the ANSI colour copse list paints a marker or badge of that kind with
// ("" for none); the picker paints the same kinds from its theme.
func kindColour(k rowmarks.Kind) string {
	switch k {
	case rowmarks.Main, rowmarks.Workspace, rowmarks.Working:
		return ansiCyan
	case rowmarks.Progress, rowmarks.Claimed, rowmarks.Locked, rowmarks.Changes, rowmarks.Live:
		return ansiYellow
	case rowmarks.Prunable, rowmarks.Conflicts, rowmarks.Unknown, rowmarks.Blocked, rowmarks.NeedsYou, rowmarks.Failed:
		return ansiRed
	case rowmarks.Clean, rowmarks.Done:
		return ansiGreen
	case rowmarks.Unread:
		return ansiBold + ansiGreen
	case rowmarks.Pending, rowmarks.Idle:
		return ansiDim
	}
	return ""
}
