package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// Form fields, in tab order: the text inputs first (every one exists; those a backend has
// no use for are not shown), then the toggles. Label and the focus toggle are shown only
// with workspaces (Herdr, tmux); run and prompt only under tmux, where create --run starts
// the command in the new worktree's window.
const (
	fieldBranch = iota
	fieldBase
	fieldPath
	fieldLabel
	fieldRun    // create --run: the command to start (an agent)
	fieldPrompt // create --prompt: the text it is given
	fieldFocus  // a toggle, not a text input (workspaces only)
	fieldSwitch // toggle: switch to the new worktree after create
	fieldSetup  // toggle: run copse.copy/copse.setup after create (shown when configured)
)

var fieldNames = [...]string{"branch", "base", "path", "label", "run", "prompt", "focus", "switch", "setup"}

// form is the create dialog. It holds raw text only: every value is parsed by core, live
// for the branch (debounced CheckBranch) and for all fields on submit (Prepare).
type form struct {
	inputs    []textinput.Model // branch, base, path[, label]
	focus     int
	workspace bool // Herdr or tmux: label and focus fields shown
	run       bool // tmux: run and prompt fields shown
	focusWS   bool // the focus toggle's value
	switchTo  bool // the switch toggle's value (on by default)
	runSetup  bool // the setup toggle's value (on by default)
	// pick: the form of `copse pick`, which never switches. The worktree it creates is the
	// pick, so it has no switch toggle: a person creating in a picker means "this one".
	pick bool

	info formInfo // the default base, the default path and the setup configuration, read in the background

	errs     [len(fieldNames)]string // per field, from the parser
	note     *branchCheckedMsg       // branch: core's verdict, shown as what a create would do with it
	checkSeq int                     // bumps on every branch edit (and when base is filled or emptied); stale checks are dropped
	baseNote *baseCheckedMsg         // base: core's resolution of the typed base (its commit)
	baseSeq  int                     // bumps on every base edit; stale resolutions are dropped
}

func newForm(workspace, run bool, st *Styles, width int) form {
	f := form{workspace: workspace, run: run, switchTo: true, runSetup: true}
	mk := func(placeholder string) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = 4096
		// Up/down move between fields here; suggestions cycle with ctrl+n/ctrl+p.
		ti.KeyMap.NextSuggestion = key.NewBinding(key.WithKeys("ctrl+n"))
		ti.KeyMap.PrevSuggestion = key.NewBinding(key.WithKeys("ctrl+p"))
		noClipboardTool(&ti)
		ti.SetStyles(st.Input)
		return ti
	}
	f.inputs = []textinput.Model{
		mk("new, existing or remote branch (tab completes)"),
		mk("empty: copse.base, else the main checkout's branch"),
		mk(pathPlaceholder),
	}
	f.inputs[fieldBranch].ShowSuggestions = true
	f.inputs[fieldBase].ShowSuggestions = true
	f.inputs = append(f.inputs, mk("workspace label (optional)"),
		mk("command to start in its window, e.g. claude (optional)"),
		mk("what the command is told (optional; needs a command)"))
	f.setWidth(width)
	f.inputs[0].Focus()
	return f
}

// Path placeholders: the long one where it fits, else the short one (never cut).
const (
	pathPlaceholder      = "default: <repo>.worktrees/<branch>"
	pathPlaceholderShort = "<repo>.worktrees/<branch>"
)

func (f *form) setWidth(width int) {
	w := max(4, width-formIndent-2)
	for i := range f.inputs {
		f.inputs[i].SetWidth(w)
	}
	f.placePath()
}

func (f *form) setStyles(st *Styles) {
	for i := range f.inputs {
		f.inputs[i].SetStyles(st.Input)
	}
}

// shown reports whether field i is on the form.
func (f form) shown(i int) bool {
	switch i {
	case fieldLabel, fieldFocus:
		return f.workspace
	case fieldRun, fieldPrompt:
		return f.run
	case fieldSwitch:
		return !f.pick
	case fieldSetup:
		return f.setupShown()
	}
	return i < len(fieldNames)
}

// stops are the fields focus visits, in order: the inputs, then the toggles shown.
func (f form) stops() []int {
	s := make([]int, 0, len(fieldNames))
	for i := range f.inputs {
		if f.shown(i) {
			s = append(s, i)
		}
	}
	if f.workspace {
		s = append(s, fieldFocus)
	}
	if !f.pick {
		s = append(s, fieldSwitch)
	}
	if f.setupShown() {
		s = append(s, fieldSetup)
	}
	return s
}

// focusRow reports a toggle having focus (space toggles it).
func (f form) focusRow() bool { return f.focus >= len(f.inputs) }

func (f *form) move(delta int) {
	if f.focus < len(f.inputs) {
		f.inputs[f.focus].Blur()
	}
	stops := f.stops()
	at := slices.Index(stops, f.focus)
	n := len(stops)
	f.focus = stops[((at+delta)%n+n)%n]
	if f.focus < len(f.inputs) {
		f.inputs[f.focus].Focus()
	}
}

// toggle flips the toggle that has focus.
func (f *form) toggle() {
	switch f.focus {
	case fieldFocus:
		f.focusWS = !f.focusWS
	case fieldSwitch:
		f.switchTo = !f.switchTo
	case fieldSetup:
		f.runSetup = !f.runSetup
		f.errs[fieldSetup] = ""
	}
}

func (f form) value(i int) string {
	if i < len(f.inputs) && f.shown(i) {
		return f.inputs[i].Value()
	}
	return ""
}

// request builds core's CreateRequest from the raw field values: empty optional fields are
// absent (core applies its defaults); nothing is trimmed or fixed up here, so what core
// checks is exactly what the user typed.
func (f form) request() core.CreateRequest {
	req := core.CreateRequest{Branch: f.value(fieldBranch)}
	opt := func(i int) *string {
		if v := f.value(i); v != "" {
			return core.Str(v)
		}
		return nil
	}
	req.Base = opt(fieldBase)
	req.Path = opt(fieldPath)
	if f.workspace {
		req.Label = opt(fieldLabel)
		req.Focus = f.focusWS
	}
	// A person typed them (the picker's requests are marked so): the command starts
	// without being asked about again, as with create --run at the command line.
	req.Run = opt(fieldRun)
	req.Prompt = opt(fieldPrompt)
	return req
}

// setBranches installs the completion lists: branch and base both complete local branches
// and remote branches (<remote>/<branch>; as a branch that means "check it out from there").
func (f *form) setBranches(names []string) {
	f.inputs[fieldBranch].SetSuggestions(slices.Clone(names))
	f.inputs[fieldBase].SetSuggestions(slices.Clone(names))
}

// fieldError places a core error on the field it names, if the form has that field.
func (f *form) fieldError(e *core.Error) bool {
	for i, n := range fieldNames {
		if e.Field == n && f.shown(i) {
			msg := oneLine(e.Message)
			if e.Hint != "" {
				msg += " — " + oneLine(e.Hint)
			}
			f.errs[i] = msg
			if i == fieldBranch {
				f.note = nil
			}
			return true
		}
	}
	return false
}

// updateForm handles a key or paste while the form is open. It returns whether the branch
// value changed (the model then schedules a debounced check).
func (f *form) update(msg tea.Msg, keys KeyMap) (cmd tea.Cmd, branchChanged bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case (f.focus == fieldBranch || f.focus == fieldBase) && key.Matches(k, f.inputs[f.focus].KeyMap.AcceptSuggestion) && f.canComplete():
			// tab completes a branch name first; a second tab moves on.
		case key.Matches(k, keys.NextField):
			f.move(1)
			return nil, false
		case key.Matches(k, keys.PrevField):
			f.move(-1)
			return nil, false
		case f.focusRow() && key.Matches(k, keys.ToggleFocus):
			f.toggle()
			return nil, false
		}
	}
	if f.focus >= len(f.inputs) {
		return nil, false
	}
	before := f.inputs[f.focus].Value()
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	if after := f.inputs[f.focus].Value(); after != before {
		f.errs[f.focus] = ""
		if f.focus == fieldBase {
			f.baseNote = nil
			f.baseSeq++
		}
		// A base decides between "new branch" and "from a remote": filling or emptying it
		// asks again about the branch typed.
		baseToggled := f.focus == fieldBase && (before == "") != (after == "") && f.value(fieldBranch) != ""
		if f.focus == fieldBranch || baseToggled {
			f.note = nil
			f.checkSeq++
			return cmd, true
		}
	}
	return cmd, false
}

// canComplete reports a suggestion that would extend what is typed in the focused field.
func (f *form) canComplete() bool {
	in := &f.inputs[f.focus]
	s := in.CurrentSuggestion()
	return s != "" && len(s) > len(in.Value())
}

// applyCheck records core's verdict if it is about the current branch value: what a
// create would do (new branch from the base, existing branch, from a remote branch) or why
// it would be refused. heldAt is the worktree that already has the resolved branch checked
// out (or being rebased), if the list shows one: core refuses that on submit, so the form
// says so while typing.
func (f *form) applyCheck(msg branchCheckedMsg, heldAt string) {
	if msg.seq != f.checkSeq || msg.raw != f.value(fieldBranch) {
		return
	}
	if msg.err != nil {
		f.fieldError(withField(core.AsError(msg.err), "branch"))
		return
	}
	f.errs[fieldBranch] = ""
	f.note = nil
	switch k := msg.kind; {
	case heldAt != "":
		f.errs[fieldBranch] = "branch " + textsafe.Escape(msg.name) + " is already checked out at " + textsafe.Escape(heldAt) +
			" — switch to it, or pick another branch"
	case k.Source == core.CreateAmbiguous:
		f.errs[fieldBranch] = k.Describe()
	default:
		f.note = &msg
	}
}

// applyBaseCheck records core's resolution of the typed base if it is about the current
// value: its commit for the note, or the reason on the base field.
func (f *form) applyBaseCheck(msg baseCheckedMsg) {
	if msg.seq != f.baseSeq || msg.raw != f.value(fieldBase) {
		return
	}
	if msg.err != nil {
		f.fieldError(withField(core.AsError(msg.err), "base"))
		return
	}
	f.baseNote = &msg
}

// noteText says what a create of the checked branch will do. It is made when drawn, so a
// new branch names the base as it is typed now.
func (f form) noteText() string {
	msg := f.note
	if msg == nil {
		return ""
	}
	var note string
	switch k := msg.kind; k.Source {
	case core.CreateFromRemote:
		return k.Describe() // names the remote branch the name resolved to
	case core.CreateExisting:
		note = k.Describe()
	default:
		base := textsafe.Escape(f.value(fieldBase))
		switch {
		case base != "" && f.baseNote != nil && f.baseNote.raw == f.value(fieldBase):
			base += " (" + rowmarks.ShortHash(f.baseNote.base.Commit) + ")"
		case base == "" && f.info.baseRef != "":
			base = f.info.baseRef // core's default, with its commit
		case base == "":
			base = "the default base"
		}
		note = "new branch " + textsafe.Escape(msg.name) + " from " + base
	}
	if msg.name != msg.raw {
		note = "resolves to " + textsafe.Escape(msg.name) + " · " + note
	}
	return note
}

// withField makes sure a branch-check error lands on the branch field even if core did not
// name one.
func withField(e *core.Error, field string) *core.Error {
	if e.Field != "" {
		return e
	}
	c := *e
	c.Field = field
	return &c
}

// formIndent is the label column: "  branch  ".
const formIndent = 10

// view renders the form: one line per field, each field's error or note below it.
func (f form) view(st *Styles, width int) []string {
	lines := []string{st.FormTitle.Render(cut("New worktree", width)), ""}
	label := func(i int) string {
		s := st.FormLabel
		if f.focus == i {
			s = st.FormLabelFocus
		}
		marker := "  "
		if f.focus == i {
			marker = "› "
		}
		return s.Render(pad(marker+fieldNames[i], formIndent))
	}
	for i := range f.inputs {
		if !f.shown(i) {
			continue
		}
		lines = append(lines, label(i)+f.inputs[i].View())
		if i == fieldBase && f.errs[i] == "" && f.value(fieldBase) == "" && f.info.base != "" {
			lines = append(lines, st.FormNote.Render(cut(strings.Repeat(" ", formIndent)+f.info.base, width)))
		}
		switch {
		case f.errs[i] != "":
			for _, l := range wrapLines("✗ ", f.errs[i], width-formIndent, maxErrorLines) {
				lines = append(lines, st.FormError.Render(strings.Repeat(" ", formIndent)+l))
			}
		case i == fieldBranch && f.note != nil:
			lines = append(lines, st.FormOK.Render(cut(strings.Repeat(" ", formIndent)+"✓ "+f.noteText(), width)))
		}
	}
	box := func(on bool) string {
		if on {
			return "[x] "
		}
		return "[ ] "
	}
	if f.workspace {
		lines = append(lines, label(fieldFocus)+box(f.focusWS)+"focus the new workspace")
	}
	sw := "switch to it after create"
	if f.workspace {
		sw = "switch to it after create (its workspace gets focus)"
	}
	if f.pick {
		lines = append(lines, st.FormNote.Render(cut(strings.Repeat(" ", formIndent)+"the new worktree is the pick: copse pick prints it", width)))
	} else {
		lines = append(lines, label(fieldSwitch)+cut(box(f.switchTo)+sw, width-formIndent))
	}
	if f.setupShown() {
		lines = append(lines, label(fieldSetup)+cut(box(f.runSetup)+f.info.setupText(), width-formIndent))
		if f.errs[fieldSetup] != "" {
			for _, l := range wrapLines("✗ ", f.errs[fieldSetup], width-formIndent, maxErrorLines) {
				lines = append(lines, st.FormError.Render(strings.Repeat(" ", formIndent)+l))
			}
		}
	}
	if f.value(fieldRun) != "" {
		lines = append(lines, "", st.FormNote.Render(cut("The command starts in the new worktree's tmux window, which it claims.", width)))
	}
	if f.value(fieldPath) != "" {
		lines = append(lines, "", st.FormNote.Render(cut("A custom path asks for confirmation before anything runs.", width)))
	}
	return lines
}

// noClipboardTool turns off the input's ctrl+v, which runs a clipboard program (xclip,
// xsel, wl-paste): the picker starts no process of its own, and the terminal's paste
// (bracketed paste) still reaches the input. It also means what the clipboard package
// probes at init is never used (see internal/quiet).
func noClipboardTool(ti *textinput.Model) { ti.KeyMap.Paste.SetEnabled(false) }
