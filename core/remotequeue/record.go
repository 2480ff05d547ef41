package remotequeue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// RecordVersion is the version of the record this package writes. A record of a newer
// version is refused rather than rewritten without what this copse does not know.
const RecordVersion = 1

// State is where a job is.
type State string

const (
	Queued    State = "queued"
	Running   State = "running"
	Landed    State = "landed"
	Blocked   State = "blocked"
	Abandoned State = "abandoned"
	Uncertain State = "uncertain"
)

// Final reports a state a job never leaves.
func (s State) Final() bool {
	switch s {
	case Landed, Blocked, Abandoned, Uncertain:
		return true
	}
	return false
}

func (s State) known() bool { return s == Queued || s == Running || s.Final() }

// Job is one record of the queue, <ID>.json in the queue commit's tree.
type Job struct {
	V       int    `json:"v"`
	ID      string `json:"id"`
	Seq     int64  `json:"seq"`    // its place in the queue: unique, increasing in enqueue order
	Target  string `json:"target"` // the branch it lands into
	Branch  string `json:"branch"` // the branch it lands
	Tip     string `json:"tip"`    // the branch's exact tip when enqueued (refs/copse/jobs/<id>)
	Machine string `json:"machine"`
	Session string `json:"session,omitempty"`
	Test    string `json:"test,omitempty"` // the gate's command text
	State   State  `json:"state"`
	// Heartbeat is the owner's liveness counter: it goes up on start, on every heartbeat
	// and on a takeover. Its value means nothing; only whether it moves does.
	Heartbeat int64  `json:"heartbeat"`
	Owner     string `json:"owner,omitempty"`   // who runs it (set by start and takeover)
	Attempt   int    `json:"attempt,omitempty"` // how many times it was started (a takeover counts)
	Landed    string `json:"landed,omitempty"`  // the commit the target was moved to
	Reason    string `json:"reason,omitempty"`  // why it is blocked, abandoned or uncertain
	// Via is how the job finishes: "" is copse's own atomic push. A hand-off to a forge's
	// merge queue would name itself here and keep its own fields beside.
	Via string `json:"via,omitempty"`
	// Enqueued and Updated are the writing machine's wall clock: for showing an age only,
	// never for deciding liveness.
	Enqueued time.Time `json:"enqueued"`
	Updated  time.Time `json:"updated,omitzero"`
}

const maxField = 4096

func (j Job) validate(name string) error {
	switch {
	case j.V < 1 || j.V > RecordVersion:
		return fmt.Errorf("record version %d is not one this copse writes (%d)", j.V, RecordVersion)
	case !validID(j.ID):
		return fmt.Errorf("id %q is not r and 12 hex digits", j.ID)
	case name != j.ID+".json":
		return fmt.Errorf("record of job %q is stored as %q", j.ID, name)
	case j.Seq <= 0:
		return fmt.Errorf("seq %d is not positive", j.Seq)
	case j.Target == "" || j.Branch == "":
		return errors.New("target or branch is empty")
	case !isOID(j.Tip):
		return fmt.Errorf("tip %q is not a full commit id", j.Tip)
	case j.Machine == "":
		return errors.New("machine is empty")
	case !j.State.known():
		return fmt.Errorf("state %q is unknown", j.State)
	case j.Heartbeat < 0 || j.Attempt < 0:
		return errors.New("negative heartbeat or attempt")
	case j.State == Running && j.Owner == "":
		return errors.New("running without an owner")
	case j.State == Landed && !isOID(j.Landed):
		return fmt.Errorf("landed without the commit it landed as (%q)", j.Landed)
	}
	for _, f := range []string{j.Target, j.Branch, j.Machine, j.Session, j.Test, j.Owner, j.Reason, j.Via} {
		if len(f) > maxField {
			return fmt.Errorf("a field is over %d bytes", maxField)
		}
	}
	return nil
}

func validID(id string) bool {
	if len(id) != 13 || id[0] != 'r' {
		return false
	}
	for _, c := range id[1:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isOID(v string) bool {
	if len(v) != 40 && len(v) != 64 {
		return false
	}
	return strings.Trim(v, "0123456789abcdef") == ""
}

func encodeJob(j Job) ([]byte, error) {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeJob parses one record strictly: an unknown field is refused, because a rewrite of
// the record would drop it, and so is a record of another target's queue.
func decodeJob(name string, b []byte, target string) (Job, error) {
	var j Job
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Job{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Job{}, errors.New("text after the record")
	}
	if err := j.validate(name); err != nil {
		return Job{}, err
	}
	if j.Target != target {
		return Job{}, fmt.Errorf("the record is for target %q, in the queue of %q", j.Target, target)
	}
	return j, nil
}

// Queue is the queue as one commit holds it.
type Queue struct {
	Ref    string // refs/copse/queue/<target>
	Commit string // the queue commit read; "" when the queue does not exist yet
	Jobs   []Job  // in queue order (Seq)

	blobs map[string]string // job id → the blob it was read from, reused when unchanged
}

func (q *Queue) sort() {
	sort.Slice(q.Jobs, func(a, b int) bool { return q.Jobs[a].Seq < q.Jobs[b].Seq })
}

// Job returns the job id.
func (q *Queue) Job(id string) (Job, bool) {
	for _, j := range q.Jobs {
		if j.ID == id {
			return j, true
		}
	}
	return Job{}, false
}

// Head is the first job that has not finished, ok false when there is none.
func (q *Queue) Head() (Job, bool) {
	for _, j := range q.Jobs {
		if !j.State.Final() {
			return j, true
		}
	}
	return Job{}, false
}

func (q *Queue) lastSeq() int64 {
	var n int64
	for _, j := range q.Jobs {
		n = max(n, j.Seq)
	}
	return n
}

// ---- liveness ----

// Observer is one machine's own record of when it last saw each running job's heartbeat
// counter change, on this machine's monotonic clock: another machine's clock is never
// read. Feed it every queue read (See); Expired then says whether this machine itself has
// watched a job stand still for a whole lease. Safe for concurrent use.
type Observer struct {
	// Now is the clock; nil is time.Now (whose readings carry the monotonic clock, so a
	// wall-clock step does not shorten a lease).
	Now func() time.Time

	mu   sync.Mutex
	seen map[string]sighting
}

type sighting struct {
	heartbeat int64
	owner     string
	since     time.Time
}

func (o *Observer) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// See records each running job of q: a job first seen, or whose counter or owner changed,
// starts a new sighting now; a job no longer running is forgotten.
func (o *Observer) See(q *Queue) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[string]sighting{}
	}
	now := o.now()
	running := map[string]bool{}
	for _, j := range q.Jobs {
		if j.State != Running {
			continue
		}
		running[j.ID] = true
		s, ok := o.seen[j.ID]
		if !ok || s.heartbeat != j.Heartbeat || s.owner != j.Owner {
			o.seen[j.ID] = sighting{heartbeat: j.Heartbeat, owner: j.Owner, since: now}
		}
	}
	for id := range o.seen {
		if !running[id] {
			delete(o.seen, id)
		}
	}
}

// Silent is how long this observer has seen j with its current counter and owner (0 when
// it has not seen exactly that).
func (o *Observer) Silent(j Job) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.seen[j.ID]
	if !ok || s.heartbeat != j.Heartbeat || s.owner != j.Owner {
		return 0
	}
	return o.now().Sub(s.since)
}

// Expired reports whether j is running and this observer saw its counter and owner
// unchanged for at least lease.
func (o *Observer) Expired(j Job, lease time.Duration) bool {
	return j.State == Running && lease > 0 && o.Silent(j) >= lease
}
