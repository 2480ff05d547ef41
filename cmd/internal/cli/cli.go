// Package cli is copse's command line: one file per verb, each with an Options struct and
// a NewCmdX(f, runF) constructor so tests can check flag parsing without running anything.
// Every verb builds a core request and passes it through core.Service (Prepare, then
// Execute or DryRun); nothing here runs git or herdr, and nothing here decides whether an
// operation is safe: core does, for every front end alike.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Main runs copse with the process's arguments and standard streams and returns the exit
// code: 0 done, 1 refused or failed, 2 bad input or usage, 3 uncertain, 130 cancelled.
//
// SIGINT, SIGTERM, SIGHUP and SIGQUIT all cancel the root context: a running git is killed
// with its process group, core reads back and reports the state it left, and copse exits
// 130 (SIGQUIT's goroutine dump is not wanted from a tool). A second signal ends copse at
// once, exit 130, saying the state was not read back.
func Main() int { return run(NewFactory()) }

// MainMCP is copse-mcp's main: the same command line, with the MCP server built in.
func MainMCP(serve MCPServer) int {
	f := NewFactory()
	f.ServeMCP = serve
	return run(f)
}

func run(f *Factory) int {
	if IsHook(os.Args[1:]) {
		// An agent's hook: no signal handling, no command tree, no repository.
		return RunHook(os.Args[1:], f.In, f.Err, f.Getenv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := handleSignals(cancel, os.Stderr, func() { os.Exit(130) })
	defer stop()
	return Run(ctx, f, os.Args[1:])
}

// stopSignals are the signals that cancel copse.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// handleSignals calls cancel on the first stop signal, and on the second says so on errw
// and calls exit. The returned func stops handling (the signals' defaults return).
func handleSignals(cancel func(), errw io.Writer, exit func()) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case sig := <-sigs:
			fmt.Fprintf(errw, "copse: second signal (%v): stopping now without reading back what is left; run copse list to see it\n", sig)
			exit()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// Factory is what every command needs from the outside world. Tests replace its parts.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// Env is extra environment for the programs core starts (core.Options.Env): tests that
	// run commands in this process give git its HOME here, never in the process's.
	Env []string

	// StdinTerminal reports whether In is an interactive terminal (prompts need one).
	StdinTerminal func() bool
	// OutTerminal reports whether Out is a terminal (escaped paths, colour).
	OutTerminal func() bool
	// TermWidth is the terminal's width for confirmations, 0 when unknown.
	TermWidth func() int
	// OpenTTY opens the controlling terminal for the picker.
	OpenTTY func() (*os.File, error)
	// OpenService opens the safety core (core.Open).
	OpenService func(ctx context.Context, opts core.Options) (*core.Service, error)

	Global GlobalOptions

	// ServeMCP serves `copse mcp` in this process: set in copse-mcp, nil in copse, whose
	// mcp command hands over to copse-mcp.
	ServeMCP MCPServer

	// refreshes tracks the index refreshes the services this factory opened started after
	// a checkout; Run waits for them after the reply is written (core.Refreshes).
	refreshesOnce sync.Once
	refreshes     *core.Refreshes

	// inPicker is set while the picker owns the terminal: it shows lock waits in its status
	// line, and a line on stderr would tear its screen.
	inPicker atomic.Bool
}

// GlobalOptions are the flags every command takes.
type GlobalOptions struct {
	Dir     string // -C
	Backend string // --backend auto|git|herdr|tmux ("" = not given: auto)
	JSON    bool   // --json
	NoColor bool   // --no-color
}

// NewFactory is the Factory of a real process.
func NewFactory() *Factory {
	return &Factory{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv,
		StdinTerminal: func() bool { return term.IsTerminal(int(os.Stdin.Fd())) },
		OutTerminal:   func() bool { return term.IsTerminal(int(os.Stdout.Fd())) },
		TermWidth: func() int {
			for _, f := range []*os.File{os.Stderr, os.Stdout, os.Stdin} {
				if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
					return w
				}
			}
			return 0
		},
		OpenTTY:     func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) },
		OpenService: core.Open,
	}
}

// exitStatus is a result a command has already reported (copse tool writes its own reply).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a command-line mistake found before anything ran: exit 2. Its text is
// raw; Run escapes it once for display.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// Run executes one command line and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	// The reply is written first; a checkout's index refresh (at most until the next
	// second) finishes before the process exits, so it never races the caller's next git.
	defer f.indexRefreshes().Wait()
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.Err)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var st exitStatus
	if errors.As(err, &st) {
		return int(st)
	}
	var ce *core.Error
	if errors.As(err, &ce) && ctx.Err() != nil && ce.Kind != core.KindCancelled && ce.Kind != core.KindUncertain {
		// A signal arrived while the command ran: whatever it concluded afterwards (git
		// killed, a read cut short) is the cancellation's doing, reported as such (exit 130,
		// never 2 once anything ran). Uncertain stays 3: the user must check.
		c := *ce
		c.Kind, c.Code = core.KindCancelled, "cancelled"
		if !strings.Contains(c.Message, "cancel") {
			c.Message = "cancelled: " + c.Message
		}
		ce = &c
	}
	if ce == nil {
		// Everything that is not a core.Error comes from parsing the command line (cobra,
		// pflag, argument counts): bad usage, nothing ran.
		hint := "see copse --help"
		if cmd != nil && cmd != root {
			hint = "see `" + cmd.CommandPath() + " --help`"
		}
		var msg string
		var ue *usageError
		if errors.As(err, &ue) {
			msg = ue.msg
			if ue.hint != "" {
				hint = ue.hint
			}
		} else {
			var suggestions string
			msg, suggestions = splitSuggestions(err.Error())
			if suggestions != "" {
				hint = "did you mean " + suggestions + "? " + hint
			}
		}
		ce = &core.Error{Kind: core.KindUsage, Code: core.CodeUsage, Message: escapeControls(msg), Hint: escapeControls(hint), Err: err}
	}
	// --json may not have been parsed when parsing failed; the user still asked for it.
	f.Global.JSON = f.Global.JSON || wantsJSON(args)
	f.reportError(ce)
	return core.ExitCode(ce)
}

// escapeControls shows control characters, bidirectional marks and invalid UTF-8 as
// escapes, leaving everything else, backslashes included, as it is: cobra quotes some
// values itself, and doubling its backslashes would garble them.
func escapeControls(s string) string { return textsafe.EscapeHidden(s) }

// splitSuggestions separates cobra's "Did you mean this?" list from the message (which
// may hold a raw newline the user typed; Run escapes it).
func splitSuggestions(s string) (msg, suggestions string) {
	msg, rest, found := strings.Cut(strings.TrimRight(s, "\n"), "\n\nDid you mean this?\n")
	if !found {
		return msg, ""
	}
	var sug []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			sug = append(sug, l)
		}
	}
	return msg, strings.Join(sug, " or ")
}

// flagSuggestions names the command's flags closest to the one pflag did not know
// ("unknown flag: --statu"): cobra suggests commands (SuggestionsMinimumDistance), never
// flags. "" when the message is another one or nothing is close.
func flagSuggestions(cmd *cobra.Command, msg string) string {
	typed, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok || typed == "" {
		return ""
	}
	var names []string
	visit := func(fl *pflag.Flag) {
		if !fl.Hidden {
			names = append(names, fl.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	near := core.CloseNames(typed, names)
	for i, n := range near {
		near[i] = "--" + n
	}
	return strings.Join(near, " or ")
}

// wantsJSON finds --json among the flags (before "--") when flag parsing failed.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// reportError prints err: {"error":{…}} on stdout with --json, text on stderr otherwise.
func (f *Factory) reportError(e *core.Error) {
	if f.Global.JSON {
		f.writeJSON(jsonError{Error: jsonErrorBody{Code: e.Code, Message: e.Message, Hint: e.Hint, Log: e.Log, LogTail: e.LogTail, Reasons: e.Reasons}})
		return
	}
	// A message is read, so the home directory is ~ there as in every result; a hint
	// keeps paths whole, because its commands must run as written (~ inside quotes would not).
	fmt.Fprintf(f.Err, "copse: %s\n", tildeIn(e.Message, f.home()))
	if e.Hint != "" {
		fmt.Fprintf(f.Err, "  hint: %s\n", e.Hint)
	}
	printLogTail(f.Err, e.Log, e.LogTail, f.home())
}

// printLogTail shows the end of a failed test gate's log (already escaped by core) under
// the error, so the failure is seen without opening the log.
func printLogTail(w io.Writer, log string, tail []string, home string) {
	if len(tail) == 0 {
		return
	}
	fmt.Fprintf(w, "  last %d lines of %s:\n", len(tail), tildePath(log, home))
	for _, l := range tail {
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// jsonError is the --json error shape: {"error":{"code":"…","message":"…","hint":"…"}}.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// Log and LogTail come with a failed land test gate: its log and its last lines.
	Log     string   `json:"log,omitempty"`
	LogTail []string `json:"log_tail,omitempty"`
	// Reasons are every cause of a refusal that has several (the first is code's).
	Reasons []core.Reason `json:"reasons,omitempty"`
}

// writeJSON prints v as one line. encoding/json escapes control characters and
// U+2028/U+2029, so no value can break the line.
func (f *Factory) writeJSON(v any) error {
	enc := json.NewEncoder(f.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// warn prints warnings on stderr (they are in the --json reply too).
func (f *Factory) warn(ws []string) {
	for _, w := range ws {
		fmt.Fprintf(f.Err, "copse: warning: %s\n", tildeIn(w, f.home()))
	}
}

// notice prints information that is no warning (a branch now tracks its remote) on
// stderr, as "copse: TEXT" (they are in the --json reply as "notices").
func (f *Factory) notice(ns []string) {
	for _, n := range ns {
		fmt.Fprintf(f.Err, "copse: %s\n", tildeIn(n, f.home()))
	}
}

// color follows the conventions people set once in their shell: --no-color and NO_COLOR
// turn colour off whatever else says; CLICOLOR_FORCE (not "0") turns it on where stdout is
// no terminal (a pager, `watch`); CLICOLOR=0 turns it off on a terminal.
func (f *Factory) color() bool {
	switch {
	case f.Global.NoColor || f.Getenv("NO_COLOR") != "":
		return false
	case f.Getenv("CLICOLOR_FORCE") != "" && f.Getenv("CLICOLOR_FORCE") != "0":
		return true
	case f.Getenv("CLICOLOR") == "0":
		return false
	}
	return f.OutTerminal()
}

// open opens the safety core for the repository holding -C (or the working directory).
func (f *Factory) open(ctx context.Context) (*core.Service, error) { return f.openService(ctx, false) }

// openToList is open for a command whose first request is a list (core.Options.ListFirst).
func (f *Factory) openToList(ctx context.Context) (*core.Service, error) {
	return f.openService(ctx, true)
}

func (f *Factory) openService(ctx context.Context, listFirst bool) (*core.Service, error) {
	// COPSE_PREVIOUS comes from the shell integration: the directory this shell left.
	return f.OpenService(ctx, core.Options{Registry: ops.All, Dir: f.Global.Dir, Backend: f.Global.Backend, Getenv: f.Getenv, Env: f.Env,
		Previous: f.Getenv("COPSE_PREVIOUS"), OnLockWait: f.lockWaitNotice, ListFirst: listFirst,
		Refreshes: f.indexRefreshes(), Self: selfPath()})
}

// selfPath is this copse's executable, for the wrapper of create --run ("" when unknown:
// the wrapper then only runs the command).
func selfPath() string {
	exe, err := os.Executable()
	if err != nil || !filepath.IsAbs(exe) {
		return ""
	}
	return exe
}

func (f *Factory) indexRefreshes() *core.Refreshes {
	f.refreshesOnce.Do(func() { f.refreshes = core.NewRefreshes() })
	return f.refreshes
}

// lockWaitNotice says on stderr who holds the repository lock copse waits for.
func (f *Factory) lockWaitNotice(h core.LockHolder) {
	if f.inPicker.Load() {
		return
	}
	fmt.Fprintf(f.Err, "copse: waiting for the repository lock, held by %s\n", h)
}

// runE adapts a command body: every error it returns becomes a core.Error (a foreign
// error is a failure, exit 1), so Run can tell it from a command-line mistake (exit 2).
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if err == nil {
			return nil
		}
		var st exitStatus
		var ue *usageError
		if errors.As(err, &st) || errors.As(err, &ue) {
			return err
		}
		return core.AsError(err)
	}
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "copse",
		Short: "copse manages git worktrees safely: a picker, a command line and a JSON tool for agents",
		Long: `copse manages git worktrees safely. Run without a command, it opens the interactive
picker for the repository that holds the working directory (or -C DIR).

Exit codes: 0 done; 1 refused or failed (nothing changed); 2 bad input or usage (nothing
ran); 3 uncertain (a mutation ran but its result could not be confirmed: check, never
retry blindly); 130 cancelled.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          runE(func(cmd *cobra.Command, _ []string) error { return runPicker(cmd.Context(), f, false) }),
		// --version prints what `copse version` prints.
		Version: version(),
	}
	root.SetVersionTemplate(versionLine())
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	pf.StringVarP(&f.Global.Dir, "dir", "C", "", "run as if copse was started in `DIR`")
	pf.StringVar(&f.Global.Backend, "backend", "", "backend: auto, git, herdr or tmux (default auto)")
	pf.BoolVar(&f.Global.JSON, "json", false, "print the result (or the error) as JSON on stdout")
	pf.BoolVar(&f.Global.NoColor, "no-color", false, "no colour (also NO_COLOR; CLICOLOR_FORCE=1 forces it)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		hint := "see `" + cmd.CommandPath() + " --help`"
		if near := flagSuggestions(cmd, err.Error()); near != "" {
			hint = "did you mean " + near + "? " + hint
		}
		return &usageError{msg: err.Error(), hint: hint}
	})

	root.AddCommand(
		NewCmdPick(f, nil),
		NewCmdList(f, nil),
		NewCmdCreate(f, nil),
		NewCmdOpen(f, nil),
		NewCmdSwitch(f, nil),
		NewCmdRemove(f, nil),
		NewCmdBack(f, nil),
		NewCmdLand(f, nil),
		NewCmdRestore(f, nil),
		NewCmdSetup(f, nil),
		NewCmdApprove(f, nil),
		NewCmdClaim(f, nil),
		NewCmdRelease(f, nil),
		NewCmdPrune(f, nil),
		NewCmdEvents(f, nil),
		NewCmdCompletion(f),
		NewCmdInit(f, nil),
		NewCmdTool(f),
		NewCmdMCP(f),
		NewCmdVersion(f),
		NewCmdHook(f),
		NewCmdAgentRun(f),
	)
	// Verbs that name an existing worktree complete its branch or path; create completes
	// branches that could be checked out.
	for _, c := range root.Commands() {
		switch c.Name() {
		case "switch", "remove", "setup", "claim", "release", "land":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = completeWorktrees(f)
			}
		case "create":
			c.ValidArgsFunction = completeBranches(f)
		}
	}
	return root
}

// exactArgs is cobra.ExactArgs with a message that names what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usagef("usage: "+cmd.UseLine(), "%s needs %s", cmd.CommandPath(), what)
		case len(args) > n:
			return usagef("usage: "+cmd.UseLine()+" (quote a value that contains spaces)",
				"%s takes %s, got %d arguments (extra: \"%s\")", cmd.CommandPath(), what, len(args), strings.Join(args[n:], "\" \""))
		}
		return nil
	}
}

// maxArgs accepts at most n arguments (an optional TARGET).
func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("usage: "+cmd.UseLine()+" (quote a value that contains spaces)",
				"%s takes %s, got \"%s\"", cmd.CommandPath(), what, strings.Join(args, "\" \""))
		}
		return nil
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("usage: "+cmd.UseLine(), "%s takes no arguments, got \"%s\"", cmd.CommandPath(), strings.Join(args, "\" \""))
	}
	return nil
}

// optional returns a pointer to the flag's value when it was given (even empty), so the
// core can tell "absent" from "empty" and refuse the latter.
func optional(cmd *cobra.Command, name, value string) *string {
	if cmd.Flags().Changed(name) {
		return &value
	}
	return nil
}
