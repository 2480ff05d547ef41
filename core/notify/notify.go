// Package notify makes an agent's turn to "needs you" or "done" reach the person when they
// are not looking at its pane: tmux's bell on the agent's window (so #{window_bell_flag},
// monitor-bell and the status line show it), and, where the terminal shows them, an OSC 9
// or OSC 777 desktop notification passed through tmux (DCS passthrough, which tmux forwards
// only with allow-passthrough on; `all` for a pane that is not visible).
//
// There is no daemon: whoever sees the transition first-hand sends it, once: the wrapper of
// a create --run command (done), the hook command (needs you), and list --watch or the
// picker's re-read for a state copse read from the screen. The text of a notification is
// copse's own words around names the agent chose (its program, the branch): every control
// byte and bidirectional mark is dropped from them, so nothing an agent prints can drive
// the terminal.
package notify

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tmux"
)

// Mode is how a notification is sent (git config copse.notify).
type Mode string

const (
	Off    Mode = "off"    // nothing
	Bell   Mode = "bell"   // tmux's bell on the agent's window only
	OSC9   Mode = "osc9"   // the bell, and OSC 9 (iTerm2, Ghostty, WezTerm, kitty, Windows Terminal)
	OSC777 Mode = "osc777" // the bell, and OSC 777 notify (foot, urxvt, Ghostty, WezTerm)
)

// Default is the mode when copse.notify is unset.
const Default = OSC9

// ParseMode reads a copse.notify value ("" is Default). ok is false for a value copse does
// not know; the caller warns and uses Default.
func ParseMode(s string) (Mode, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return Default, true
	case "off", "false", "no", "none":
		return Off, true
	case "bell":
		return Bell, true
	case "osc9", "osc", "on", "true", "yes":
		return OSC9, true
	case "osc777":
		return OSC777, true
	}
	return Default, false
}

// Worth reports a transition that deserves one notification: the agent turned to needs
// you (blocked) or done from another state (old nil: never seen before).
func Worth(old *agentstate.Record, now agentstate.Record) bool {
	if now.State != agentstate.Blocked && now.State != agentstate.Done {
		return false
	}
	return old == nil || old.State != now.State
}

// Message is the notification's text for an agent (program, "" when unknown) of a worktree
// (branch or directory name) in state, with its exit code for done.
func Message(program, where, state string, exit *int) string {
	who := clean(program, 40)
	if who == "" {
		who = "an agent"
	}
	if w := clean(where, 80); w != "" {
		who += " in " + w
	}
	switch state {
	case agentstate.Blocked:
		return who + " needs you"
	case agentstate.Done:
		if exit != nil && *exit != 0 {
			return who + " is done (exit " + itoa(*exit) + ")"
		}
		return who + " is done"
	}
	return who + " is " + clean(state, 20)
}

// Bytes is what goes to the pane's terminal for mode: BEL (tmux raises the window's bell
// flag), then the OSC notification in tmux's DCS passthrough, every ESC inside doubled.
func Bytes(mode Mode, msg string) []byte {
	if mode == Off {
		return nil
	}
	out := "\a"
	body := clean(msg, 200)
	var osc string
	switch mode {
	case OSC9:
		osc = "\x1b]9;" + body + "\x1b\\"
	case OSC777:
		osc = "\x1b]777;notify;copse;" + body + "\x1b\\"
	}
	if osc != "" {
		out += "\x1bPtmux;" + strings.ReplaceAll(osc, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return []byte(out)
}

// clean keeps the safe runes of s (no control byte, no bidirectional mark), at most max
// bytes of them: agent text inside a terminal sequence.
func clean(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\uFFFD' || textsafe.IsControl(r) || textsafe.IsBidi(r) {
			continue
		}
		if b.Len()+len(string(r)) > max {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Target is where a notification goes: a tmux server and the agent's pane (%N) or window
// (@N, its active pane).
type Target struct {
	Client *tmux.Client
	Pane   string
	Mode   Mode
}

// FromEnv is the target of the pane a process runs in (TMUX, TMUX_PANE), with the mode in
// COPSE_NOTIFY (Default when unset); ok is false outside tmux.
func FromEnv(getenv func(string) string) (Target, bool) {
	sock := tmux.SocketFromEnv(getenv("TMUX"))
	pane := getenv("TMUX_PANE")
	if sock == "" || !tmux.IsPaneID(pane) {
		return Target{}, false
	}
	mode, _ := ParseMode(getenv("COPSE_NOTIFY"))
	return Target{Client: &tmux.Client{Socket: sock}, Pane: pane, Mode: mode}, true
}

// ErrVisible is Send's answer for a pane the person is looking at: nothing was sent.
var ErrVisible = errors.New("the pane is in view")

// Send sends msg to the target's pane unless the person looks at it (ErrVisible), or the
// mode is Off (nil: nothing to do).
func Send(ctx context.Context, t Target, msg string) error {
	if t.Mode == Off || t.Client == nil {
		return nil
	}
	pt, err := t.Client.PaneTerminal(ctx, t.Pane)
	if err != nil {
		return err
	}
	if pt.Visible {
		return ErrVisible
	}
	// The pane's terminal, write-only and never as a controlling terminal: what is written
	// is the pane's output, which tmux reads (the bell) and passes on (the OSC).
	f, err := os.OpenFile(pt.TTY, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(Bytes(t.Mode, msg))
	return err
}

// Transition sends one notification when old→now is Worth it (where names the worktree);
// sent says whether anything went out. The hook command calls it with the record it
// replaced and the one it wrote.
func Transition(ctx context.Context, t Target, old *agentstate.Record, now agentstate.Record, where string) (sent bool, err error) {
	if !Worth(old, now) || t.Mode == Off {
		return false, nil
	}
	program := now.Program
	if program == "" {
		program = now.Agent
	}
	if err := Send(ctx, t, Message(program, where, now.State, now.ExitCode)); err != nil {
		if errors.Is(err, ErrVisible) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
