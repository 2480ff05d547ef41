// Package hold hides, while the libraries below initialise, the environment variables
// that make them probe the terminal and the system at package init:
//
//   - charm.land/lipgloss/v2 builds its package-level Writer with
//     colorprofile.Detect(os.Stdout, os.Environ()): when stdout is a terminal that reads
//     the terminfo database (looking up the user for ~/.terminfo) and, inside tmux, runs
//     `tmux info`. copse never writes through lipgloss.Writer.
//   - github.com/atotto/clipboard (through bubbles' textinput) looks for xclip, xsel,
//     wl-copy, termux and Windows tools on PATH. copse turns the inputs' clipboard paste
//     off (the terminal's own paste still works), so it never uses what it found.
//
// Those probes cost every command, drawing or not, up to tens of milliseconds inside
// tmux. Go has no lazy package init, and these packages must be linked for `copse pick`,
// so instead the variables they read (TERM, PATH, WAYLAND_DISPLAY) are unset here and put
// back by package quiet, which imports both libraries and so initialises after them.
//
// Why this runs first: since Go 1.21 packages initialise in import-path order, each
// step taking the first package whose imports are all initialised. This package imports
// only os; both libraries import os/exec, which imports os. Once os is initialised this
// package is ready, and "github.com/…" sorts before "os/exec", so it initialises before
// os/exec and therefore before anything that imports os/exec. The built binary's tests
// (TestCommandsThatDoNotDrawNeverRunTmux, TestPickerAsksTmuxAtMostOnce in cmd/copse) fail
// if the order ever breaks.
//
// Every package initialised in between also sees these three variables unset: no package
// may read them (or exec.LookPath) in a package-level initialiser. copse's own packages
// take their environment through Options/Getenv at run time, which is what they should do
// anyway.
//
// Import package quiet (never this one alone) from main.
package hold

import "os"

// Held are the variables hidden during init, and their values ("" and false: unset).
var Held = func() map[string]*string {
	held := map[string]*string{}
	for _, k := range []string{"TERM", "PATH", "WAYLAND_DISPLAY"} {
		if v, ok := os.LookupEnv(k); ok {
			held[k] = &v
			os.Unsetenv(k)
		} else {
			held[k] = nil
		}
	}
	return held
}()
