// Package remotequeue keeps a land queue on a git remote, so machines that share nothing
// but the git server land into one branch in one order:
//
//	refs/copse/queue/<target>   a chain of commits; each tree holds one <id>.json per job
//	refs/copse/jobs/<id>        the job's tip while it waits; the commit it landed as after
//	refs/notes/copse-land       a note per landed commit: what was tested, by whom, how long
//
// Every change (enqueue, start, heartbeat, finish, takeover) is a new commit on the chain,
// pushed with a lease on the commit it was built on: of two machines that built on the
// same commit, one wins and the other reads the new one and builds again, a bounded number
// of times. The land itself is one atomic push that moves the target by compare-and-swap
// together with the queue commit saying so, and the note. Nothing trusts another machine's
// clock: a job is taken over only after this machine itself saw its heartbeat counter
// stand still for a whole lease (Observer).
//
// It is a leaf: it imports gitx and the standard library, and no other package of core.
// The land (rebase, proof, gate) is the caller's; this package moves refs.
package remotequeue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// The refs on the remote, in the CustomRefs layout.
const (
	QueueRefPrefix = "refs/copse/queue/"
	JobRefPrefix   = "refs/copse/jobs/"
	NotesRef       = "refs/notes/copse-land"
)

// Layout is where the queue's refs live on the remote.
type Layout struct {
	Queue string // prefix of the queue refs; the target branch follows
	Jobs  string // prefix of the job refs; the job id follows
	Notes string // the notes ref of the evidence
}

var (
	// CustomRefs is the layout of a server that takes refs outside refs/heads and
	// refs/tags: nothing of it shows as a branch.
	CustomRefs = Layout{Queue: QueueRefPrefix, Jobs: JobRefPrefix, Notes: NotesRef}
	// BranchRefs is the layout for a server that takes only branches (a forge refusing
	// custom refs): the same refs as branches under copse/.
	BranchRefs = Layout{Queue: "refs/heads/copse/queue/", Jobs: "refs/heads/copse/jobs/", Notes: "refs/heads/copse/notes/land"}
)

// CheckLease refuses a lease that is not positive or is over MaxLease (ErrBadInput).
func CheckLease(lease time.Duration) error {
	if lease <= 0 || lease > MaxLease {
		return fmt.Errorf("%w: lease %s is not within (0, %s]", ErrBadInput, lease, MaxLease)
	}
	return nil
}

// DefaultLease is the lease of a running job when copse.landLease is not set; its owner
// heartbeats every lease/3.
const DefaultLease = 60 * time.Second

// DefaultRetries bounds how often an operation rebuilds its commit on a queue that moved
// while it was being pushed.
const DefaultRetries = 20

// MaxLease is the longest lease a takeover accepts.
const MaxLease = 24 * time.Hour

// Remote is one target branch's queue on one remote, seen from one local repository.
type Remote struct {
	Git    *gitx.Runner
	Dir    string // the local repository (any of its worktrees); absolute
	Remote string // a configured remote's name
	Target string // the target branch, without refs/heads/
	// Retries bounds the rebuilds after a lost lease on the queue (or the notes); 0 means
	// DefaultRetries.
	Retries int
	// Layout is where the refs live; the zero value is CustomRefs. Probe says which one
	// the server takes.
	Layout Layout

	mu   sync.Mutex
	last *Queue // the queue last read or pushed: read again only when the remote moved
}

func (rm *Remote) layout() Layout {
	if rm.Layout == (Layout{}) {
		return CustomRefs
	}
	return rm.Layout
}

// QueueRef is the target's queue: refs/copse/queue/<target>.
func (rm *Remote) QueueRef() string { return rm.layout().Queue + rm.Target }

// TargetRef is refs/heads/<target>.
func (rm *Remote) TargetRef() string { return "refs/heads/" + rm.Target }

// JobRef is the ref of job id's commit: refs/copse/jobs/<id>.
func (rm *Remote) JobRef(id string) string { return rm.layout().Jobs + id }

// NotesRef is the notes ref of the evidence: refs/notes/copse-land.
func (rm *Remote) NotesRef() string { return rm.layout().Notes }

func (rm *Remote) retries() int {
	if rm.Retries > 0 {
		return rm.Retries
	}
	return DefaultRetries
}

// ---- errors ----

var (
	// ErrContended: the queue (or the notes) moved under every one of the bounded tries.
	ErrContended = errors.New("the remote queue kept moving; gave up after the bounded retries")
	// ErrTargetMoved: the lease on the target was lost: the remote target is no longer at
	// the commit the job was rebased onto. Nothing was pushed; fetch, rebase, test again.
	ErrTargetMoved = errors.New("the remote target moved since the job was rebased onto it")
	// ErrNotAncestor: the new tip does not contain the target's commit; it would not be a
	// fast-forward.
	ErrNotAncestor = errors.New("the new tip does not contain the target's commit")
	// ErrTreeMismatch: the tree that was tested is not the new tip's tree.
	ErrTreeMismatch = errors.New("the tested tree is not the tree of the commit to land")
	ErrNoJob        = errors.New("no such job in the remote queue")
	ErrNoTarget     = errors.New("the remote has no such target branch")
	ErrJobExists    = errors.New("a job of that id already exists on the remote")
	ErrNotHead      = errors.New("the job is not at the head of the queue")
	ErrHeadHeld     = errors.New("the head of the queue is held by a running owner")
	ErrNotOwner     = errors.New("the job is not owned by this runner (taken over or finished)")
	ErrFinished     = errors.New("the job has already finished")
	ErrNotRunning   = errors.New("the job is not running")
	ErrNotExpired   = errors.New("the job's owner has not been seen silent for a whole lease")
	ErrBadInput     = errors.New("bad input")
	// ErrUnknownRemote: the remote is not one of the repository's configured remotes.
	ErrUnknownRemote = errors.New("no such remote")
	// ErrNoCustomRefs: the server takes neither refs under refs/copse/ nor branches under
	// copse/; there is nowhere to keep the queue.
	ErrNoCustomRefs = errors.New("the remote accepts no ref to keep the queue in")
	// ErrNotPushed: a push whose outcome was unknown was settled by reading the remote:
	// the target is still at its old commit and the queue does not say landed. Safe to
	// land again.
	ErrNotPushed = errors.New("the push did not take effect (the remote still holds the old target)")
	// ErrUncertain: a push whose outcome was unknown could not be settled: the target is
	// at neither the old nor the new commit and the queue does not say landed. Report it;
	// never push again blindly.
	ErrUncertain = errors.New("the outcome of the push is uncertain")
	// ErrCorrupt: a record on the remote does not parse; it is left as it is for a person.
	ErrCorrupt = errors.New("a remote queue record does not parse")
	// ErrRejected: the server refused the push (a hook, a branch rule).
	ErrRejected = errors.New("the remote refused the push")
	// ErrNoAtomicPush: the server does not take atomic pushes; nothing was sent. copse
	// never moves the target without the queue, so it cannot land there.
	ErrNoAtomicPush = gitx.ErrNoAtomicPush
)

// CorruptError is a queue commit holding something that is not a record copse wrote. The
// queue is refused as a whole, and never rewritten over it.
type CorruptError struct {
	Ref, Commit string
	Name        string // the tree entry
	Err         error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("remote queue %s at %s: entry %q does not parse (%v); it is left as it is: fix or remove it by hand", e.Ref, short(e.Commit), e.Name, e.Err)
}
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// RejectedError is the server's refusal of a push, with what it said.
type RejectedError struct {
	Ref     string // the ref whose update the server refused
	Reason  string // git's reason, "pre-receive hook declined"
	Message string // the server's own lines (what the hook printed)
}

func (e *RejectedError) Error() string {
	msg := fmt.Sprintf("the remote refused the update of %s (%s)", e.Ref, e.Reason)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }

// StateError is a job not in the state an operation needs; Job is what the queue holds.
type StateError struct {
	Err error // ErrNotHead, ErrHeadHeld, ErrNotOwner, ErrFinished, ErrNotRunning, ErrNotExpired
	Job Job
}

func (e *StateError) Error() string {
	j := e.Job
	s := fmt.Sprintf("%v: job %s is %s", e.Err, j.ID, j.State)
	if j.Owner != "" {
		s += " (owner " + j.Owner + ")"
	}
	return s
}
func (e *StateError) Unwrap() error { return e.Err }

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	if oid == "" {
		return "(none)"
	}
	return oid
}

// ---- reading ----

// Read fetches the queue and parses it. A queue that does not exist yet is empty. A record
// that does not parse is a *CorruptError.
func (rm *Remote) Read(ctx context.Context) (*Queue, error) {
	if err := rm.check(); err != nil {
		return nil, err
	}
	refs, err := rm.Git.RemoteRefs(ctx, rm.Dir, rm.Remote, []string{rm.QueueRef()})
	if err != nil {
		return nil, err
	}
	q, err := rm.load(ctx, refs[rm.QueueRef()])
	if err != nil {
		return nil, err
	}
	return rm.remember(q), nil
}

// CheckRemote refuses a remote that is not configured in the repository (ErrUnknownRemote
// naming it), before anything is read or pushed.
func (rm *Remote) CheckRemote(ctx context.Context) error {
	if err := rm.check(); err != nil {
		return err
	}
	names, err := rm.Git.Remotes(ctx, rm.Dir)
	if err != nil {
		return err
	}
	for _, n := range names {
		if n == rm.Remote {
			return nil
		}
	}
	return fmt.Errorf("%w: %q (configured: %s)", ErrUnknownRemote, rm.Remote, strings.Join(names, ", "))
}

// Probe finds, once, the layout the server takes: CustomRefs where it accepts refs under
// refs/copse/, else BranchRefs where it accepts branches under copse/ (the message says
// why refs/copse/ was refused). A server without atomic pushes is ErrNoAtomicPush and one
// refusing both is ErrNoCustomRefs: copse never moves a target without its queue. commit
// is one the server already has (the target's tip), so the probe sends no objects; the
// probe refs it creates are deleted again.
func (rm *Remote) Probe(ctx context.Context, commit string) (Layout, string, error) {
	if err := rm.check(); err != nil {
		return Layout{}, "", err
	}
	ab, err := rm.Git.ProbePush(ctx, rm.Dir, rm.Remote, commit, "refs/copse/")
	if err != nil {
		return Layout{}, "", err
	}
	if !ab.Atomic {
		return Layout{}, "", fmt.Errorf("%w: %s", ErrNoAtomicPush, rm.Remote)
	}
	if ab.CustomRefs {
		return CustomRefs, "", nil
	}
	why := fmt.Sprintf("%s refused refs/copse/ (%s); the queue is kept in branches under copse/", rm.Remote, ab.Message)
	br, err := rm.Git.ProbePush(ctx, rm.Dir, rm.Remote, commit, "refs/heads/copse/")
	if err != nil {
		return Layout{}, "", err
	}
	if br.CustomRefs {
		return BranchRefs, why, nil
	}
	return Layout{}, "", fmt.Errorf("%w: %s refused refs/copse/ (%s) and branches under copse/ (%s)", ErrNoCustomRefs, rm.Remote, ab.Message, br.Message)
}

func (rm *Remote) check() error {
	if rm.Git == nil || rm.Dir == "" || rm.Remote == "" || rm.Target == "" {
		return fmt.Errorf("%w: remotequeue.Remote needs Git, Dir, Remote and Target", ErrBadInput)
	}
	return nil
}

// have makes sure the commits the remote holds at refs are here, fetching those that are
// missing into gitx.PrivateRef. Queue and notes are chains: a ref that moved between the
// ls-remote and the fetch brings a descendant, which holds the commit that was read.
func (rm *Remote) have(ctx context.Context, refs map[string]string, names ...string) error {
	var missing []string
	for _, n := range names {
		oid := refs[n]
		if oid == "" {
			continue
		}
		ok, err := rm.Git.HasCommit(ctx, rm.Dir, oid)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := rm.Git.FetchRefs(ctx, rm.Dir, rm.Remote, missing); err != nil {
		return err
	}
	for _, n := range missing {
		if ok, err := rm.Git.HasCommit(ctx, rm.Dir, refs[n]); err != nil || !ok {
			return fmt.Errorf("remote %s: %s at %s is not here after fetching it (was the ref rewritten?): %v", rm.Remote, n, short(refs[n]), err)
		}
	}
	return nil
}

func (rm *Remote) load(ctx context.Context, commit string) (*Queue, error) {
	q := &Queue{Ref: rm.QueueRef(), Commit: commit, blobs: map[string]string{}}
	if commit == "" {
		return q, nil
	}
	if last := rm.remembered(); last != nil && last.Commit == commit {
		return last, nil // a commit's content never changes
	}
	if err := rm.have(ctx, map[string]string{q.Ref: commit}, q.Ref); err != nil {
		return nil, err
	}
	items, err := rm.Git.ReadTreeItems(ctx, rm.Dir, commit)
	if err != nil {
		return nil, err
	}
	corrupt := func(name string, err error) error {
		return &CorruptError{Ref: q.Ref, Commit: commit, Name: name, Err: err}
	}
	var oids []string
	for _, it := range items {
		if it.Type != "blob" || it.Mode != "100644" {
			return nil, corrupt(it.Name, fmt.Errorf("a %s of mode %s, not a record file", it.Type, it.Mode))
		}
		oids = append(oids, it.OID)
	}
	blobs, err := rm.Git.ReadBlobs(ctx, rm.Dir, oids)
	if err != nil {
		return nil, err
	}
	seqs := map[int64]string{}
	for _, it := range items {
		j, err := decodeJob(it.Name, blobs[it.OID], rm.Target)
		if err != nil {
			return nil, corrupt(it.Name, err)
		}
		if other, dup := seqs[j.Seq]; dup {
			return nil, corrupt(it.Name, fmt.Errorf("its seq %d is also %s's", j.Seq, other))
		}
		seqs[j.Seq] = j.ID
		q.Jobs = append(q.Jobs, j)
		q.blobs[j.ID] = it.OID
	}
	q.sort()
	return q, nil
}

// FetchTarget fetches the remote's target branch (into gitx.PrivateRef) and returns its
// commit: the O a land rebases onto and leases the target on. ErrNoTarget when the remote
// has no such branch.
func (rm *Remote) FetchTarget(ctx context.Context) (string, error) {
	return rm.fetchOne(ctx, rm.TargetRef(), ErrNoTarget)
}

// FetchJob fetches refs/copse/jobs/<id> and returns its commit: the tip of a job another
// machine enqueued (a takeover rebases and tests it here).
func (rm *Remote) FetchJob(ctx context.Context, id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("%w: job id %q", ErrBadInput, id)
	}
	return rm.fetchOne(ctx, rm.JobRef(id), ErrNoJob)
}

// fetchOne fetches ref and returns the commit fetched (the ref may have moved since the
// ls-remote that checked it exists; what was fetched is what is here).
func (rm *Remote) fetchOne(ctx context.Context, ref string, missing error) (string, error) {
	if err := rm.check(); err != nil {
		return "", err
	}
	refs, err := rm.Git.RemoteRefs(ctx, rm.Dir, rm.Remote, []string{ref})
	if err != nil {
		return "", err
	}
	if refs[ref] == "" {
		return "", fmt.Errorf("%w: %s has no %s", missing, rm.Remote, ref)
	}
	if err := rm.Git.FetchRefs(ctx, rm.Dir, rm.Remote, []string{ref}); err != nil {
		return "", err
	}
	return rm.Git.ResolveCommit(ctx, rm.Dir, gitx.PrivateRef(rm.Remote, ref))
}

// ---- writing ----

// change is what one operation writes: the records it changed and the other refs that
// move in the same atomic push.
type change struct {
	op   string
	jobs []Job
	refs []gitx.RefUpdate
}

// build writes the queue commit that is q with ch's records replaced or added, and
// returns the queue it makes.
func (rm *Remote) build(ctx context.Context, q *Queue, ch change) (*Queue, error) {
	next := &Queue{Ref: q.Ref, blobs: map[string]string{}}
	for id, oid := range q.blobs {
		next.blobs[id] = oid
	}
	byID := map[string]Job{}
	for _, j := range q.Jobs {
		byID[j.ID] = j
	}
	var ids []string
	for _, j := range ch.jobs {
		b, err := encodeJob(j)
		if err != nil {
			return nil, err
		}
		oid, err := rm.Git.WriteBlob(ctx, rm.Dir, b)
		if err != nil {
			return nil, err
		}
		next.blobs[j.ID] = oid
		byID[j.ID] = j
		ids = append(ids, j.ID)
	}
	entries := make([]gitx.TreeEntry, 0, len(next.blobs))
	for id, oid := range next.blobs {
		entries = append(entries, gitx.TreeEntry{Name: id + ".json", Blob: oid})
	}
	for _, j := range byID {
		next.Jobs = append(next.Jobs, j)
	}
	next.sort()
	msg := fmt.Sprintf("copse land queue %s: %s %s", rm.Target, ch.op, strings.Join(ids, " "))
	commit, err := rm.Git.CommitRecords(ctx, rm.Dir, entries, q.Commit, msg)
	if err != nil {
		return nil, err
	}
	next.Commit = commit
	return next, nil
}

// update runs one queue operation: read the queue, let fn decide on it, build the commit
// and push it (with fn's other refs) with a lease on the commit read. A lost lease on the
// queue reads and decides again, bounded; fn sees the new queue each time, so a rule it
// checks (the job is the head, the owner is silent) holds on the queue the push replaces.
// (Deciding on the queue last pushed, without reading, would be as safe under the lease,
// but a push is the dearest step: with machines taking turns, a push on a stale guess
// cost more than every read it saved.)
func (rm *Remote) update(ctx context.Context, fn func(q *Queue) (change, error)) (*Queue, error) {
	if err := rm.check(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		q, err := rm.Read(ctx)
		if err != nil {
			return nil, err
		}
		ch, err := fn(q)
		if err != nil {
			return nil, err
		}
		next, err := rm.build(ctx, q, ch)
		if err != nil {
			return nil, err
		}
		commit := next.Commit
		updates := append([]gitx.RefUpdate{{Ref: q.Ref, New: commit, Expect: q.Commit}}, ch.refs...)
		res, err := rm.Git.PushAtomic(ctx, rm.Dir, rm.Remote, updates)
		if errors.Is(err, gitx.ErrPushIncomplete) {
			// Settled by reading, never by pushing blindly: all or nothing, so the queue ref
			// says whether all of it was applied.
			refs, rerr := rm.Git.RemoteRefs(ctx, rm.Dir, rm.Remote, []string{q.Ref})
			switch {
			case rerr != nil:
				return nil, fmt.Errorf("%w: %w (and reading the remote failed: %w)", ErrUncertain, err, rerr)
			case refs[q.Ref] == commit:
				return rm.remember(next), nil
			case refs[q.Ref] != q.Commit:
				return nil, fmt.Errorf("%w: %w; the queue is now at %s", ErrUncertain, err, short(refs[q.Ref]))
			}
			// Not applied: try again like a lost lease.
		} else if err != nil {
			return nil, err
		} else {
			done, err := rm.outcome(res, q.Ref)
			if done {
				return rm.remember(next), nil
			}
			if err != nil {
				return nil, err
			}
		}
		if attempt+1 >= rm.retries() {
			return nil, fmt.Errorf("%w (%d tries on %s)", ErrContended, attempt+1, q.Ref)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// outcome reads a push that git reported in full: done when every ref moved; no error
// and not done when only a lease the loop may rebuild on (the queue, the notes) was lost.
func (rm *Remote) outcome(res gitx.PushResult, queueRef string) (done bool, err error) {
	retry := false
	var first error
	for _, r := range res.Refs {
		switch r.Status {
		case gitx.PushOK, gitx.PushAtomicFailed:
			continue
		case gitx.PushStale:
			switch {
			case r.Ref == queueRef || r.Ref == rm.NotesRef():
				retry = true
			case r.Ref == rm.TargetRef():
				return false, fmt.Errorf("%w: lease lost on %s", ErrTargetMoved, r.Ref)
			case strings.HasPrefix(r.Ref, rm.layout().Jobs):
				first = fmt.Errorf("%w: %s moved or exists on %s", ErrJobExists, r.Ref, rm.Remote)
			default:
				first = fmt.Errorf("lease lost on %s", r.Ref)
			}
		case gitx.PushRemoteRejected, gitx.PushRejected:
			if first == nil {
				first = &RejectedError{Ref: r.Ref, Reason: r.Reason, Message: res.Message()}
			}
		}
	}
	if first != nil {
		return false, first
	}
	if retry {
		return false, nil
	}
	for _, r := range res.Refs {
		if r.Status != gitx.PushOK {
			return false, fmt.Errorf("the push of %s failed (%s) and no ref says why", r.Ref, r.Reason)
		}
	}
	return true, nil
}

// remember keeps q as the queue this Remote last saw on the remote, and returns it.
func (rm *Remote) remember(q *Queue) *Queue {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	rm.last = q
	return q
}

func (rm *Remote) forget() { rm.remember(nil) }

// remembered is the queue this Remote last pushed or read, nil when none: a queue commit
// read again is not parsed again. Queues are never changed in place, so it is shared.
func (rm *Remote) remembered() *Queue {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return rm.last
}

// backoff waits a little, more after each lost lease and at random, so machines that keep
// colliding spread out.
func backoff(ctx context.Context, attempt int) error {
	n, err := rand.Int(rand.Reader, big.NewInt(int64(10+10*min(attempt, 10))))
	if err != nil {
		return err
	}
	t := time.NewTimer(time.Duration(5+n.Int64()) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// NewID is a fresh job id: "r" and 12 random hex digits. Ids are shared by the queues of
// every target under refs/copse/jobs/, so they are random, not counted.
func NewID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "r" + hex.EncodeToString(b[:]), nil
}

// ---- operations ----

// Enqueue appends job to the queue: its Seq after every job there, state queued, and its
// tip pushed to refs/copse/jobs/<id> in the same atomic push (a job ref that exists is
// ErrJobExists). Branch, Tip and Machine are required; an empty ID gets NewID.
func (rm *Remote) Enqueue(ctx context.Context, job Job) (Job, error) {
	if job.ID == "" {
		id, err := NewID()
		if err != nil {
			return Job{}, err
		}
		job.ID = id
	}
	job.V, job.Target, job.State, job.Heartbeat, job.Owner, job.Landed = RecordVersion, rm.Target, Queued, 0, "", ""
	if job.Enqueued.IsZero() {
		job.Enqueued = time.Now().UTC().Truncate(time.Second)
	}
	probe := job
	probe.Seq = 1 // given on each try, after the queue's last
	if err := probe.validate(job.ID + ".json"); err != nil {
		return Job{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if ok, err := rm.Git.HasCommit(ctx, rm.Dir, job.Tip); err != nil || !ok {
		return Job{}, fmt.Errorf("%w: the tip %s of %s is not a commit of this repository (%v)", ErrBadInput, short(job.Tip), job.Branch, err)
	}
	var out Job
	_, err := rm.update(ctx, func(q *Queue) (change, error) {
		if _, ok := q.Job(job.ID); ok {
			return change{}, fmt.Errorf("%w: %s", ErrJobExists, job.ID)
		}
		j := job
		j.Seq = q.lastSeq() + 1
		out = j
		return change{op: "enqueue", jobs: []Job{j}, refs: []gitx.RefUpdate{{Ref: rm.JobRef(j.ID), New: j.Tip}}}, nil
	})
	return out, err
}

// Start makes the head job, which must be id and queued, running under owner.
func (rm *Remote) Start(ctx context.Context, id, owner string) (Job, error) {
	if err := checkOwner(owner); err != nil {
		return Job{}, err
	}
	return rm.modify(ctx, "start", id, func(q *Queue, j Job) (Job, error) {
		if j.State.Final() {
			return j, &StateError{Err: ErrFinished, Job: j}
		}
		head, _ := q.Head()
		if head.ID != j.ID {
			if head.State == Running {
				return j, &StateError{Err: ErrHeadHeld, Job: head}
			}
			return j, &StateError{Err: ErrNotHead, Job: j}
		}
		if j.State == Running {
			return j, &StateError{Err: ErrHeadHeld, Job: j}
		}
		j.State, j.Owner, j.Heartbeat, j.Attempt = Running, owner, j.Heartbeat+1, j.Attempt+1
		return j, nil
	})
}

// Heartbeat adds one to the counter of the running job id, which owner must hold.
func (rm *Remote) Heartbeat(ctx context.Context, id, owner string) (Job, error) {
	return rm.modify(ctx, "heartbeat", id, func(q *Queue, j Job) (Job, error) {
		if err := owned(j, owner); err != nil {
			return j, err
		}
		j.Heartbeat++
		return j, nil
	})
}

// Finish ends the job id in state (Blocked, Abandoned or Uncertain; a job becomes Landed
// only by LandPush) with reason. A running job must be owner's; a queued one (a --no-wait
// job nobody started) may be finished by anyone.
func (rm *Remote) Finish(ctx context.Context, id, owner string, state State, reason string) (Job, error) {
	if !state.Final() || state == Landed {
		return Job{}, fmt.Errorf("%w: Finish takes blocked, abandoned or uncertain, not %q", ErrBadInput, state)
	}
	return rm.modify(ctx, string(state), id, func(q *Queue, j Job) (Job, error) {
		if j.State.Final() {
			return j, &StateError{Err: ErrFinished, Job: j}
		}
		if j.State == Running {
			if err := owned(j, owner); err != nil {
				return j, err
			}
		}
		j.State, j.Reason = state, reason
		return j, nil
	})
}

// Takeover makes owner the owner of the running job id whose owner went silent: obs (this
// machine's own observations, fed by every queue it reads) must have seen the job's
// counter and owner unchanged for at least lease. The push is a compare-and-swap on the
// queue commit, and every rebuild after a lost lease decides again on the new queue, so of
// two machines taking the same job over exactly one wins; the other gets ErrNotExpired
// (it now sees a new owner and counter). The caller re-runs the job's gate (its owner's
// result is unknown) or finishes it abandoned.
func (rm *Remote) Takeover(ctx context.Context, id, owner string, obs *Observer, lease time.Duration) (Job, error) {
	if err := checkOwner(owner); err != nil {
		return Job{}, err
	}
	if err := CheckLease(lease); err != nil {
		return Job{}, err
	}
	if obs == nil {
		return Job{}, fmt.Errorf("%w: a takeover needs this machine's Observer", ErrBadInput)
	}
	return rm.modify(ctx, "takeover", id, func(q *Queue, j Job) (Job, error) {
		obs.See(q)
		if j.State != Running {
			if j.State.Final() {
				return j, &StateError{Err: ErrFinished, Job: j}
			}
			return j, &StateError{Err: ErrNotRunning, Job: j}
		}
		if !obs.Expired(j, lease) {
			return j, &StateError{Err: ErrNotExpired, Job: j}
		}
		j.Owner, j.Heartbeat, j.Attempt = owner, j.Heartbeat+1, j.Attempt+1
		return j, nil
	})
}

// modify is update for an operation on one job's record.
func (rm *Remote) modify(ctx context.Context, op, id string, fn func(q *Queue, j Job) (Job, error)) (Job, error) {
	var out Job
	_, err := rm.update(ctx, func(q *Queue) (change, error) {
		j, ok := q.Job(id)
		if !ok {
			return change{}, fmt.Errorf("%w: %s in %s on %s", ErrNoJob, id, q.Ref, rm.Remote)
		}
		j, err := fn(q, j)
		if err != nil {
			return change{}, err
		}
		j.Updated = time.Now().UTC().Truncate(time.Second)
		out = j
		return change{op: op, jobs: []Job{j}}, nil
	})
	return out, err
}

func owned(j Job, owner string) error {
	switch {
	case j.State.Final():
		return &StateError{Err: ErrFinished, Job: j}
	case j.State != Running:
		return &StateError{Err: ErrNotRunning, Job: j}
	case j.Owner != owner:
		return &StateError{Err: ErrNotOwner, Job: j}
	}
	return nil
}

func checkOwner(owner string) error {
	if owner == "" || len(owner) > 200 || strings.ContainsAny(owner, "\x00\n") {
		return fmt.Errorf("%w: owner %q must be one non-empty line", ErrBadInput, owner)
	}
	return nil
}
