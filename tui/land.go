package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/op/land"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// Landing from the picker: L opens a small form (target branch and test command,
// prefilled from the branch the worktree was created from (else the main checkout's) and
// git config copse.test), enter queues the
// land and waits for it with the phase and elapsed time on the busy line, ctrl+c cancels
// it. Rows show the land jobs core recorded: queued or running ones with their position or
// phase, blocked ones with their reason.

const (
	landInto = iota
	landTest
)

var landFieldNames = [...]string{"into", "test"}

// landForm holds raw text only; core parses it on submit (Prepare).
type landForm struct {
	target  row
	inputs  []textinput.Model
	focus   int
	errs    [2]string
	touched [2]bool // typed in: defaults arriving late must not overwrite it
	// gate is the test a land with an empty test field runs, and where it comes from
	// (known once the defaults arrive): the form says it, since an approved .copse.conf
	// test runs though the field is empty.
	gate      core.DefaultGate
	gateKnown bool
}

func newLandForm(target row, st *Styles, width int) landForm {
	f := landForm{target: target}
	mk := func(placeholder string) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = 4096
		ti.SetStyles(st.Input)
		ti.SetWidth(max(4, width-formIndent-2))
		return ti
	}
	f.inputs = []textinput.Model{mk("the branch it was created from, else the main checkout's"), mk("empty: git config copse.test, else .copse.conf's")}
	f.inputs[landInto].Focus()
	return f
}

func (f *landForm) setDefaults(into, test string, gate core.DefaultGate, gateKnown bool) {
	if gateKnown {
		f.gate, f.gateKnown = gate, true
	}
	if !f.touched[landInto] && f.inputs[landInto].Value() == "" {
		f.inputs[landInto].SetValue(into)
	}
	if !f.touched[landTest] && f.inputs[landTest].Value() == "" {
		f.inputs[landTest].SetValue(test)
	}
}

func (f *landForm) setWidth(width int) {
	for i := range f.inputs {
		f.inputs[i].SetWidth(max(4, width-formIndent-2))
	}
}

// request is a land of the form's worktree that waits for its turn; an empty field is
// absent, so core applies its default.
func (f landForm) request() core.LandRequest {
	req := core.LandRequest{Path: core.Str(f.target.wt.Path), Wait: true}
	if v := f.inputs[landInto].Value(); v != "" {
		req.Into = core.Str(v)
	}
	if v := f.inputs[landTest].Value(); v != "" {
		req.Test = core.Str(v)
	}
	return req
}

func (f *landForm) update(msg tea.Msg, keys KeyMap) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, keys.NextField), key.Matches(k, keys.PrevField):
			f.inputs[f.focus].Blur()
			f.focus = 1 - f.focus
			return f.inputs[f.focus].Focus()
		}
	}
	before := f.inputs[f.focus].Value()
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	if f.inputs[f.focus].Value() != before {
		f.touched[f.focus] = true
		f.errs[f.focus] = ""
	}
	return cmd
}

// fieldError places a core error on the field it names.
func (f *landForm) fieldError(e *core.Error) bool {
	for i, n := range landFieldNames {
		if e.Field == n || (i == landTest && e.Field == "copse.test") {
			msg := oneLine(e.Message)
			if e.Hint != "" {
				msg += " — " + oneLine(e.Hint)
			}
			f.errs[i] = msg
			return true
		}
	}
	return false
}

func (f landForm) view(st *Styles, width int) []string {
	lines := []string{st.FormTitle.Render(cut("Land "+f.target.label, width)),
		st.FormNote.Render(cut("  "+f.target.path, width)), ""}
	for i := range f.inputs {
		s, marker := st.FormLabel, "  "
		if f.focus == i {
			s, marker = st.FormLabelFocus, "› "
		}
		lines = append(lines, s.Render(pad(marker+landFieldNames[i], formIndent))+f.inputs[i].View())
		if f.errs[i] != "" {
			for _, l := range wrapLines("✗ ", f.errs[i], width-formIndent, maxErrorLines) {
				lines = append(lines, st.FormError.Render(strings.Repeat(" ", formIndent)+l))
			}
		}
	}
	if g := f.gateNote(); g != "" {
		lines = append(lines, st.FormNote.Render(cut(strings.Repeat(" ", formIndent)+g, width)))
	}
	lines = append(lines, "", st.FormNote.Render(cut("Rebases onto the target, runs the test, fast-forwards the target,", width)),
		st.FormNote.Render(cut("then removes the worktree and branch. Lands wait their turn in the queue.", width)))
	return lines
}

// gateNote says which test gate the land will run and where it comes from ("" until the
// defaults arrive).
func (f landForm) gateNote() string {
	if !f.gateKnown {
		return ""
	}
	g := f.gate
	v := f.inputs[landTest].Value()
	switch {
	case v != "" && v == g.Command && g.From == core.GateFromGitConfig && !f.touched[landTest]:
		return "gate: the command above, from " + core.GateFromGitConfig
	case v != "":
		return "gate: the command above, for this land only"
	case g.Command == "":
		return "no test gate: none in git config copse.test or " + core.ProjectConfigFile
	case g.From == core.GateFromProject && !g.Approved:
		return "gate: " + textsafe.Escape(g.Command) + ", from " + g.From + " — not approved: run `copse approve` first"
	case g.From == core.GateFromProject:
		return "gate: " + textsafe.Escape(g.Command) + ", from " + g.From + " (approved)"
	}
	return "gate: " + textsafe.Escape(g.Command) + ", from " + g.From
}

// ---- messages and commands ----

type landDefaultsMsg struct {
	path       string // the worktree the defaults are for ("" in tests: any form)
	into, test string
	gate       core.DefaultGate
	gateKnown  bool // gate was read (a failed read leaves the form without its note)
	err        error
}

func landDefaultsCmd(ctx context.Context, svc *core.Service, path string) tea.Cmd {
	return func() tea.Msg {
		into, test, err := svc.LandDefaults(ctx, path)
		if err != nil {
			return landDefaultsMsg{path: path, err: err}
		}
		gate, gerr := svc.DefaultLandGate(ctx)
		return landDefaultsMsg{path: path, into: into, test: test, gate: gate, gateKnown: gerr == nil}
	}
}

// landJobsMsg is every land job record, read after a listing (never before the first
// frame).
type landJobsMsg struct {
	seq  int
	jobs []core.LandJob
	err  error
}

func landJobsCmd(ctx context.Context, svc *core.Service, seq int) tea.Cmd {
	return func() tea.Msg {
		jobs, err := svc.LandJobs(ctx)
		return landJobsMsg{seq: seq, jobs: jobs, err: err}
	}
}

// landStream carries a running land's progress to the UI; done closes when it ends.
type landStream struct {
	ch   chan land.LandProgress
	done chan struct{}
}

type landProgressMsg struct {
	op     int
	p      land.LandProgress
	stream *landStream
}

// landRunCmd runs the land (queue, phases) and answers with executedMsg like any plan.
// Like executeCmd, the answer also goes to settled, which outlives the program.
func landRunCmd(ctx context.Context, svc *core.Service, op int, plan *core.Plan, s *landStream, settled chan<- Settled) tea.Cmd {
	return func() tea.Msg {
		defer close(s.done)
		out, err := svc.Execute(land.WithLandProgress(ctx, func(p land.LandProgress) {
			select {
			case s.ch <- p:
			default: // the UI is behind; a later report supersedes this one
			}
		}), plan)
		select {
		case settled <- Settled{Outcome: out, Err: err}:
		default:
		}
		return executedMsg{op: op, outcome: out, err: err}
	}
}

func landWatchCmd(op int, s *landStream) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-s.ch:
			return landProgressMsg{op: op, p: p, stream: s}
		case <-s.done:
			return nil
		}
	}
}

// ---- model ----

// openLandForm starts the form for the selected row and asks core for the defaults.
func (m Model) openLandForm() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	m.mode = modeLand
	m.landForm = newLandForm(r, &m.styles, m.w())
	if m.svc == nil {
		return m, nil
	}
	return m, landDefaultsCmd(m.ctx, m.svc, r.wt.Path)
}

func (m Model) landKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.CancelForm):
		m.mode = modeList
		return m, nil
	case key.Matches(k, ks.Submit):
		f := m.landForm
		return m.startOp(core.OpLand, "landing "+f.target.label, f.request(), opOptions{path: f.target.path})
	}
	return m, m.landForm.update(k, ks)
}

// startLand runs a prepared land with its progress stream; the list comes back so the
// row's phase can be watched.
func (m Model) startLand(op *operation, plan *core.Plan) (tea.Model, tea.Cmd) {
	m.mode = modeList
	s := &landStream{ch: make(chan land.LandProgress, 64), done: make(chan struct{})}
	return m, tea.Batch(landRunCmd(op.ctx, m.svc, op.id, plan, s, op.settled), landWatchCmd(op.id, s))
}

func (m Model) onLandProgress(msg landProgressMsg) (tea.Model, tea.Cmd) {
	if m.op == nil || m.op.id != msg.op {
		return m, nil
	}
	m.op.label = landLabel(msg.p)
	j := msg.p.Job
	if m.lands == nil {
		m.lands = map[string]core.LandJob{}
	}
	m.lands[j.Worktree.Path] = j
	m.applyLands()
	return m, landWatchCmd(msg.op, msg.stream)
}

// landLabel is the busy line's text for a running land (busyText adds the elapsed time).
func landLabel(p land.LandProgress) string {
	j := p.Job
	what := fmt.Sprintf("%s %s → %s", j.Job, textsafe.Escape(j.Worktree.Branch), textsafe.Escape(j.Into))
	if j.State == core.LandQueued && p.Head != nil {
		return fmt.Sprintf("%s: queued, position %d (%s: %s)", what, j.Position, p.Head.Job, p.Head.Phase)
	}
	return what + ": " + string(j.Phase)
}

// landPoll is how often the picker re-reads the land records while a job is unfinished,
// so rows follow lands that other copse processes run.
const landPoll = time.Second

// landTickMsg asks for the land records again; seq drops ticks of an older listing.
type landTickMsg struct{ seq int }

func (m Model) onLandJobs(msg landJobsMsg) (tea.Model, tea.Cmd) {
	if msg.seq != m.loadSeq || msg.err != nil {
		return m, nil // the rows stand without land marks; a failed read is not worth an error
	}
	before := m.lands
	m.lands = latestLands(msg.jobs)
	m.applyLands()
	unfinished := false
	for _, j := range m.lands {
		if !j.State.Finished() {
			unfinished = true
		}
		// A job that ended since the last read may have removed its worktree: list again.
		if old, ok := before[j.Worktree.Path]; ok && old.Job == j.Job && !old.State.Finished() && j.State.Finished() && m.op == nil {
			return m, m.reload()
		}
	}
	if !unfinished {
		return m, nil
	}
	seq := m.loadSeq
	return m, tea.Tick(landPoll, func(time.Time) tea.Msg { return landTickMsg{seq: seq} })
}

func (m Model) onLandTick(msg landTickMsg) (tea.Model, tea.Cmd) {
	if msg.seq != m.loadSeq || m.svc == nil {
		return m, nil
	}
	return m, landJobsCmd(m.ctx, m.svc, m.loadSeq)
}

// latestLands keeps, per worktree path, its newest job (jobs come oldest first).
func latestLands(jobs []core.LandJob) map[string]core.LandJob {
	out := make(map[string]core.LandJob, len(jobs))
	for _, j := range jobs {
		out[j.Worktree.Path] = j
	}
	return out
}

// applyLands attaches each row's land job worth showing: queued or running, or ended in a
// way its owner must act on (blocked, abandoned, uncertain).
func (m *Model) applyLands() {
	for i := range m.rows {
		m.rows[i].land = nil
		j, ok := m.lands[m.rows[i].wt.Path]
		if !ok {
			continue
		}
		if rowmarks.LandShown(&j) {
			jj := j
			m.rows[i].land = &jj
		}
	}
	m.measure()
}

// landDetail is the selected row's land line: the job, and why it is blocked.
func landDetail(j *core.LandJob) string {
	switch j.State {
	case core.LandQueued:
		return fmt.Sprintf("%s queued, position %d", j.Job, j.Position)
	case core.LandRunning:
		return fmt.Sprintf("%s %s onto %s", j.Job, j.Phase, textsafe.Escape(j.Into))
	}
	msg := j.Message
	if h := pickerHint(opLandJob, j.Code, j.Hint); h != "" {
		msg += " — " + h
	}
	return fmt.Sprintf("%s %s: %s", j.Job, j.State, oneLine(msg))
}
