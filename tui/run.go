// Package tui is copse's interactive picker: a Bubble Tea program over core.Service.
// It never runs a process itself; every read and change goes through core, which parses,
// checks and confirms exactly as it does for the CLI and the JSON tool. It does no I/O in
// Update (reads and changes run as commands), and shows core's text as it is, never
// escaped a second time (internal/textsafe).
package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/copse-dev/copse/core"
	"golang.org/x/term"
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
	Listing *core.Listing
	// Opening, when set (and no Service is given to Run), is how the picker gets its
	// Service and first listing while the caller's core.Open lists the worktrees: Run
	// builds the picker meanwhile, and touches the terminal only once Opening answered.
	// If opening failed, Run returns its error (Result.OpenErr) and nothing was drawn.
	Opening func(ctx context.Context) Opened
	// AfterFirstFrame is called once the first frame with rows is out (in a command,
	// never in Update): the caller starts there the work that would take the CPU from that
	// frame on a small machine (the full colour detection, which may run `tmux info`).
	AfterFirstFrame func()
	Input           io.Reader // nil = stdin (cmd passes /dev/tty for pick)
	Output          io.Writer // nil = stdout (cmd passes /dev/tty for pick)
	Width, Height   int       // 0 = from the terminal (tests pin them)
}

// Opened is what Options.Opening answers: the Service and the list core.Open read, or why
// the repository could not be opened.
type Opened struct {
	Service *core.Service
	Listing *core.Listing
	Err     error
}

// Result is what the user did.
type Result struct {
	// OpenErr is Opened.Err: the picker ended before drawing anything.
	OpenErr   error
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
	if svc == nil && opts.Opening == nil {
		return Result{}, errors.New("tui: no service")
	}
	m := newModel(ctx, svc, opts)
	if svc == nil {
		o := opts.Opening(ctx)
		if o.Err == nil && o.Service == nil {
			o.Err = errors.New("tui: Opening gave no service")
		}
		if o.Err != nil {
			m.cancel()
			return Result{Cancelled: true, OpenErr: o.Err}, o.Err
		}
		m.attach(o.Service)
		if o.Listing != nil {
			m.showListing(o.Listing)
		}
	}
	m.startEarlyLookup()
	m.drawEarly(firstFrameWait)
	prepainted := m.prepaint(opts)
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
	if err != nil && prepainted && !errors.Is(err, tea.ErrProgramKilled) {
		// Bubble Tea could not take over the screen copse drew on: leave it.
		_, _ = io.WriteString(opts.Output, leavePrepaint)
	}
	fm, ok := final.(Model)
	if !ok {
		fm = m
	}
	fm.cancel()
	fm.waitPools()
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

// prepaint writes the first frame straight to the terminal before Bubble Tea starts, and
// reports whether it did. Bubble Tea draws frames on its frame ticker, so its first frame
// comes up to 1/120 s after it has set the terminal up, and through its cell renderer,
// which costs a cold process a few milliseconds more: time a person waits after git has
// listed. This frame is the very View Bubble Tea then draws, and its first frame always
// redraws the whole screen, so nothing moves when it takes over. Only a terminal gets it
// (the size must be known and the rows in); colours go through the same profile Bubble
// Tea uses.
func (m Model) prepaint(opts Options) bool {
	f, ok := opts.Output.(*os.File)
	if !ok || !m.loaded || opts.Width <= 0 || opts.Height <= 0 || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	profile := opts.Profile
	if opts.NoColor {
		profile = colorprofile.Ascii
	}
	if profile == colorprofile.Unknown {
		return false // Bubble Tea detects it; drawing with a guess could flash wrong colours
	}
	var frame bytes.Buffer
	frame.WriteString(enterPrepaint)
	cw := &colorprofile.Writer{Forward: &frame, Profile: profile}
	// Lines end in \r\n: the terminal is still in its cooked mode here, which would turn
	// a bare \n into \r\n anyway, but this way the frame does not depend on it.
	if _, err := io.WriteString(cw, strings.ReplaceAll(m.View().Content, "\n", "\r\n")); err != nil {
		return false
	}
	_, err := f.Write(frame.Bytes())
	return err == nil
}

// enterPrepaint switches to the alternate screen, hides the cursor and clears the screen,
// as Bubble Tea's first frame does; leavePrepaint undoes it.
const (
	enterPrepaint = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
	leavePrepaint = "\x1b[?25h\x1b[?1049l"
)

// poolsGrace bounds how long Run waits for its cancelled status pools: each has at most
// its workers' git processes to see killed.
const poolsGrace = 5 * time.Second

// waitPools waits (a bounded time) for the status pools the picker started.
func (m Model) waitPools() {
	if m.pools != nil {
		m.pools.wait(poolsGrace)
	}
}
