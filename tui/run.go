// Package tui is copse's interactive picker: a Bubble Tea program over core.Service.
// It never runs a process itself; every read and change goes through core, which parses,
// checks and confirms exactly as it does for the CLI and the JSON tool. It does no I/O in
// Update (reads and changes run as commands), and shows core's text as it is, never
// escaped a second time (internal/textsafe).
package tui

import (
	"context"
	"errors"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/copse-dev/copse/core"
)

// Options configure the picker.
type Options struct {
	Pick    bool   // copse pick: enter selects and returns the row, no switch; typing filters
	Query   string // the filter to start with (copse pick --query)
	NoColor bool
	// Profile is the colour profile of the first frame; Unknown lets Bubble Tea detect it,
	// which inside tmux runs `tmux info` before the first frame. The command line passes
	// what the environment implies, and the full detection on LateProfile when it arrives:
	// the picker repaints if it differs.
	Profile     colorprofile.Profile
	LateProfile <-chan colorprofile.Profile
	// Listing is the worktree list when the caller has it already (core.Open read it): the
	// first frame shows its rows, and statuses start at once. nil: the picker loads it.
	Listing       *core.Listing
	Input         io.Reader // nil = stdin (cmd passes /dev/tty for pick)
	Output        io.Writer // nil = stdout (cmd passes /dev/tty for pick)
	Width, Height int       // 0 = from the terminal (tests pin them)
}

// Result is what the user did.
type Result struct {
	Outcome   *core.Outcome  // the switch/back outcome when the user switched (Path = where to cd)
	Selected  *core.Worktree // pick mode: the chosen row
	Cancelled bool           // user quit without choosing
	// Interrupted is set when a second ctrl+c ended the picker during an operation.
	Interrupted *Interrupted
}

// Interrupted is an operation the user stopped waiting for. The caller reports the state
// it left and exits 130.
type Interrupted struct {
	Label     string // "removing feat/x"
	Executing bool   // false: only its checks ran, nothing changed
	// Settled receives the operation's answer (the first ctrl+c cancelled it; core kills
	// git and reads back the state it left). Only an executing operation answers.
	Settled <-chan Settled
}

// Settled is what an interrupted operation finally did.
type Settled struct {
	Outcome *core.Outcome
	Err     error
}

// Run shows the picker until the user chooses or quits. The caller opens svc first, so a
// start-up failure (not a repository, no git) is reported before the terminal is taken.
// Cancelling ctx ends the picker and any operation it runs; Result.Interrupted then
// names the operation, whose answer (the state it left) still arrives.
func Run(ctx context.Context, svc *core.Service, opts Options) (Result, error) {
	if svc == nil {
		return Result{}, errors.New("tui: no service")
	}
	m := newModel(ctx, svc, opts)
	// Signals are the caller's (copse's Main cancels ctx on SIGINT, SIGTERM, SIGHUP and
	// SIGQUIT): Bubble Tea's own handler would turn SIGTERM into a quiet quit, exit 0,
	// without the state an operation left.
	// Bubble Tea writes frames on a ticker, so the first frame waits up to one tick after
	// start: at its maximum rate (120/s, not the default 60) that is ≤8 ms, not ≤17.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(120)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	switch {
	case opts.NoColor:
		// NO_COLOR: the styles are plain already; Ascii also keeps the bubbles' defaults
		// from emitting colour.
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	case opts.Profile != colorprofile.Unknown:
		popts = append(popts, tea.WithColorProfile(opts.Profile))
	}
	prog := tea.NewProgram(m, popts...)
	if opts.LateProfile != nil && !opts.NoColor {
		go func() {
			select {
			case p := <-opts.LateProfile:
				if p != opts.Profile {
					prog.Send(tea.ColorProfileMsg{Profile: p}) // Bubble Tea re-renders with it
				}
			case <-ctx.Done():
			}
		}()
	}
	final, err := prog.Run()
	fm, ok := final.(Model)
	if !ok {
		fm = m
	}
	fm.cancel()
	if err != nil {
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			// A signal: the operation under way (if any) was cancelled with ctx; the caller
			// reports the state it left.
			return Result{Cancelled: true, Interrupted: fm.running()}, ctx.Err()
		}
		return Result{Cancelled: true}, err
	}
	return fm.Result(), nil
}
