package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/copse-dev/copse/tui/rowmarks"
)

// The life of an operation: startOp asks core to Prepare the request (parse, check
// preconditions). A plan that needs a human goes to the confirmation dialog and runs only
// after y (startExecute); one that does not runs at once. onExecuted applies the outcome.

type opOptions struct {
	force  bool   // force removal: the dialog asks twice
	path   string // remove: the row's raw path (home as ~), for the picker's own refusal hint
	branch string // remove: the row's branch (the dialog's "delete the branch too" toggle)
	// fallback is the dialog a re-prepare replaces (b in the remove dialog): a refusal
	// reopens it with the reason instead of closing it.
	fallback *confirmState
}

func (m Model) startOp(kind core.Operation, label string, req core.Request, o opOptions) (tea.Model, tea.Cmd) {
	op := m.newOp(kind, label)
	op.force = o.force
	op.path = o.path
	op.req, op.branch, op.fallback = req, o.branch, o.fallback
	return m, tea.Batch(prepareCmd(op.ctx, m.svc, op.id, req), m.spinner.Tick, lockWaitCmd(op.ctx, op.id, op.lockWait))
}

func (m *Model) newOp(kind core.Operation, label string) *operation {
	m.opSeq++
	ctx, cancel := context.WithCancel(m.ctx)
	op := &operation{id: m.opSeq, kind: kind, label: label, started: m.now(), cancel: cancel,
		settled: make(chan Settled, 1), lockWait: make(chan core.LockHolder, 1)}
	// core names the lock holder on its own goroutine; the send never blocks, and
	// lockWaitCmd turns it into a message.
	// What the picker's forms hold a person typed (a land's test command among them).
	ctx = core.WithTypedByPerson(ctx)
	op.ctx = core.WithLockWait(ctx, func(h core.LockHolder) {
		select {
		case op.lockWait <- h:
		default:
		}
	})
	m.op = op
	return op
}

// onLockWait shows who holds the repository lock the operation waits for.
func (m Model) onLockWait(msg lockWaitMsg) (tea.Model, tea.Cmd) {
	if m.op == nil || msg.op != m.op.id {
		return m, nil
	}
	h := msg.holder
	m.op.lockedBy = &h
	return m, lockWaitCmd(m.op.ctx, m.op.id, m.op.lockWait)
}

// interrupt is the second ctrl+c during an operation: the picker ends at once, and the
// caller (copse) reports the state the operation left, exit 130.
func (m Model) interrupt() (tea.Model, tea.Cmd) {
	m.result.Interrupted = m.running()
	return m.quit()
}

// running is the operation under way, for the caller to report, or nil.
func (m Model) running() *Interrupted {
	if m.op == nil {
		return nil
	}
	return &Interrupted{Label: m.op.label, Executing: m.op.executing, Settled: m.op.settled}
}

func (m Model) onPrepared(msg preparedMsg) (tea.Model, tea.Cmd) {
	if m.op == nil || msg.op != m.op.id {
		return m, nil
	}
	op := m.op
	if msg.err == nil && msg.plan == nil {
		msg.err = &core.Error{Kind: core.KindFailed, Code: core.CodeNoPlan, Message: "core returned no plan and no error"}
	}
	if msg.err != nil {
		m.op = nil
		op.cancel()
		if op.fallback != nil {
			return m.reopenDialog(op.fallback, msg.err), nil
		}
		return m.opFailed(op, msg.err)
	}
	if msg.plan.Confirm == nil {
		op.executing = true
		op.lockedBy = nil
		if op.kind == core.OpLand {
			return m.startLand(op, msg.plan)
		}
		return m, executeCmd(op.ctx, m.svc, op.id, msg.plan, op.settled)
	}
	// The dialog may stay open for minutes; the prepare context is done with. Confirming
	// starts a fresh operation, and core re-checks the state token before running.
	m.op = nil
	op.cancel()
	steps := 1
	if op.force {
		steps = 2
	}
	m.confirm = &confirmState{plan: msg.plan, kind: op.kind, label: op.label, steps: steps, step: 1, returnTo: m.mode,
		force: op.force, path: op.path, req: op.req, branch: op.branch}
	if op.fallback != nil {
		m.confirm.returnTo = op.fallback.returnTo
	}
	m.mode = modeConfirm
	return m, nil
}

// notShown is ss less the lines in shown.
func notShown(ss, shown []string) []string {
	var out []string
	for _, s := range ss {
		if !containsStr(shown, s) {
			out = append(out, s)
		}
	}
	return out
}

// startExecute runs a confirmed plan.
func (m Model) startExecute(c *confirmState) (tea.Model, tea.Cmd) {
	op := m.newOp(c.kind, c.label)
	op.force = c.force
	op.path = c.path
	op.executing = true
	if conf := c.plan.Confirm; conf != nil {
		op.shown = append(append(append(append([]string(nil), conf.Warnings...), conf.Notices...), c.plan.Warnings...), c.plan.Notices...)
	}
	return m, tea.Batch(executeCmd(op.ctx, m.svc, op.id, c.plan, op.settled), m.spinner.Tick, lockWaitCmd(op.ctx, op.id, op.lockWait))
}

func (m Model) onExecuted(msg executedMsg) (tea.Model, tea.Cmd) {
	if m.op == nil || msg.op != m.op.id {
		return m, nil
	}
	op := m.op
	m.op = nil
	op.cancel()
	if msg.err != nil {
		return m.opFailed(op, msg.err)
	}
	out := msg.outcome
	if out != nil && len(op.shown) > 0 {
		// The person just read these in the dialog: the status line does not repeat them.
		o := *out
		o.Warnings, o.Notices = notShown(o.Warnings, op.shown), notShown(o.Notices, op.shown)
		out = &o
	}
	switch op.kind {
	case core.OpSwitch, core.OpBack:
		m.result.Outcome = out
		return m.quit()
	case core.OpCreate:
		m.mode = modeList
		if out != nil && out.Worktree != nil {
			m.selectPath = out.Worktree.Path
			m.status = infoStatus("created " + rowmarks.Label(*out.Worktree) + " at " + textsafe.Escape(tildePath(out.Worktree.Path, m.home)))
		} else {
			m.status = infoStatus("created")
		}
		if out != nil {
			m.status.addWarnings(out.Warnings)
			m.status.addNotices(out.Notices)
		}
		if mm, cmd, ok := m.afterCreate(out); ok {
			if mm.quitting {
				return mm, cmd // pick mode: the new worktree was the pick
			}
			reload := mm.reload()
			return mm, tea.Batch(cmd, reload)
		}
	case core.OpRemove:
		what := ""
		if out != nil {
			what = " " + textsafe.Escape(tildePath(out.Path, m.home))
		}
		if out != nil && out.RestoreID != "" {
			// A forced remove recorded what it deleted: say how to get it back.
			what += " · undo: copse restore " + out.RestoreID
		}
		m.status = infoStatus("removed" + what)
	case core.OpLand:
		if out != nil && out.Land != nil {
			j := out.Land
			m.status = infoStatus(fmt.Sprintf("landed %s onto %s at %s (%s)", textsafe.Escape(j.Worktree.Branch), textsafe.Escape(j.Into), rowmarks.ShortHash(j.Commit), j.Job))
			// What the land left unpublished (upstreams that now differ) and the command
			// that would publish it: how to go on, so it is the hint.
			if len(j.Notices) > 0 {
				m.status.hint = oneLine("note: " + strings.Join(j.Notices, "; note: "))
			}
		} else {
			m.status = infoStatus("landed")
		}
	case core.OpClaim, core.OpRelease, core.OpPrune:
		m.status = claimPruneStatus(op.kind, out, m.home)
	case core.OpOpen:
		ws := ""
		if out != nil && out.WorkspaceID != "" {
			ws = " " + textsafe.Escape(out.WorkspaceID)
		}
		m.status = infoStatus("opened workspace" + ws)
	}
	if out != nil {
		m.status.addWarnings(out.Warnings)
		m.status.addNotices(out.Notices)
	}
	m.clampCursor() // the status may have grown: keep the selected row on screen
	return m, m.reload()
}

// opFailed shows why an operation did not happen. A form error goes next to its field; the
// rest goes to the status line with core's hint, except a removal that force would get
// past, whose hint the picker phrases itself (press D). A stale confirmation (the list changed
// while the dialog was open) and any failed mutation refresh the list, so what is shown is
// what git now says.
func (m Model) opFailed(op *operation, err error) (tea.Model, tea.Cmd) {
	e := inPickerWords(op, core.AsError(err))
	if m.mode == modeForm && e.Kind == core.KindUsage && m.form.fieldError(e) {
		return m, nil
	}
	if m.mode == modeLand && e.Kind == core.KindUsage && m.landForm.fieldError(e) {
		return m, nil
	}
	if needsSession(op, e) {
		return m.openSessionPrompt(op, e), nil
	}
	m.status = refusalStatus(op, e)
	if m.status.offer != nil && m.mode == modeLand {
		// F is typed text in the form: the form closes (its values are in the offer).
		m.mode = modeList
	}
	m.clampCursor() // the error may take lines from the list: keep the selected row on screen
	// core says which requests change anything (the picker keeps no list of its own).
	mutation := m.changes(op)
	if op.kind == core.OpLand && m.mode != modeLand {
		return m, m.reload() // a land that ran (blocked, cancelled…) changed its row's mark
	}
	if e.Code == core.CodeStaleState || (mutation && e.Kind != core.KindUsage && e.Kind != core.KindRefused) {
		return m, m.reload()
	}
	return m, nil
}

// changes asks core whether op's request changes anything (its registry decides; the
// picker keeps no list of its own). An operation the picker began without a request of
// its own (a confirmed plan's run) is asked about by its kind.
func (m Model) changes(op *operation) bool {
	if m.ops == nil {
		return false
	}
	req := op.req
	if req == nil {
		req, _ = m.ops.NewRequest(op.kind)
	}
	return req != nil && m.ops.Changes(req)
}
