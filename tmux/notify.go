package tmux

import (
	"context"
	"strings"
)

// PaneTerm is what a notification needs of a pane: its terminal device, its window, and
// whether a person looks at it now (the pane is its window's active pane, the window its
// session's current one, and a client is attached to the session).
type PaneTerm struct {
	TTY     string // /dev/pts/N
	Window  string // @N
	Visible bool
}

// PaneTerminal asks for pane's terminal and whether it is in view.
func PaneTerminal(pane string) (Cmd, error) {
	if err := checkID("display-message", "-t", pane, '%'); err != nil {
		return Cmd{}, err
	}
	return listing("display-message", []string{"-p", "-t", pane},
		"pane_tty", "window_id", "pane_active", "window_active", "session_attached"), nil
}

// WindowTerminal asks the same of window's active pane.
func WindowTerminal(window string) (Cmd, error) {
	if err := checkID("display-message", "-t", window, '@'); err != nil {
		return Cmd{}, err
	}
	return listing("display-message", []string{"-p", "-t", window},
		"pane_tty", "window_id", "pane_active", "window_active", "session_attached"), nil
}

// PaneTerminal reads PaneTerm of a pane (%N) or of a window's active pane (@N).
func (c *Client) PaneTerminal(ctx context.Context, target string) (PaneTerm, error) {
	build := PaneTerminal
	if strings.HasPrefix(target, "@") {
		build = WindowTerminal
	}
	cmd, err := build(target)
	if err != nil {
		return PaneTerm{}, err
	}
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return PaneTerm{}, err
	}
	if len(rows) != 1 || !strings.HasPrefix(rows[0][0], "/dev/") || !IsWindowID(rows[0][1]) {
		return PaneTerm{}, c.wrong(cmd, "display-message did not name one pane's terminal")
	}
	r := rows[0]
	attached := r[4] != "" && r[4] != "0"
	return PaneTerm{TTY: r[0], Window: r[1], Visible: r[2] == "1" && r[3] == "1" && attached}, nil
}
