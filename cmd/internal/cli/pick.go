package cli

import (
	"context"
	"os"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/tui"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// PickOptions are `copse pick`'s inputs.
type PickOptions struct {
	Query     string // the filter to start with
	SelectOne bool   // exactly one match: print it without drawing
}

// NewCmdPick builds `copse pick [--json]`.
func NewCmdPick(f *Factory, runF func(context.Context, *PickOptions) error) *cobra.Command {
	opts := &PickOptions{}
	cmd := &cobra.Command{
		Use:   "pick [--json] [--query TEXT] [--select-1]",
		Short: "Pick a worktree on the terminal and print its path (for hosts' /worktree commands)",
		Long: `Show the picker on the terminal (/dev/tty) and print the chosen worktree's path on stdout
(--json: the whole row, as in copse list --json). Exit status 1 when nothing was picked.
Typing filters the list at once (fuzzy on branch and path, branches containing the text
first); --query starts with TEXT typed, and --select-1 prints the only match without
drawing anything when exactly one worktree matches.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPick(cmd.Context(), f, opts)
		}),
	}
	cmd.Flags().StringVarP(&opts.Query, "query", "q", "", "start with `TEXT` in the filter")
	cmd.Flags().BoolVarP(&opts.SelectOne, "select-1", "1", false, "with exactly one match, print it without drawing the picker")
	return cmd
}

// runPick is `copse pick`: with --select-1 and exactly one match (the picker's own filter
// over the list), the answer comes without a terminal; otherwise the picker decides.
func runPick(ctx context.Context, f *Factory, opts *PickOptions) error {
	if opts.SelectOne {
		svc, err := f.openToList(ctx)
		if err != nil {
			return err
		}
		l, err := svc.List(ctx, false)
		if err != nil {
			return err
		}
		if m := tui.Filter(l, opts.Query); len(m) == 1 {
			return f.printPicked(&m[0])
		}
	}
	return runPickerQuery(ctx, f, true, opts.Query)
}

// dupFile is a second descriptor for f's file, closed on exec like f.
func dupFile(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// pickerOpenError is the picker's start-up failure (not in a repository, ...): exit 1 on
// stderr, without the TUI. Flag misuse stays a usage error (exit 2).
func pickerOpenError(err error) error {
	if e := core.AsError(err); e.Kind == core.KindUsage && e.Code != core.CodeBadBackend && e.Code != core.CodeHerdrNotDetected {
		e.Kind = core.KindFailed
		return e
	}
	return err
}

// printPicked prints the picked row: its path, or with --json the whole row.
func (f *Factory) printPicked(wt *core.Worktree) error {
	if f.Global.JSON {
		return f.writeJSON(wt)
	}
	f.printPath(wt.Path)
	return nil
}

// runPicker runs the interactive picker on the terminal. In pick mode it prints the chosen
// row; otherwise (plain `copse`) a switch made in the picker is handed to the shell like
// `copse switch` does.
//
// The first frame needs git's worktree list (core.Open reads it) and a colour profile.
// While git lists, the picker is built (tui.Run with Opening); the first frame is drawn
// the moment the list is in, and the terminal is not touched before, so a start-up failure
// (not a repository, ...) is reported on stderr with nothing drawn. The full colour
// detection reads terminfo, looks up the user and inside tmux runs `tmux info`; the first
// frame uses the profile the environment implies (no I/O) and the detection starts once
// that frame is out (the picker repaints if it differs), like every other job that would
// take the CPU from it.
func runPicker(ctx context.Context, f *Factory, pick bool) error {
	return runPickerQuery(ctx, f, pick, "")
}

// opened is core.Open's answer, with the list it read.
type opened struct {
	svc     *core.Service
	listing *core.Listing
	err     error
}

func runPickerQuery(ctx context.Context, f *Factory, pick bool, query string) error {
	noColor := f.Global.NoColor || f.Getenv("NO_COLOR") != ""
	tty, ttyErr := f.OpenTTY()
	if ttyErr == nil {
		defer tty.Close()
	}
	// git comes first: core.Open runs on this goroutine from the start, while the picker is
	// built on another and waits for it (Opening). Started the other way round, git's
	// process could wait for the picker's set-up to give up the CPU.
	var o opened
	done := make(chan struct{})
	var res pickerResult
	var err error
	shown := make(chan struct{})
	if ttyErr == nil {
		popts := pickerOptions{Pick: pick, Query: query, NoColor: noColor, Input: tty, Output: tty}
		popts.Width, popts.Height, _ = term.GetSize(int(tty.Fd()))
		popts.Opening = func(context.Context) tui.Opened {
			<-done // core.Open ends soon after ctx does
			return tui.Opened{Service: o.svc, Listing: o.listing, Err: o.err}
		}
		popts.Profile = colorprofile.Ascii
		if !noColor {
			environ := os.Environ()
			popts.Profile = colorprofile.Env(environ) // no I/O: TERM, COLORTERM, NO_COLOR…
			late := make(chan colorprofile.Profile, 1)
			popts.LateProfile = late
			// The detection gets a descriptor of its own for the terminal: it starts after
			// the first frame and may still run when a quick pick has ended the picker and
			// tty is closed. Whoever claims it first (the detection, or the end of this
			// function) closes it.
			if own, err := dupFile(tty); err == nil {
				var claimed atomic.Bool
				defer func() {
					if claimed.CompareAndSwap(false, true) {
						own.Close()
					}
				}()
				popts.AfterFirstFrame = func() {
					if claimed.CompareAndSwap(false, true) {
						go func() {
							defer own.Close()
							late <- colorprofile.Detect(own, environ)
						}()
					}
				}
			}
		}
		f.inPicker.Store(true)
		go func() {
			defer close(shown)
			res, err = startPicker(ctx, popts)
		}()
	}
	o.svc, o.err = f.openToList(ctx)
	if o.err == nil {
		// No git here: List reuses the worktree list Open read. If it fails anyway,
		// the picker loads the list itself and shows the error.
		o.listing, _ = o.svc.List(ctx, false)
	}
	close(done)
	if ttyErr != nil {
		if o.err != nil {
			return pickerOpenError(o.err)
		}
		return &core.Error{Kind: core.KindFailed, Code: core.CodeNoTerminal, Err: ttyErr,
			Message: "the picker needs a terminal, and /dev/tty cannot be opened",
			Hint:    "use `copse list`, `copse switch TARGET` or `copse tool` instead"}
	}
	<-shown
	f.inPicker.Store(false)
	if res.OpenErr != nil {
		return pickerOpenError(res.OpenErr)
	}
	svc := o.svc
	if res.Interrupted != nil {
		// A second ctrl+c, or a signal, during an operation.
		return interruptedState(res.Interrupted)
	}
	if err != nil {
		return err
	}
	if pick {
		if res.Cancelled || res.Selected == nil {
			return &core.Error{Kind: core.KindRefused, Code: core.CodeNothingPicked, Message: "nothing picked",
				Hint: "pick a worktree with enter; esc cancels"}
		}
		return f.printPicked(res.Selected)
	}
	out := res.Outcome
	if out == nil || out.DryRun {
		return nil
	}
	switch out.Operation {
	case core.OpSwitch, core.OpBack, core.OpOpen:
		if out.Operation == core.OpOpen && svc.HasWorkspaces() {
			return nil
		}
		return f.deliver(ctx, svc, out, out.Path)
	}
	return nil
}

// settleWait bounds how long copse waits, after a second ctrl+c ended the picker, for the
// interrupted operation to report the state it left. The first ctrl+c already killed git;
// what remains is core reading the worktree list back.
const settleWait = 10 * time.Second

// interruptedState is the error (exit 130) for an operation the user stopped waiting for,
// naming the state it left when core reports it in time.
//
// It waits without regard to the root context: a signal may be what cancelled the
// operation, and a second signal ends copse at once anyway (Main).
func interruptedState(in *tui.Interrupted) error {
	e := &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled}
	if !in.Executing {
		e.Message = "interrupted while " + in.Label + ", during its checks; nothing changed"
		return e
	}
	timer := time.NewTimer(settleWait)
	defer timer.Stop()
	select {
	case s := <-in.Settled:
		if s.Err == nil {
			e.Message = "interrupted, but " + in.Label + " had already finished"
			e.Hint = "run `copse list` to see the worktrees"
			return e
		}
		ce := core.AsError(s.Err)
		e.Message, e.Hint, e.Err = "interrupted: "+ce.Message, ce.Hint, ce
		return e
	case <-timer.C:
	}
	e.Message = "interrupted while " + in.Label + "; the state it left was not read back"
	e.Hint = "run `copse list` to see what exists"
	return e
}
