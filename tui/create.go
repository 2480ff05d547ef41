package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// After the create form: what the form learns in the background (which commit HEAD is,
// the default path of the branch typed so far, what setup is configured), and what
// follows a create (the setup log panel, then the switch).

// formInfo is what the form shows beyond the user's input.
type formInfo struct {
	base        string // "from main (abc1234), why · subject": where a new branch starts without a base typed
	baseRef     string // the default base's ref (or short commit), for the note under the branch
	defaultPath string // where the branch typed so far would go, home as ~
	setup       core.SetupConfig
	setupErr    error // git config copse.* could not be read: creating stops before it runs
}

// setupShown: the setup toggle appears when something is configured, or the
// configuration is broken (the toggle then carries the error).
func (f form) setupShown() bool { return !f.info.setup.Empty() || f.info.setupErr != nil }

// setupText describes the configured setup on the toggle's line.
func (i formInfo) setupText() string {
	var parts []string
	if n := len(i.setup.Copy); n > 0 {
		parts = append(parts, "copy "+strings.Join(escapeAll(i.setup.Copy), " "))
	}
	if n := len(i.setup.Steps); n > 0 {
		parts = append(parts, "run "+strings.Join(escapeAll(i.setup.Steps), "; "))
	}
	if len(parts) == 0 {
		return "run setup"
	}
	return "run setup: " + strings.Join(parts, ", then ")
}

func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = oneLine(textsafe.Escape(s))
	}
	return out
}

// formInfoMsg answers formInfoCmd.
type formInfoMsg struct {
	base     core.CreateBase // where a new branch starts without a base typed, as core decides it
	subject  string          // its commit's subject ("" when unknown)
	baseErr  error           // copse.base is broken, or the main checkout has no commit
	setup    core.SetupConfig
	setupErr error
}

// formInfoCmd reads, when the form opens, where a new branch would start (core's own
// default: copse.base, else the main checkout's branch) and what setup git config asks for.
func formInfoCmd(ctx context.Context, svc *core.Service) tea.Cmd {
	return func() tea.Msg {
		var msg formInfoMsg
		msg.base, msg.baseErr = svc.DefaultBase(ctx)
		if msg.baseErr == nil {
			if cs, err := svc.Commits(ctx, []string{msg.base.Commit}); err == nil {
				msg.subject = cs[msg.base.Commit].Subject
			}
		}
		msg.setup, msg.setupErr = svc.SetupConfig(ctx)
		return msg
	}
}

// baseWhy says why the default base is what it is.
var baseWhy = map[string]string{
	core.BaseFromConfig: "git config copse.base",
	core.BaseFromMain:   "the main checkout's branch",
}

func (f *form) applyInfo(msg formInfoMsg, home string) {
	switch {
	case msg.baseErr != nil:
		// Shown on the base field: typing a base gets past it, as in the CLI.
		e := *core.AsError(msg.baseErr)
		e.Field = "base"
		f.fieldError(&e)
	case msg.base.Commit != "":
		b := msg.base
		f.info.baseRef = textsafe.Escape(b.Ref) + " (" + rowmarks.ShortHash(b.Commit) + ")"
		why := baseWhy[b.From]
		if b.Ref == b.Commit {
			f.info.baseRef = rowmarks.ShortHash(b.Commit)
			why = "the main checkout's commit (it has no branch)"
		}
		// Why before the subject: on a narrow form the subject is what gets cut.
		h := "from " + f.info.baseRef
		if why != "" {
			h += ", " + why
		}
		if msg.subject != "" {
			h += " · " + oneLine(msg.subject)
		}
		f.info.base = h
		if len(f.inputs) > fieldBase {
			f.inputs[fieldBase].Placeholder = "empty: " + textsafe.Escape(b.Ref)
		}
	}
	f.info.setup, f.info.setupErr = msg.setup, msg.setupErr
	if msg.setupErr != nil {
		f.fieldError(onSetupField(msg.setupErr))
	}
}

// onSetupField puts a setup configuration error on the form's setup toggle, whatever
// git config key it names.
func onSetupField(err error) *core.Error {
	e := *core.AsError(err)
	e.Field = "setup"
	return &e
}

// defaultPathMsg is where the branch typed at keystroke seq would be checked out.
type defaultPathMsg struct {
	seq  int
	path string
}

func defaultPathCmd(ctx context.Context, svc *core.Service, seq int, raw string) tea.Cmd {
	return func() tea.Msg {
		p, err := svc.DefaultPath(ctx, raw)
		if err != nil {
			p = "" // the branch check says what is wrong with the name
		}
		return defaultPathMsg{seq: seq, path: p}
	}
}

// setDefaultPath shows the real default path as the path field's placeholder.
func (f *form) setDefaultPath(p, home string) {
	f.info.defaultPath = ""
	if p != "" {
		f.info.defaultPath = textsafe.Escape(tildePath(p, home))
	}
	f.placePath()
}

// placePath sets the path placeholder: the branch's real default path once known, else
// the pattern, each shortened to the field.
func (f *form) placePath() {
	if len(f.inputs) <= fieldPath {
		return
	}
	w := f.inputs[fieldPath].Width()
	in := &f.inputs[fieldPath]
	if f.info.defaultPath == "" {
		in.Placeholder = pathPlaceholder
		if len(pathPlaceholder) > w {
			in.Placeholder = pathPlaceholderShort
		}
		return
	}
	in.Placeholder = midCut("default: "+f.info.defaultPath, max(1, w))
}

// afterCreate is what follows a successful create: the setup (when configured and not
// turned off in the form), then the switch (when on), or in pick mode the pick: the new
// worktree is the answer `copse pick` prints. ok is false when none applies.
func (m Model) afterCreate(out *core.Outcome) (Model, tea.Cmd, bool) {
	if out == nil || out.Worktree == nil || out.DryRun {
		return m, nil, false
	}
	path := out.Worktree.Path
	if m.form.runSetup && !m.form.info.setup.Empty() && m.svc != nil {
		ctx, cancel := context.WithCancel(m.ctx)
		s := &setupState{path: path, label: rowmarks.Label(*out.Worktree), switchAfter: m.form.switchTo && !m.opts.Pick,
			running: true, cancel: cancel, started: m.now(), stream: newLogStream(ctx)}
		if m.opts.Pick {
			wt := *out.Worktree
			s.pickAfter = &wt
		}
		s.vp = viewport.New()
		m.views.setup = s
		m.mode = modeSetup
		return m, tea.Batch(setupCmd(ctx, m.svc, path, m.form.info.setup, s.stream), drainLogCmd(s.stream)), true
	}
	if m.opts.Pick {
		mm, cmd := m.pickCreated(*out.Worktree)
		return mm, cmd, true
	}
	if m.form.switchTo {
		mm, cmd := m.startOp(core.OpSwitch, "switching to "+rowmarks.Label(*out.Worktree), core.SwitchRequest{Path: core.Str(path)}, opOptions{})
		return mm.(Model), cmd, true
	}
	return m, nil, false
}

// pickCreated ends `copse pick` with the worktree just created as the pick. The create
// never switches there (pick only reports a choice), whatever the form's toggle.
func (m Model) pickCreated(wt core.Worktree) (Model, tea.Cmd) {
	m.result.Selected = &wt
	mm, cmd := m.quit()
	return mm.(Model), cmd
}

// setupState is the setup log panel.
type setupState struct {
	path, label string
	switchAfter bool
	pickAfter   *core.Worktree // pick mode: the created worktree, picked once its setup succeeded
	running     bool
	failed      bool
	cancel      context.CancelFunc
	started     time.Time
	stream      *logStream
	log         strings.Builder // every line so far, made safe for the screen
	partial     string          // output after the last newline
	vp          viewport.Model
}

// maxSetupLog bounds the log kept in memory; the start of a huge log is dropped.
const maxSetupLog = 256 << 10

// logStream carries setup output from core to the UI. Writes block only until the UI takes
// them or the setup is cancelled, so a chatty step cannot grow memory without bound.
type logStream struct {
	ctx  context.Context
	ch   chan string
	done chan struct{}
	rep  *core.SetupReport
	err  error
}

func newLogStream(ctx context.Context) *logStream {
	return &logStream{ctx: ctx, ch: make(chan string, 64), done: make(chan struct{})}
}

func (s *logStream) Write(p []byte) (int, error) {
	select {
	case s.ch <- string(p):
		return len(p), nil
	case <-s.ctx.Done():
		return 0, s.ctx.Err()
	}
}

// setupCmd runs core's setup; its result arrives through drainLogCmd.
func setupCmd(ctx context.Context, svc *core.Service, path string, cfg core.SetupConfig, s *logStream) tea.Cmd {
	return func() tea.Msg {
		s.rep, s.err = svc.Setup(ctx, path, cfg, s)
		close(s.done)
		return nil
	}
}

// setupLogMsg is output gathered over one window, and the result once the setup ended.
type setupLogMsg struct {
	stream *logStream
	chunks []string
	done   bool
}

// logWindow batches output into one repaint.
const logWindow = 50 * time.Millisecond

func drainLogCmd(s *logStream) tea.Cmd {
	return func() tea.Msg {
		var chunks []string
		select {
		case c := <-s.ch:
			chunks = append(chunks, c)
		case <-s.done:
			return setupLogMsg{stream: s, chunks: drainLog(s.ch, chunks), done: true}
		}
		timer := time.NewTimer(logWindow)
		defer timer.Stop()
		for {
			select {
			case c := <-s.ch:
				chunks = append(chunks, c)
			case <-s.done:
				return setupLogMsg{stream: s, chunks: drainLog(s.ch, chunks), done: true}
			case <-timer.C:
				return setupLogMsg{stream: s, chunks: chunks}
			}
		}
	}
}

func drainLog(ch chan string, chunks []string) []string {
	for {
		select {
		case c := <-ch:
			chunks = append(chunks, c)
		default:
			return chunks
		}
	}
}

// add appends output, line by line, made safe to draw: escapes stripped, a carriage
// return keeps what follows it (progress bars), tabs expanded, controls escaped.
func (s *setupState) add(chunk string) {
	text := s.partial + chunk
	lines := strings.Split(text, "\n")
	s.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		s.log.WriteString(cleanLogLine(l) + "\n")
	}
	if s.log.Len() > maxSetupLog {
		kept := s.log.String()
		kept = kept[len(kept)-maxSetupLog/2:]
		if i := strings.IndexByte(kept, '\n'); i >= 0 {
			kept = kept[i+1:]
		}
		s.log.Reset()
		s.log.WriteString("… (earlier output dropped)\n" + kept)
	}
}

func cleanLogLine(l string) string {
	l = ansi.Strip(l)
	if i := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); i >= 0 {
		l = l[i+1:]
	}
	l = strings.TrimRight(l, "\r")
	l = strings.ReplaceAll(l, "\t", "    ")
	return textsafe.Escape(l)
}

// content is the log with the unfinished last line.
func (s *setupState) content() string {
	c := s.log.String()
	if s.partial != "" {
		c += cleanLogLine(s.partial)
	}
	return strings.TrimSuffix(c, "\n")
}

func (m Model) onSetupLog(msg setupLogMsg) (Model, tea.Cmd) {
	s := m.views.setup
	if s == nil || s.stream != msg.stream {
		return m, nil // a setup the user already left
	}
	follow := s.vp.AtBottom() || s.vp.TotalLineCount() <= s.vp.Height()
	for _, c := range msg.chunks {
		s.add(c)
	}
	s.vp.SetHeight(m.panelHeight())
	s.vp.SetWidth(m.w())
	s.vp.SetContent(s.content())
	if follow {
		s.vp.GotoBottom()
	}
	if !msg.done {
		return m, drainLogCmd(s.stream)
	}
	s.running = false
	s.cancel()
	if err := s.stream.err; err != nil {
		// The worktree stays; core's message names the step, its hint `copse setup <path>`.
		s.failed = true
		m.status = errorStatus(err)
		m.clampCursor()
		return m, nil
	}
	m.status = infoStatus("set up " + s.label + setupSummary(s.stream.rep))
	m.views.setup = nil
	m.mode = modeList
	if s.pickAfter != nil {
		return m.pickCreated(*s.pickAfter)
	}
	if s.switchAfter {
		mm, cmd := m.startOp(core.OpSwitch, "switching to "+s.label, core.SwitchRequest{Path: core.Str(s.path)}, opOptions{})
		return mm.(Model), cmd
	}
	return m, nil
}

func setupSummary(rep *core.SetupReport) string {
	if rep == nil {
		return ""
	}
	var parts []string
	if n := len(rep.Copied); n > 0 {
		parts = append(parts, "copied "+core.Plural(n, "file"))
	}
	if n := len(rep.Kept); n > 0 {
		parts = append(parts, "kept "+core.Plural(n, "file"))
	}
	if n := len(rep.Refused); n > 0 {
		parts = append(parts, "did not copy "+core.Plural(n, "file")+" (copse setup says why)")
	}
	if n := len(rep.Steps); n > 0 {
		parts = append(parts, "ran "+core.Plural(n, "step"))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

func (m Model) setupKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	s := m.views.setup
	ks := m.keys
	if s == nil {
		m.mode = modeList
		return m, nil
	}
	s.vp.SetHeight(m.panelHeight())
	switch {
	case key.Matches(k, ks.CancelOp) && s.running:
		s.cancel() // core stops the step's process group; the result says it was cancelled
		m.status = infoStatus("cancelling setup…")
	case key.Matches(k, ks.ForceQuit):
		mm, cmd := m.quit()
		return mm.(Model), cmd
	case key.Matches(k, ks.ScrollUp):
		if k.String() == "pgup" {
			s.vp.PageUp()
		} else {
			s.vp.ScrollUp(1)
		}
	case key.Matches(k, ks.ScrollDown):
		if k.String() == "pgdown" {
			s.vp.PageDown()
		} else {
			s.vp.ScrollDown(1)
		}
	case key.Matches(k, ks.ClosePanel) && !s.running:
		m.views.setup = nil
		m.mode = modeList
		m.clampCursor()
	}
	if s.failed && m.views.setup != nil && m.status.kind == statusNone {
		m.status = errorStatus(s.stream.err) // keep saying what failed while the log is open
	}
	return m, nil
}

// panelHeight is the body height a panel gets: the screen minus header, the panel's
// title line and the footer.
func (m Model) panelHeight() int {
	return max(1, m.h()-1-1-len(m.footer()))
}

func (s *setupState) view(st *Styles, w, h int) []string {
	title := "Setting up " + s.label
	switch {
	case s.failed:
		title = "Setup of " + s.label + " failed; the worktree stays"
	case !s.running:
		title = "Set up " + s.label
	}
	out := []string{st.FormTitle.Render(cut(title, w))}
	vp := s.vp
	vp.SetWidth(w)
	vp.SetHeight(max(1, h-1))
	body := vp.View()
	if s.log.Len() == 0 && s.partial == "" {
		body = st.Empty.Render(cut("  waiting for output…", w))
	}
	return append(out, strings.Split(body, "\n")...)
}
