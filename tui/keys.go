package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every binding of the picker as data. Help is generated from it (see
// helpView), and bindings that do not apply are disabled rather than special-cased, so the
// help line and the behaviour cannot drift apart.
type KeyMap struct {
	// List navigation.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding

	// Actions on the list.
	Switch      key.Binding
	Open        key.Binding
	New         key.Binding
	Remove      key.Binding
	ForceRemove key.Binding
	Claim       key.Binding // claim the row for the picker's session (COPSE_SESSION / Herdr workspace)
	Release     key.Binding
	Prune       key.Binding // prune preview: what goes, what stays and why; asks before it acts
	Land        key.Binding
	// Force retries the request the status line's refusal names with force (a claim or
	// release another session holds); enabled only while that offer is on screen.
	Force     key.Binding
	Back      key.Binding
	Filter    key.Binding
	Refresh   key.Binding
	Help      key.Binding
	Quit      key.Binding
	ForceQuit key.Binding

	// While typing a filter.
	FilterUp     key.Binding
	FilterDown   key.Binding
	FilterAccept key.Binding // back to the list, filter kept: d, D, o act on the matches
	FilterClear  key.Binding

	// Session prompt (c or C with no session known).
	SubmitSession key.Binding

	// Create form.
	NextField   key.Binding
	PrevField   key.Binding
	Submit      key.Binding
	ToggleFocus key.Binding
	CancelForm  key.Binding

	// Confirmation dialog: only y confirms; enter answers the default, No.
	Yes key.Binding
	No  key.Binding

	// While an operation runs: ctrl+c cancels the operation, not the picker.
	CancelOp key.Binding

	// The views beyond the bare list (views.go): sorting, preview, editor, shell, copying
	// the path.
	Sort    key.Binding
	Preview key.Binding
	Edit    key.Binding
	Shell   key.Binding
	Copy    key.Binding
	// NextNeedsYou moves to the next row whose agent waits for its person, cycling.
	NextNeedsYou key.Binding

	// Remove dialog: delete the branch too.
	DeleteBranch key.Binding

	// Panels (setup log, preview).
	ScrollUp   key.Binding
	ScrollDown key.Binding
	ClosePanel key.Binding
}

// DefaultKeyMap returns the picker's bindings. It is a function, not a package variable, so
// each model owns its copy and can enable or disable bindings per state.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k", "ctrl+p"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j", "ctrl+n"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Home:     key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		End:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),

		Switch:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "switch")),
		Open:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open workspace")),
		New:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Remove:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "remove")),
		ForceRemove: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "force remove")),
		Claim:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "claim")),
		Release:     key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "release")),
		Prune:       key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "prune…")),
		Land:        key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "land")),
		Force:       key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "again with force")),
		Back:        key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "back")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Refresh:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "quit")),
		ForceQuit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),

		FilterUp:     key.NewBinding(key.WithKeys("up", "ctrl+p", "ctrl+k"), key.WithHelp("↑", "up")),
		FilterDown:   key.NewBinding(key.WithKeys("down", "ctrl+n", "ctrl+j"), key.WithHelp("↓", "down")),
		FilterAccept: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "keep filter")),
		FilterClear:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),

		SubmitSession: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use this session")),

		NextField:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		PrevField:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous")),
		Submit:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "create")),
		ToggleFocus: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		CancelForm:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),

		Yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n/esc/enter", "no")),

		CancelOp: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel operation")),

		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Preview: key.NewBinding(key.WithKeys("p", "tab"), key.WithHelp("p/tab", "preview")),
		Edit:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "editor")),
		Shell:   key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "shell")),
		Copy:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy path")),

		NextNeedsYou: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "needs you")),

		DeleteBranch: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "delete branch too")),

		ScrollUp:   key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k/pgup", "scroll up")),
		ScrollDown: key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j/pgdn", "scroll down")),
		ClosePanel: key.NewBinding(key.WithKeys("esc", "enter", "q"), key.WithHelp("esc/enter", "close")),
	}
}

// helpKeys adapts the bindings of one mode to bubbles/help.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// helpFor returns the bindings that apply in the model's current mode. The same KeyMap
// drives both matching and help, so a disabled key vanishes from both.
func (m Model) helpFor() helpKeys {
	k := m.keys
	if h, ok := m.panelHelp(); ok {
		return h
	}
	switch m.mode {
	case modeFilter:
		sw := k.Switch
		if m.opts.Pick {
			sw.SetHelp("enter", "select")
		}
		clear := k.FilterClear
		if m.opts.Pick && m.filter.Value() == "" {
			clear.SetHelp("esc", "quit") // typing is the picker: esc with nothing typed quits
		}
		// What ends the mode comes first: a narrow terminal cuts the line at its end.
		b := []key.Binding{sw, k.FilterAccept, clear, k.FilterUp, k.FilterDown}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	case modeForm:
		b := []key.Binding{k.Submit, k.CancelForm, k.NextField, k.PrevField}
		if m.form.focusRow() {
			b = []key.Binding{k.ToggleFocus, k.Submit, k.CancelForm, k.NextField, k.PrevField}
		}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	case modeLand:
		sub := k.Submit
		sub.SetHelp("enter", "land")
		b := []key.Binding{sub, k.CancelForm, k.NextField}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	case modeSession:
		b := []key.Binding{k.SubmitSession, k.CancelForm}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	case modeConfirm:
		b := []key.Binding{k.Yes, k.No}
		if m.confirm != nil && m.confirm.canToggleBranch() {
			b = append(b, k.DeleteBranch)
		}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	}
	if m.op != nil {
		b := []key.Binding{k.CancelOp}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	}
	// esc does one thing in each list state, and the help names that one thing: it closes
	// the full help, else clears an applied filter, else quits (listEsc).
	quit, help, esc := k.Quit, k.Help, m.listEsc()
	if esc != escQuit {
		quit.SetHelp("q", "quit")
	}
	// ? comes early: on a narrow terminal the line is cut, and ? leads to the rest.
	short := []key.Binding{k.Switch, help, k.Open, k.New, k.Remove, k.Back, k.Filter, quit}
	last := []key.Binding{help, quit, k.ForceQuit}
	switch esc {
	case escCloseHelp:
		help.SetHelp("?/esc", "close") // short, so the full help keeps its columns at 100
		last = []key.Binding{help, quit, k.ForceQuit}
	case escClearFilter:
		short = []key.Binding{k.Switch, help, k.FilterClear, k.Open, k.New, k.Remove, k.Back, k.Filter, quit}
		last = []key.Binding{help, k.FilterClear, quit, k.ForceQuit}
	}
	if k.Force.Enabled() {
		// The refusal on screen can be forced: its key leads the line, next to the hint.
		short = append([]key.Binding{k.Force}, short...)
	}
	return helpKeys{
		short: short,
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
			{k.Switch, k.Open, k.Back, k.Filter, k.Refresh},
			{k.New, k.Remove, k.ForceRemove, k.Land},
			{k.Claim, k.Release, k.Force, k.Prune},
			{k.Sort, k.NextNeedsYou, k.Preview, k.Edit, k.Shell, k.Copy},
			last,
		},
	}
}

// escAction is the one thing esc does in the list.
type escAction int

const (
	escQuit escAction = iota
	escClearFilter
	escCloseHelp
)

// listEsc is what esc does in the list now: the innermost thing open closes first.
func (m Model) listEsc() escAction {
	switch {
	case m.showHelp:
		return escCloseHelp
	case m.filter.Value() != "":
		return escClearFilter
	}
	return escQuit
}
