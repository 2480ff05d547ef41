package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// The picker's way out of a refusal. core's hints are written for the CLI (--force,
// --session ID); here the way out is a key or a dialog. This file is the one mapping from
// a refused operation to what the picker offers instead:
//
//   - remove refused for a reason force gets past: the hint ends in D (force remove, asks twice);
//   - claim or release refused for a reason force gets past: F sends the same request
//     with force (core asks first), offered in the status line until the next key;
//   - a land refused because another session claimed the worktree: the form closes and F
//     lands with force_claim (core asks before it takes the claim over); a land refused
//     for a rebase an earlier land left open: F lands with force_restart;
//   - claim or release with no session known (or a malformed one): a small prompt asks
//     for the session and retries with it;
//   - a land's target hint names the form's target field, not --into;
//   - anything else: core's message and hint as the CLI prints them.

// forceOffer is a refused request the picker can send again with force, by F.
type forceOffer struct {
	kind  core.Operation
	label string
	req   core.Request
}

// refusalStatus is the status line for a refused or failed operation.
func refusalStatus(op *operation, e *core.Error) statusLine {
	switch {
	case op.kind == core.OpRemove && e.ForceHelps && !op.force:
		return removeRefusedStatus(e, op.path)
	case (op.kind == core.OpClaim || op.kind == core.OpRelease) && e.ForceHelps:
		if forced := withForce(op.req); forced != nil {
			verb := "claim"
			if op.kind == core.OpRelease {
				verb = "release"
			}
			return statusLine{kind: statusError, msg: oneLine(e.Message), hint: claimForceHint(e.Code, verb),
				offer: &forceOffer{kind: op.kind, label: strings.Replace(op.label, verb+"ing", verb+"ing (forced)", 1), req: forced}}
		}
	case op.kind == core.OpLand && e.ForceHelps && e.Code == core.CodeClaimedByOther:
		if r, ok := op.req.(core.LandRequest); ok {
			r.ForceClaim = true
			return statusLine{kind: statusError, msg: oneLine(e.Message),
				hint:  "land it from that session, or press F to take the claim over and land (asks first)",
				offer: &forceOffer{kind: op.kind, label: op.label, req: r}}
		}
	case op.kind == core.OpLand && e.Code == core.CodeRebaseInProgress:
		// force_restart aborts a rebase an earlier land left open (core refuses one it did
		// not start), so F is the picker's --force-restart.
		if r, ok := op.req.(core.LandRequest); ok && !r.ForceRestart {
			r.ForceRestart = true
			return statusLine{kind: statusError, msg: oneLine(e.Message),
				hint:  "resolve the conflicts, git add them and git rebase --continue, then land again; or press F to abort the rebase an earlier land started and start over",
				offer: &forceOffer{kind: op.kind, label: op.label, req: r}}
		}
	case op.kind == core.OpRelease && e.Code == core.CodeNotClaimed:
		return statusLine{kind: statusError, msg: oneLine(e.Message), hint: "claimed rows show ⚑ and the session holding them"}
	}
	return errorStatus(e)
}

// claimForceHint is the picker's way out of a claim or release that force gets past.
func claimForceHint(code, verb string) string {
	f := "press F to " + verb + " it anyway (asks first)"
	switch code {
	case core.CodeClaimed:
		return "pick another worktree, or press F to take the claim over (asks first)"
	case core.CodeLockedByHuman:
		return "leave it alone, or " + f
	case core.CodeClaimedByOther:
		return "ask that session to release it, or " + f
	}
	return f
}

// cliPhrases are the parts of core hints that name a CLI flag, with what the picker says
// instead, by operation and code ("" code: any). An empty cli replaces the whole hint.
var cliPhrases = []struct {
	op          core.Operation
	code        string
	cli, picker string
}{
	{core.OpLand, core.CodeNoDefaultTarget, "", "type the branch to land onto in the into field"},
	{core.OpLand, core.CodeIntoIsBranch, "", "type the branch to land onto in the into field"},
	{core.OpLand, core.CodeTargetMissing, "", "create it, or type another branch in the into field"},
	{core.OpCreate, core.CodeUnknownBase, "pass --base REF", "type a base (branch, tag or commit) in the base field"},
	{core.OpPrune, "", " (or pass --older-than)", ""},
	{core.OpRemove, core.CodeCurrentWorktree, "", "switch to another worktree first (enter on its row), then remove this one from there"},
	// A land job's blocked hint, on the row's detail line: the way on is L again, then F.
	{opLandJob, core.CodeClaimedByOther, "", "land it from that session, or land again (L) and press F to take the claim over (asks first)"},
	{opLandJob, core.CodeTargetMissing, "", "create it, or land again (L) onto another branch"},
	{opLandJob, core.CodeRebaseConflict, "(or land with --force-restart to start over)", "(or land again with L and press F to start over)"},
}

// opLandJob is the phrase table's name for a land job's record (the row's detail line),
// as opposed to the land request the form sends.
const opLandJob core.Operation = "land job"

// pickerHint is hint in the picker's words, for op's refusal code.
func pickerHint(op core.Operation, code, hint string) string {
	for _, p := range cliPhrases {
		if p.op != op || (p.code != "" && p.code != code) || (p.cli != "" && !strings.Contains(hint, p.cli)) {
			continue
		}
		if p.cli == "" {
			return p.picker
		}
		return strings.ReplaceAll(hint, p.cli, p.picker)
	}
	return hint
}

// inPickerWords is e with a hint the picker can act on, for the errors whose core hint
// only makes sense on the command line; other errors are returned as they are.
func inPickerWords(op *operation, e *core.Error) *core.Error {
	if h := pickerHint(op.kind, e.Code, e.Hint); h != e.Hint {
		c := *e
		c.Hint = h
		return &c
	}
	return e
}

// withForce is req with force set, for the requests F can send again; nil for the others.
func withForce(req core.Request) core.Request {
	switch r := req.(type) {
	case core.ClaimRequest:
		r.Force = true
		return r
	case core.ReleaseRequest:
		r.Force = true
		return r
	}
	return nil
}

// withSession is a claim or release request naming session; nil for other requests.
func withSession(req core.Request, session string) core.Request {
	switch r := req.(type) {
	case core.ClaimRequest:
		r.Session = &session
		return r
	case core.ReleaseRequest:
		r.Session = &session
		return r
	}
	return nil
}

// needsSession: a claim or release core refused for want of a usable session id, which
// the session prompt can supply.
func needsSession(op *operation, e *core.Error) bool {
	return (op.kind == core.OpClaim || op.kind == core.OpRelease) && withSession(op.req, "") != nil &&
		(e.Code == core.CodeSessionRequired || e.Code == core.CodeBadSession)
}

// sessionArg is the session the picker was given in its prompt, for claim and release
// requests; nil (core's default: COPSE_SESSION, else the Herdr workspace) until then.
func (m Model) sessionArg() *string {
	if m.session == "" {
		return nil
	}
	s := m.session
	return &s
}

// ---- the session prompt (modeSession)

// sessionPrompt asks which session a claim or release is for, when core knows none.
type sessionPrompt struct {
	input textinput.Model
	kind  core.Operation
	label string // "claiming feat/x"
	title string // "Claim feat/x"
	path  string // escaped, home as ~
	req   core.Request
	err   string // why the last id was refused
	none  bool   // core knew no session at all (not a malformed one)
}

// openSessionPrompt replaces a session refusal with the prompt; a malformed id the user
// typed is shown under the input, which keeps it for editing.
func (m Model) openSessionPrompt(op *operation, e *core.Error) Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Placeholder = "e.g. agent-7"
	ti.CharLimit = 128
	ti.SetStyles(m.styles.Input)
	ti.SetWidth(max(4, m.w()-formIndent-2))
	p := &sessionPrompt{kind: op.kind, label: op.label, req: op.req, none: e.Code == core.CodeSessionRequired}
	if r, ok := m.rowByPath(rawPath(op.req)); ok {
		verb := "Claim "
		if op.kind == core.OpRelease {
			verb = "Release "
		}
		p.title, p.path = verb+r.label, r.path
	}
	if e.Code == core.CodeBadSession {
		p.err = oneLine(e.Message) + " — " + oneLine(e.Hint)
		if m.session != "" {
			ti.SetValue(m.session)
		}
		m.session = "" // refused: the next claim asks again
	}
	ti.Focus()
	p.input = ti
	m.sessionAsk = p
	m.mode = modeSession
	m.status = statusLine{}
	return m
}

func (m Model) sessionKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	p := m.sessionAsk
	switch {
	case key.Matches(k, ks.ForceQuit):
		return m.quit()
	case key.Matches(k, ks.CancelForm):
		m.sessionAsk = nil
		m.mode = modeList
		m.status = infoStatus("cancelled: nothing changed")
		return m, nil
	case key.Matches(k, ks.SubmitSession):
		v := strings.TrimSpace(p.input.Value())
		if v == "" {
			p.err = "type the session id this claim is held by (letters, digits and . _ : @ / + = -)"
			return m, nil
		}
		// Kept for the rest of this picker: the next c or C needs no prompt. core checks
		// the id; a refused one brings the prompt back with the reason.
		m.session = v
		m.sessionAsk = nil
		m.mode = modeList
		return m.startOp(p.kind, p.label, withSession(p.req, v), opOptions{})
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(k)
	return m, cmd
}

// view draws the prompt.
func (p *sessionPrompt) view(st *Styles, width int) []string {
	lines := []string{st.FormTitle.Render(cut(p.title+" for which session?", width))}
	if p.path != "" {
		lines = append(lines, st.FormNote.Render(cut("  "+p.path, width)))
	}
	lines = append(lines, "", st.FormLabelFocus.Render(pad("› session", formIndent))+p.input.View())
	if p.err != "" {
		for _, l := range wrapLines("✗ ", p.err, width-formIndent, maxErrorLines) {
			lines = append(lines, st.FormError.Render(strings.Repeat(" ", formIndent)+l))
		}
	}
	lines = append(lines, "")
	if p.none {
		lines = append(lines, st.FormNote.Render(cut("No session is known ($COPSE_SESSION unset, not inside Herdr).", width)))
	}
	return append(lines, st.FormNote.Render(cut("Claims are held in a session id's name; the picker uses this one until you quit.", width)))
}

// rawPath is the worktree path a claim or release request names.
func rawPath(req core.Request) string {
	switch r := req.(type) {
	case core.ClaimRequest:
		if r.Path != nil {
			return *r.Path
		}
	case core.ReleaseRequest:
		if r.Path != nil {
			return *r.Path
		}
	}
	return ""
}

// rowByPath is the listed row at path.
func (m Model) rowByPath(p string) (row, bool) {
	for _, r := range m.rows {
		if r.wt.Path == p {
			return r, true
		}
	}
	return row{}, false
}
