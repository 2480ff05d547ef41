package tmux

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Pane is one pane of a session's listing, with its window.
type Pane struct {
	Window         string    // @N
	WindowIndex    int       // the number shown in the status line
	WindowActive   bool      // the current window of the session
	WindowActivity time.Time // last output in any pane of the window
	WindowName     string    // untrusted text: shown escaped, never used as a target
	Mark           string    // MarkOption of the window ("" when copse did not mark it)
	ID             string    // %N
	PID            int       // the pane's first process (its shell or the command it runs)
	Dead           bool      // the process ended and the pane stays (remain-on-exit)
	// ExitCode is a dead pane's exit status (#{pane_dead_status}), or 128+N when signal N
	// ended it (#{pane_dead_signal}, as a shell reports it); -1 when tmux names neither.
	ExitCode int
	// DeadSince is when a dead pane's command ended (#{pane_dead_time}; zero when unknown).
	DeadSince time.Time
	Command   string // the pane's foreground command (untrusted text)
	Session   string // $N: the session of the window
}

// SessionOf returns the session ($N) and window (@N) that hold pane.
func (c *Client) SessionOf(ctx context.Context, pane string) (session, window string, err error) {
	cmd, err := SessionOf(pane)
	if err != nil {
		return "", "", err
	}
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return "", "", err
	}
	if len(rows) != 1 || checkID("", "", rows[0][0], '$') != nil || !IsWindowID(rows[0][1]) {
		return "", "", c.wrong(cmd, "display-message did not name one session and window")
	}
	return rows[0][0], rows[0][1], nil
}

// Place is where a pane is: its session ($N) and window (@N), and what SetPrevious last
// recorded for that session ("" when nothing): the worktree and the window it left.
type Place struct {
	Session, Window, Previous, PreviousWindow string
}

// Survey is SessionOf, Previous and Panes in one tmux run: copse asks it once at start,
// beside git's list, so a command inside tmux pays for one tmux process, run while git
// runs, before it can answer.
func (c *Client) Survey(ctx context.Context, pane string) (Place, []Pane, error) {
	cmd, err := Survey(pane)
	if err != nil {
		return Place{}, nil, err
	}
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return Place{}, nil, err
	}
	var at Place
	panes := make([]Pane, 0, len(rows))
	n := len(paneFields)
	for _, r := range rows {
		p, err := c.pane(cmd, r)
		if err != nil {
			return Place{}, nil, err
		}
		if p.ID == pane {
			at.Session, at.Window, at.Previous = p.Session, p.Window, r[n]
			if IsWindowID(r[n+1]) {
				at.PreviousWindow = r[n+1]
			}
		}
		panes = append(panes, p)
	}
	if at.Window == "" {
		return Place{}, nil, c.wrong(cmd, "list-panes did not list pane "+pane)
	}
	return at, panes, nil
}

// Panes lists every pane of session.
func (c *Client) Panes(ctx context.Context, session string) ([]Pane, error) {
	cmd, err := ListPanes(session)
	if err != nil {
		return nil, err
	}
	return c.panes(ctx, cmd)
}

// AllPanes lists every pane of every session of the server.
func (c *Client) AllPanes(ctx context.Context) ([]Pane, error) {
	return c.panes(ctx, ListAllPanes())
}

func (c *Client) panes(ctx context.Context, cmd Cmd) ([]Pane, error) {
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return nil, err
	}
	out := make([]Pane, 0, len(rows))
	for _, r := range rows {
		p, err := c.pane(cmd, r)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// pane reads one row of paneFields (the row may carry more fields after them).
func (c *Client) pane(cmd Cmd, r []string) (Pane, error) {
	p := Pane{Window: r[0], WindowActive: r[2] == "1", ID: r[4], Dead: r[6] == "1", Mark: r[7], Command: r[8], WindowName: r[9], Session: r[10]}
	var e1, e2, e3 error
	p.WindowIndex, e1 = strconv.Atoi(r[1])
	act, e2 := strconv.ParseInt(r[3], 10, 64)
	p.PID, e3 = strconv.Atoi(r[5])
	if e1 != nil || e2 != nil || (e3 != nil && !p.Dead) || !IsWindowID(p.Window) || !IsPaneID(p.ID) || checkID("", "", p.Session, '$') != nil {
		return Pane{}, c.wrong(cmd, "a pane row has a field of the wrong shape")
	}
	p.WindowActivity = time.Unix(act, 0)
	p.ExitCode = deadStatus(p.Dead, r[11], r[12])
	if sec, err := strconv.ParseInt(r[13], 10, 64); p.Dead && err == nil && sec > 0 {
		p.DeadSince = time.Unix(sec, 0)
	}
	return p, nil
}

// deadStatus reads a dead pane's exit: its status, else 128+signal, else -1 (not dead, or a
// tmux that does not say).
func deadStatus(dead bool, status, signal string) int {
	if !dead {
		return -1
	}
	if n, err := strconv.Atoi(status); err == nil && n >= 0 {
		return n
	}
	if n, err := strconv.Atoi(signal); err == nil && n > 0 {
		return 128 + n
	}
	return -1
}

// NewWindow makes the window, marks it for a.Dir and returns its id. When the mark cannot
// be set the window is closed again: an unmarked window of copse's would never be found.
func (c *Client) NewWindow(ctx context.Context, a NewWindowArgs) (string, error) {
	cmd, err := NewWindow(a)
	if err != nil {
		return "", err
	}
	if _, err := SetWindowMark("@0", a.Dir); err != nil { // checked now, before anything runs
		return "", err
	}
	out, err := c.Run(ctx, cmd)
	if err != nil {
		return "", err
	}
	id := strings.TrimSuffix(string(out), "\n")
	if !IsWindowID(id) {
		return "", c.wrong(cmd, "new-window did not print a window id")
	}
	mark, _ := SetWindowMark(id, a.Dir)
	if _, err := c.Run(ctx, mark); err != nil {
		if kill, kerr := KillWindow(id); kerr == nil {
			c.Run(context.WithoutCancel(ctx), kill)
		}
		return "", err
	}
	return id, nil
}

// SelectWindow makes window current in its session.
func (c *Client) SelectWindow(ctx context.Context, window string) error {
	cmd, err := SelectWindow(window)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// KillWindow closes window.
func (c *Client) KillWindow(ctx context.Context, window string) error {
	cmd, err := KillWindow(window)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// SetPrevious records the worktree session left (see PreviousOption) and, when window is
// not "", the window it left (PreviousWindowOption).
func (c *Client) SetPrevious(ctx context.Context, session, path, window string) error {
	cmd, err := SetPrevious(session, path)
	if err != nil {
		return err
	}
	if _, err = c.Run(ctx, cmd); err != nil || window == "" {
		return err
	}
	if cmd, err = SetPreviousWindow(session, window); err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// UnsetMark takes copse's mark off window.
func (c *Client) UnsetMark(ctx context.Context, window string) error {
	cmd, err := UnsetWindowMark(window)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// SwitchClient shows window to the current client (see SwitchClient).
func (c *Client) SwitchClient(ctx context.Context, window string) error {
	cmd, err := SwitchClient(window)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// DefaultShell is the server's default-shell and default-command (either "" when unset).
// A value with NUL or a new line is not passed on: "" is returned for it.
func (c *Client) DefaultShell(ctx context.Context) (shell, command string, err error) {
	cmd := DefaultShell()
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return "", "", err
	}
	if len(rows) != 1 {
		return "", "", c.wrong(cmd, "display-message did not print one row")
	}
	if !strings.HasPrefix(rows[0][0], "/") || strings.ContainsAny(rows[0][0], "\x00\n") {
		return "", "", nil
	}
	return rows[0][0], rows[0][1], nil
}

// KillWindowAfter asks the server to close window once pid has ended (see KillWindowAfter).
func (c *Client) KillWindowAfter(ctx context.Context, window string, pid, limit int) error {
	bin := c.Bin
	if bin == "" {
		bin = "tmux"
	}
	cmd, err := KillWindowAfter(bin, c.Socket, window, pid, limit)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, cmd)
	return err
}

// Previous reads what SetPrevious recorded ("" when nothing).
func (c *Client) Previous(ctx context.Context, session string) (string, error) {
	cmd, err := ReadPrevious(session)
	if err != nil {
		return "", err
	}
	rows, err := c.listing(ctx, cmd)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 || rows[0][0] != session {
		return "", c.wrong(cmd, "display-message did not answer for the session asked")
	}
	return rows[0][1], nil
}

func (c *Client) listing(ctx context.Context, cmd Cmd) ([][]string, error) {
	out, fr, err := c.run(ctx, cmd)
	if err != nil {
		return nil, err
	}
	rows, err := fr.rows(out, len(cmd.fields))
	if err != nil {
		return nil, c.wrong(cmd, err.Error())
	}
	return rows, nil
}

func (c *Client) wrong(cmd Cmd, msg string) *Error {
	return &Error{Kind: ErrWrongReply, Message: msg, ExitCode: 0, Argv: c.argv(cmd, ""), Started: true}
}
