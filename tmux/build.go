package tmux

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// MarkOption is the window user option copse sets on the windows it makes: its value is
// the worktree's path. A window without it, or with another path, is never taken.
const MarkOption = "@copse-worktree"

// Cmd is a checked tmux command. Its fields are unexported: the builders below are the
// only way to make one, so every command that runs has passed the checks.
type Cmd struct {
	verb string
	args []string // after the verb
	// format is the -F format of a listing, whose output is framed by sep (parse.go).
	fields []string
}

// Verb is the tmux command ("list-panes", "new-window", …).
func (c Cmd) Verb() string { return c.verb }

// Args are the arguments after the verb, as they are passed to tmux.
func (c Cmd) Args() []string { return slices.Clone(c.args) }

// String is the command as a shell would take it (dry runs, plans), without the socket.
func (c Cmd) String() string {
	return textsafe.ShellJoin(append([]string{"tmux", c.verb}, c.args...))
}

// id checks a tmux id: prefix then decimal digits ("$3", "@12", "%7"). Names are never
// accepted as targets: a window or session may be named after a branch.
func checkID(verb, arg, raw string, prefix byte) error {
	ok := len(raw) >= 2 && len(raw) <= 12 && raw[0] == prefix
	for i := 1; ok && i < len(raw); i++ {
		ok = raw[i] >= '0' && raw[i] <= '9'
	}
	if !ok {
		return &ArgError{Verb: verb, Arg: arg, Reason: "not a tmux " + map[byte]string{'$': "session", '@': "window", '%': "pane"}[prefix] + " id: " + textsafe.Cut(textsafe.Escape(raw), 40)}
	}
	return nil
}

// IsWindowID reports whether s is a tmux window id (@N).
func IsWindowID(s string) bool { return checkID("", "", s, '@') == nil }

// IsPaneID reports whether s is a tmux pane id (%N).
func IsPaneID(s string) bool { return checkID("", "", s, '%') == nil }

// checkValue refuses what tmux or a terminal could misread: NUL (argv cannot carry it),
// other control characters and invalid UTF-8 (a window name or path that rewrites the
// screen), and an empty value.
func checkValue(verb, arg, v string) error {
	if v == "" {
		return &ArgError{Verb: verb, Arg: arg, Reason: "empty"}
	}
	if textsafe.Escape(v) != v {
		return &ArgError{Verb: verb, Arg: arg, Reason: "contains control characters or invalid UTF-8: " + textsafe.Cut(textsafe.Escape(v), 80)}
	}
	return nil
}

func checkDir(verb, arg, dir string) error {
	if err := checkValue(verb, arg, dir); err != nil {
		return err
	}
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return &ArgError{Verb: verb, Arg: arg, Reason: "not a clean absolute path: " + textsafe.Cut(textsafe.Escape(dir), 200)}
	}
	return nil
}

// literal escapes a value for the arguments tmux expands as a format (-n, -c): "#" starts
// a format, "##" is a literal "#".
func literal(s string) string { return strings.ReplaceAll(s, "#", "##") }

// SessionOf asks for the session holding pane (the TMUX_PANE of copse's client).
func SessionOf(pane string) (Cmd, error) {
	if err := checkID("display-message", "-t", pane, '%'); err != nil {
		return Cmd{}, err
	}
	return listing("display-message", []string{"-p", "-t", pane}, "session_id", "window_id"), nil
}

// Survey asks, for pane, everything copse needs of tmux at start in one run: every pane of
// the server (a worktree's window may be in another session), each row carrying its
// session's id and PreviousOption and PreviousWindowOption (session options, which a
// pane's format sees). The pane's own row gives its session and window. pane is checked
// here; list-panes -a takes no target.
func Survey(pane string) (Cmd, error) {
	if err := checkID("list-panes", "-t", pane, '%'); err != nil {
		return Cmd{}, err
	}
	return listing("list-panes", []string{"-a"}, append(slices.Clone(paneFields), PreviousOption, PreviousWindowOption)...), nil
}

// paneFields are what ListPanes reads of each pane; the untrusted texts come last only by
// habit: the framing (parse.go) does not depend on it.
var paneFields = []string{"window_id", "window_index", "window_active", "window_activity", "pane_id", "pane_pid",
	"pane_dead", MarkOption, "pane_current_command", "window_name", "session_id", "pane_dead_status", "pane_dead_signal", "pane_dead_time"}

// ListAllPanes lists every pane of every session of the server: a worktree's window may be
// in another session than copse's (one run for the whole server).
func ListAllPanes() Cmd {
	return listing("list-panes", []string{"-a"}, paneFields...)
}

// ListPanes lists every pane of session with its window (one run for the whole session).
func ListPanes(session string) (Cmd, error) {
	if err := checkID("list-panes", "-t", session, '$'); err != nil {
		return Cmd{}, err
	}
	return listing("list-panes", []string{"-s", "-t", session}, paneFields...), nil
}

func listing(verb string, args []string, fields ...string) Cmd {
	return Cmd{verb: verb, args: args, fields: fields}
}

// NewWindowArgs are the inputs of NewWindow.
type NewWindowArgs struct {
	Session string   // $N: the window is added to this session, at its next free index
	Dir     string   // absolute: the worktree
	Name    string   // shown in the status line (the branch)
	Focus   bool     // select it; otherwise it opens in the background (-d)
	Env     []string // KEY=VALUE for the window's process (-e), each a separate argument
	Argv    []string // the program and its arguments, run without a shell by tmux; empty: the default shell
}

// NewWindow makes a window and prints its id. The mark is set by a second command
// (SetWindowMark): new-window has no option for user options.
func NewWindow(a NewWindowArgs) (Cmd, error) {
	const verb = "new-window"
	if err := checkID(verb, "-t", a.Session, '$'); err != nil {
		return Cmd{}, err
	}
	if err := checkDir(verb, "-c", a.Dir); err != nil {
		return Cmd{}, err
	}
	if err := checkValue(verb, "-n", a.Name); err != nil {
		return Cmd{}, err
	}
	args := []string{"-P", "-F", "#{window_id}"}
	if !a.Focus {
		args = append(args, "-d")
	}
	args = append(args, "-t", a.Session+":", "-c", literal(a.Dir), "-n", literal(a.Name))
	for _, kv := range a.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !envName(k) {
			return Cmd{}, &ArgError{Verb: verb, Arg: "-e", Reason: "not NAME=VALUE with a plain name: " + textsafe.Cut(textsafe.Escape(kv), 80)}
		}
		if strings.IndexByte(v, 0) >= 0 {
			return Cmd{}, &ArgError{Verb: verb, Arg: "-e", Reason: k + " contains NUL"}
		}
		args = append(args, "-e", kv)
	}
	if len(a.Argv) > 0 {
		for _, s := range a.Argv {
			if strings.IndexByte(s, 0) >= 0 {
				return Cmd{}, &ArgError{Verb: verb, Arg: "command", Reason: "an argument contains NUL"}
			}
		}
		if len(a.Argv) == 1 {
			// tmux hands a lone command to a shell; copse never does that to a value.
			return Cmd{}, &ArgError{Verb: verb, Arg: "command", Reason: "a command of one word would be run by a shell; pass the program and its arguments"}
		}
		args = append(append(args, "--"), a.Argv...)
	}
	return Cmd{verb: verb, args: args, fields: []string{"window_id"}}, nil
}

func envName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// SetWindowMark marks window as copse's window of the worktree at path.
func SetWindowMark(window, path string) (Cmd, error) {
	const verb = "set-option"
	if err := checkID(verb, "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	if err := checkDir(verb, MarkOption, path); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: verb, args: []string{"-w", "-t", window, "--", MarkOption, path}}, nil
}

// UnsetWindowMark takes copse's mark off window (its worktree is gone).
func UnsetWindowMark(window string) (Cmd, error) {
	const verb = "set-option"
	if err := checkID(verb, "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: verb, args: []string{"-w", "-u", "-t", window, MarkOption}}, nil
}

// SwitchClient shows window to the current client (the one tmux finds for copse's pane,
// from TMUX), in whichever session window is: select-window only makes it current in its
// own session, which a client looking at another session does not see.
func SwitchClient(window string) (Cmd, error) {
	const verb = "switch-client"
	if err := checkID(verb, "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: verb, args: []string{"-t", window}}, nil
}

// DefaultShell asks for the server's default-shell and default-command options: what tmux
// starts in a window made without a command.
func DefaultShell() Cmd {
	return listing("display-message", []string{"-p"}, "default-shell", "default-command")
}

// KillWindowAfter closes window once process pid has ended (bounded by limit seconds, then
// closed anyway), run by the tmux server itself in the background (run-shell -b): copse
// can close the window it runs in after it has written its reply. bin is the tmux program
// ("tmux": the server's PATH finds it), socket the server's.
func KillWindowAfter(bin, socket, window string, pid, limit int) (Cmd, error) {
	const verb = "run-shell"
	if err := checkID(verb, "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	if err := checkDir(verb, "socket", socket); err != nil {
		return Cmd{}, err
	}
	if err := checkValue(verb, "bin", bin); err != nil {
		return Cmd{}, err
	}
	if pid <= 1 || limit <= 0 {
		return Cmd{}, &ArgError{Verb: verb, Arg: "pid", Reason: "not a process to wait for"}
	}
	// Only checked values reach the shell: digits, an id of digits, and the socket path
	// quoted for sh; tmux expands '#' in the command, so it is doubled.
	script := fmt.Sprintf(`i=0; while kill -0 %d 2>/dev/null && [ $i -lt %d ]; do sleep 0.1; i=$((i+1)); done; exec %s -S %s kill-window -t %s`,
		pid, limit*10, textsafe.ShellQuote(bin), textsafe.ShellQuote(socket), window)
	return Cmd{verb: verb, args: []string{"-b", literal(script)}}, nil
}

// SelectWindow makes window the current window of its session.
func SelectWindow(window string) (Cmd, error) {
	if err := checkID("select-window", "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: "select-window", args: []string{"-t", window}}, nil
}

// KillWindow closes window and ends the processes of its panes (tmux sends SIGHUP).
func KillWindow(window string) (Cmd, error) {
	if err := checkID("kill-window", "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: "kill-window", args: []string{"-t", window}}, nil
}

// PreviousOption is the session user option holding the worktree a switch left, so that a
// later `copse back` (another process) knows where to return.
const PreviousOption = "@copse-previous"

// SetPrevious records path as the worktree session left.
func SetPrevious(session, path string) (Cmd, error) {
	const verb = "set-option"
	if err := checkID(verb, "-t", session, '$'); err != nil {
		return Cmd{}, err
	}
	if err := checkDir(verb, PreviousOption, path); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: verb, args: []string{"-t", session, "--", PreviousOption, path}}, nil
}

// PreviousWindowOption is the session user option holding the window (@N) a switch left:
// `copse back` selects it again, as tmux's last-window does, even when copse did not make
// it (the session's first window, in the main checkout).
const PreviousWindowOption = "@copse-previous-window"

// SetPreviousWindow records window as the one session left.
func SetPreviousWindow(session, window string) (Cmd, error) {
	const verb = "set-option"
	if err := checkID(verb, "-t", session, '$'); err != nil {
		return Cmd{}, err
	}
	if err := checkID(verb, PreviousWindowOption, window, '@'); err != nil {
		return Cmd{}, err
	}
	return Cmd{verb: verb, args: []string{"-t", session, "--", PreviousWindowOption, window}}, nil
}

// ReadPrevious reads what SetPrevious recorded ("" when nothing).
func ReadPrevious(session string) (Cmd, error) {
	if err := checkID("display-message", "-t", session, '$'); err != nil {
		return Cmd{}, err
	}
	return listing("display-message", []string{"-p", "-t", session}, "session_id", PreviousOption), nil
}
