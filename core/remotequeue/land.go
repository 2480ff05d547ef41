package remotequeue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Evidence is the note a remote land attaches to the commit it put on the target: anyone
// can check later that what landed is what was tested.
type Evidence struct {
	Job      string `json:"job"`
	Tree     string `json:"tree"` // the full id of the tree the gate ran on: the landed commit's
	Test     string `json:"test"` // the gate's command text ("" when there was none)
	Exit     int    `json:"exit"` // the gate's exit code
	Machine  string `json:"machine"`
	Duration string `json:"duration"` // how long the gate ran, as Go prints a duration ("1m2.5s")
}

// ParseEvidence reads a note LandPush wrote.
func ParseEvidence(note []byte) (Evidence, error) {
	var e Evidence
	err := json.Unmarshal(note, &e)
	return e, err
}

// Land is one land push: the running job Job, held by Owner, moves the target from Old
// (the remote target's commit the job was rebased onto) to New (its rebased tip, which
// contains Old), after a gate on Tree.
type Land struct {
	Job, Owner string
	Old, New   string
	Tree       string // the tree the gate ran on; must be New's
	Test       string
	Exit       int
	Machine    string
	Duration   time.Duration
}

// LandResult is a land that took effect.
type LandResult struct {
	Job   Job    // the record as the queue now holds it (state landed)
	Queue string // the queue commit that says so
	Notes string // the notes commit holding the evidence
	// Settled is true when the push's outcome was unknown (the connection dropped) and
	// reading the remote showed it had taken effect.
	Settled bool
}

// landNote checks what a land push needs before it asks the remote anything (the owner,
// the ids, New containing Old and holding the tested tree) and makes its evidence note.
func (rm *Remote) landNote(ctx context.Context, l Land) ([]byte, error) {
	if err := rm.check(); err != nil {
		return nil, err
	}
	if err := checkOwner(l.Owner); err != nil {
		return nil, err
	}
	if !validID(l.Job) || !isOID(l.Old) || !isOID(l.New) || !isOID(l.Tree) || l.Machine == "" {
		return nil, fmt.Errorf("%w: a land needs a job id, full old, new and tree ids and a machine", ErrBadInput)
	}
	anc, err := rm.Git.Ancestor(ctx, rm.Dir, l.Old, l.New)
	if err != nil {
		return nil, err
	}
	if !anc {
		return nil, fmt.Errorf("%w: %s does not contain %s", ErrNotAncestor, short(l.New), short(l.Old))
	}
	tree, err := rm.Git.TreeOf(ctx, rm.Dir, l.New)
	if err != nil {
		return nil, err
	}
	if tree != l.Tree {
		return nil, fmt.Errorf("%w: tested %s, %s holds %s", ErrTreeMismatch, short(l.Tree), short(l.New), short(tree))
	}
	return json.Marshal(Evidence{Job: l.Job, Tree: l.Tree, Test: l.Test, Exit: l.Exit, Machine: l.Machine, Duration: l.Duration.String()})
}

// LandPush lands job l.Job: one atomic push moving refs/heads/<target> from l.Old to l.New
// (--force-with-lease=refs/heads/<target>:<old>: a target someone else moved is never
// overwritten), the queue commit marking the job landed, the evidence note on l.New, and
// refs/copse/jobs/<id> to l.New. New must contain Old (checked here) and have the tested
// tree. A lease lost on the queue or the notes (another job enqueued, another target
// landed) rebuilds those and pushes again, bounded, without a new test.
//
// Errors: ErrTargetMoved (lease lost on the target: fetch, rebase, test again),
// *RejectedError (the server refused: the job should end blocked, quoting it),
// *StateError (the job is no longer l.Owner's: taken over), ErrNotPushed and ErrUncertain
// (an unknown outcome settled by reading the remote: not landed / cannot tell),
// ErrContended, ErrNotAncestor, ErrTreeMismatch, ErrBadInput.
func (rm *Remote) LandPush(ctx context.Context, l Land) (LandResult, error) {
	note, err := rm.landNote(ctx, l)
	if err != nil {
		return LandResult{}, err
	}

	queueRef, targetRef, jobRef, notesRef := rm.QueueRef(), rm.TargetRef(), rm.JobRef(l.Job), rm.NotesRef()
	for attempt := 0; ; attempt++ {
		refs, err := rm.Git.RemoteRefs(ctx, rm.Dir, rm.Remote, []string{queueRef, targetRef, notesRef, jobRef})
		if err != nil {
			return LandResult{}, err
		}
		if refs[targetRef] != l.Old {
			return LandResult{}, fmt.Errorf("%w: %s on %s is at %s, not %s", ErrTargetMoved, targetRef, rm.Remote, short(refs[targetRef]), short(l.Old))
		}
		q, err := rm.load(ctx, refs[queueRef])
		if err != nil {
			return LandResult{}, err
		}
		j, ok := q.Job(l.Job)
		if !ok {
			return LandResult{}, fmt.Errorf("%w: %s in %s on %s", ErrNoJob, l.Job, queueRef, rm.Remote)
		}
		if err := owned(j, l.Owner); err != nil {
			return LandResult{}, err
		}
		if err := rm.have(ctx, refs, notesRef); err != nil {
			return LandResult{}, err
		}
		j.State, j.Landed, j.Updated = Landed, l.New, time.Now().UTC().Truncate(time.Second)
		next, err := rm.build(ctx, q, change{op: "landed", jobs: []Job{j}})
		if err != nil {
			return LandResult{}, err
		}
		commit := next.Commit
		notes, err := rm.Git.NoteCommit(ctx, rm.Dir, refs[notesRef], l.New, string(note))
		if err != nil {
			return LandResult{}, err
		}
		updates := []gitx.RefUpdate{
			{Ref: targetRef, New: l.New, Expect: l.Old},
			{Ref: queueRef, New: commit, Expect: q.Commit},
			{Ref: notesRef, New: notes, Expect: refs[notesRef]},
			{Ref: jobRef, New: l.New, Expect: refs[jobRef]},
		}
		done := LandResult{Job: j, Queue: commit, Notes: notes}
		res, err := rm.Git.PushAtomic(ctx, rm.Dir, rm.Remote, updates)
		if errors.Is(err, gitx.ErrPushIncomplete) {
			return rm.settle(ctx, l, done, err)
		}
		if err != nil {
			return LandResult{}, err
		}
		ok, err = rm.outcome(res, queueRef)
		if ok {
			rm.remember(next)
			return done, nil
		}
		if err != nil {
			return LandResult{}, err
		}
		if attempt+1 >= rm.retries() {
			return LandResult{}, fmt.Errorf("%w (%d tries to land %s)", ErrContended, attempt+1, l.Job)
		}
		if err := backoff(ctx, attempt); err != nil {
			return LandResult{}, err
		}
	}
}

// Outcome is what reading the remote says of a land push whose result was not reported.
type Outcome int

const (
	OutcomeLanded    Outcome = iota + 1 // the target is at the new commit, or the queue says the job landed as it
	OutcomeNotLanded                    // the target is still at the old commit and the queue does not say landed
	OutcomeUncertain                    // anything else
)

func (o Outcome) String() string {
	switch o {
	case OutcomeLanded:
		return "landed"
	case OutcomeNotLanded:
		return "not landed"
	case OutcomeUncertain:
		return "uncertain"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Resolve reads the remote to settle a land of job from old to new whose push outcome is
// unknown. The push was atomic, so the queue commit moved exactly when the target did: a
// queue saying the job landed as new means landed even when the target moved on since.
func (rm *Remote) Resolve(ctx context.Context, job, old, new string) (Outcome, error) {
	if err := rm.check(); err != nil {
		return 0, err
	}
	refs, err := rm.Git.RemoteRefs(ctx, rm.Dir, rm.Remote, []string{rm.TargetRef(), rm.QueueRef()})
	if err != nil {
		return 0, err
	}
	if refs[rm.TargetRef()] == new {
		return OutcomeLanded, nil
	}
	q, err := rm.load(ctx, refs[rm.QueueRef()])
	if err != nil {
		return 0, err
	}
	if j, ok := q.Job(job); ok && j.State == Landed && j.Landed == new {
		return OutcomeLanded, nil
	}
	if refs[rm.TargetRef()] == old {
		return OutcomeNotLanded, nil
	}
	return OutcomeUncertain, nil
}

func (rm *Remote) settle(ctx context.Context, l Land, done LandResult, pushErr error) (LandResult, error) {
	rm.forget()
	o, err := rm.Resolve(ctx, l.Job, l.Old, l.New)
	if err != nil {
		return LandResult{}, fmt.Errorf("%w: %w (and reading the remote failed: %w)", ErrUncertain, pushErr, err)
	}
	switch o {
	case OutcomeLanded:
		done.Settled = true
		return done, nil
	case OutcomeNotLanded:
		return LandResult{}, fmt.Errorf("%w: %w", ErrNotPushed, pushErr)
	}
	return LandResult{}, fmt.Errorf("%w: %s on %s is at neither %s nor %s: %w", ErrUncertain, rm.TargetRef(), rm.Remote, short(l.Old), short(l.New), pushErr)
}
