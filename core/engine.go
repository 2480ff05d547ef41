package core

import (
	"context"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// The engine: the one place that sequences a request's steps. Every operation (see
// operation.go) goes through it, so none re-implements a step:
//
//	Prepare:  (wait for a mutation under way) → read git → resolve an id → parse → plan
//	Execute:  lock → read git again → prepare again → compare state tokens → run
//	          (the operation reads back and verifies what it did) → emit its events
//	          → unlock → settle (land waits in its queue here)
//
// A request that changes nothing runs on its plan as made, without a lock.

func (s *Env) prepare(ctx context.Context, req Request) (*Plan, error) {
	return s.prepareLocking(ctx, req, true)
}

// prepareLocking is prepare; with wait false it takes no lock at all (a dry run: it looks
// at the repository as it is now, and neither waits for a holder nor makes the lock file).
func (s *Env) prepareLocking(ctx context.Context, req Request, wait bool) (*Plan, error) {
	if req != nil && wait && !s.reg.changesNothing(req) {
		// Checks of a mutation wait for any mutation under way (in this process or
		// another copse), so they never see a half-made worktree and refuse it for the
		// wrong reason. Execute checks again under the lock before it runs anything.
		unlock, err := s.lockExisting(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	snap, err := s.ReadAndLearn(ctx)
	if err != nil {
		return nil, err
	}
	return s.prepareWith(ctx, req, snap)
}

// readAndLearn lists the worktrees and updates what the service knows of the repository.
func (s *Env) ReadAndLearn(ctx context.Context) (Snapshot, error) {
	snap, err := s.Read(ctx)
	if err == nil {
		s.Learn(snap)
	}
	return snap, err
}

// prepareWith parses req against one snapshot of git's worktree list. It changes nothing.
func (s *Env) prepareWith(ctx context.Context, req Request, snap Snapshot) (*Plan, error) {
	if req == nil {
		return nil, Usage(CodeMissingOperation, "operation", "name one of: "+s.reg.operationNames(), "no request")
	}
	op, ok := s.reg.lookup(req.Op())
	if !ok {
		return nil, Usage(CodeUnknownOperation, "operation", "name one of: "+s.reg.operationNames(), "unknown request %T", req)
	}
	// Bad input first: a malformed token is refused before any check of the state.
	exp := expectedToken(req)
	if exp != nil {
		if err := checkToken(*exp); err != nil {
			return nil, err
		}
	}
	orig := req // the plan keeps the request as asked (an id stays an id for Execute's re-check)
	req, ctx, err := s.resolveID(ctx, req, snap)
	if err != nil {
		return nil, err
	}
	p, err := op.Prepare(s, ctx, req, snap)
	if err != nil {
		return nil, err
	}
	p.Request = orig
	p.ListToken, p.Token = snap.Token, snap.Token
	if p.Confirm != nil {
		p.Token = p.Confirm.digest(snap.Token)
		p.Confirm.Token = p.Token
	}
	if exp != nil && *exp != string(p.Token) && *exp != string(snap.Token) {
		return nil, staleToken(*exp)
	}
	return p, nil
}

// Execution is one run of a plan: what the caller prepared, what was prepared again under
// the lock, the worktree list read there, and the events the run produced.
type Execution struct {
	Asked  *Plan    // as the caller prepared it (and a person may have confirmed)
	Plan   *Plan    // prepared again under the lock; asked itself when nothing changes
	Before Snapshot // the worktree list read under the lock (empty when nothing changes)
	events []pendingEvent
}

// pendingEvent is an event a run produced; the engine writes it while the lock is held.
type pendingEvent struct {
	ev Event
	wt *Worktree
}

// Emit records ev (about wt) for the engine to write once the phase returns, whatever it
// returns: what happened before a failure is logged too.
func (x *Execution) Emit(ev Event, wt *Worktree) {
	x.events = append(x.events, pendingEvent{ev, wt})
}

// take hands the events emitted so far to the step that writes them.
func (x *Execution) take() []pendingEvent {
	ev := x.events
	x.events = nil
	return ev
}

// Warnings are the plan's warnings, carried onto the outcome.
func (x *Execution) Warnings() []string { return x.Plan.Warnings }

func (s *Env) execute(ctx context.Context, p *Plan) (*Outcome, error) {
	if p == nil || p.Cmd == nil || p.Request == nil {
		return nil, Usage(CodeNoPlan, "", "call Prepare first", "nothing to execute: the plan is empty")
	}
	op, ok := s.reg.lookup(p.Request.Op())
	if !ok || (op.Run == nil && op.Phases == nil) {
		return nil, Usage(CodeUnknownOperation, "operation", "name one of: "+s.reg.operationNames(), "cannot execute %T", p.Cmd)
	}
	x := &Execution{Asked: p, Plan: p}
	nothing := s.reg.changesNothing(p.Request)
	var out *Outcome
	first := true // the first locked phase prepares the plan again and compares it
	for _, ph := range op.phases() {
		var err error
		switch {
		case nothing || !ph.Locked:
			// A request that changes nothing runs on its plan as made, without a lock.
			out, err = ph.Run(s, ctx, x, out)
		case first:
			first = false
			out, err = s.firstLocked(ctx, op, x, ph)
		default:
			err = s.critical(ctx, op.lockOf(s, x.Asked.Cmd), func(st *Step) error {
				x.Before = st.Snap
				var rerr error
				out, rerr = ph.Run(s, ctx, x, out)
				st.events = append(st.events, x.take()...)
				st.out = out
				return rerr
			})
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// phases is what the engine runs of o: its Phases, or its Run as one locked phase.
func (o *Op) phases() []Phase {
	if o.Phases != nil {
		return o.Phases
	}
	run := o.Run
	return []Phase{{Name: string(o.Name), Locked: true, Run: func(s *Env, ctx context.Context, x *Execution, _ *Outcome) (*Outcome, error) {
		return run(s, ctx, x)
	}}}
}

// firstLocked is an operation's first locked phase: under the lock, read, prepare again,
// compare, run, emit.
func (s *Env) firstLocked(ctx context.Context, op *Op, x *Execution, ph Phase) (*Outcome, error) {
	var out *Outcome
	err := s.critical(ctx, op.lockOf(s, x.Asked.Cmd), func(st *Step) error {
		// Under the lock, read git again: a confirmed plan runs only against the list the
		// person saw; any plan re-checks its preconditions against the state it will change.
		fresh, err := s.prepareWith(ctx, x.Asked.Request, st.Snap)
		if err != nil {
			return err
		}
		// A confirmed plan runs only if, under the lock, it would show exactly what the person
		// approved: the same worktree list and the same confirmation.
		if x.Asked.Confirm != nil && fresh.Token != x.Asked.Token {
			return Refused(CodeStaleState, "look again and confirm again; nothing ran",
				"the worktree list or what the %s would change changed after the confirmation was shown; nothing ran", op.Name)
		}
		if op.Recheck != nil {
			if err := op.Recheck(x.Asked.Cmd, fresh.Cmd); err != nil {
				return err
			}
		}
		x.Plan, x.Before = fresh, st.Snap
		out, err = ph.Run(s, ctx, x, nil)
		st.events = append(st.events, x.take()...)
		st.out = out
		return err
	})
	return out, err
}

// A Step is one locked step of an operation: the worktree list read under the lock, and
// the events the step produced, which Critical writes before it releases the lock.
type Step struct {
	Snap   Snapshot
	events []pendingEvent
	out    *Outcome // carries the step's warnings about the events it wrote
}

// Emit records ev (about wt) for Critical to write while the lock is still held.
func (st *Step) Emit(ev Event, wt *Worktree) { st.events = append(st.events, pendingEvent{ev, wt}) }

// Critical is the one locked step every operation takes, the engine's own and a land's
// phases alike: the repository lock, a fresh reading of git's worktree list, fn on it,
// the events fn emitted, the unlock. Nothing fn decides is made on a list read before
// the lock.
func (s *Env) Critical(ctx context.Context, fn func(*Step) error) error {
	return s.critical(ctx, LockRepo, fn)
}

// critical is Critical under the lock of kind k.
func (s *Env) critical(ctx context.Context, k LockKind, fn func(*Step) error) error {
	unlock, err := s.lockOfKind(ctx, k)
	if err != nil {
		return err
	}
	defer unlock()
	snap, err := s.ReadAndLearn(ctx)
	if err != nil {
		return err
	}
	st := &Step{Snap: snap}
	err = fn(st)
	s.writeEvents(st.out, st.events)
	return err
}

// lockOf is the lock kind o declares for c.
func (o *Op) lockOf(s *Env, c Command) LockKind {
	if o.Lock == nil {
		return LockRepo
	}
	return o.Lock(s, c)
}

// lockOfKind takes the lock of kind k.
func (s *Env) lockOfKind(ctx context.Context, k LockKind) (func(), error) {
	if k == LockWaitOnly {
		return s.lockExisting(ctx)
	}
	return s.Lock(ctx)
}

// lock takes the repository lock (in-process mutex plus the file lock in the git common dir).
func (s *Env) Lock(ctx context.Context) (func(), error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	return s.lockRepo(ctx, commonDir, true)
}

// checkToken: a state token is what copse handed out, 24 lower-case hex digits.
func checkToken(raw string) error {
	const field = "expected_state_token"
	if err := CheckText(field, raw, 64); err != nil {
		return err
	}
	if len(raw) != 24 || strings.Trim(raw, "0123456789abcdef") != "" {
		return Usage(CodeBadStateToken, field, "send the state_token exactly as list or needs_approval returned it",
			"%s %s is not a state token copse handed out", field, Quote(raw))
	}
	return nil
}

// staleToken refuses a request whose expected_state_token no longer describes the state.
func staleToken(exp string) *Error {
	return Refused(CodeStaleState, "list again (or ask again) and send the new state_token; nothing ran",
		"the state changed since state_token %s was read; nothing ran", Quote(exp))
}

// resolveID turns a request that names its worktree by id into the same request naming it
// by path, so each operation's own checks see one kind of target; the later check is the
// one a path gets. The worktree itself travels in ctx (idTarget): its path is git's own
// record and may hold characters (a newline) that copse refuses in a typed path; an id is
// how such a worktree is named. An id together with another target is refused.
func (s *Env) resolveID(ctx context.Context, req Request, snap Snapshot) (Request, context.Context, error) {
	r, ok := req.(byID)
	if !ok {
		return req, ctx, nil
	}
	id, others := r.idTarget()
	if id == nil {
		return req, ctx, nil
	}
	for _, o := range others {
		if o != nil {
			return nil, ctx, Usage(CodeExactlyOne, "target", "name the worktree by exactly one of path, branch or id",
				"expected exactly one of path, branch or id, got several")
		}
	}
	t, err := s.WorktreeOfID(ctx, snap, *id)
	if err != nil {
		return nil, ctx, err
	}
	return r.atPath(&t.Path), context.WithValue(ctx, idTargetKey{}, t), nil
}

type idTargetKey struct{}

// idTarget is the worktree resolveID found, if the request named one by id.
func idTarget(ctx context.Context) (gitx.Worktree, bool) {
	t, ok := ctx.Value(idTargetKey{}).(gitx.Worktree)
	return t, ok
}
