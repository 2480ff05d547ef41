package core

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/copse-dev/copse/core/landjobs"
)

// The land queue's files under <common>/copse/land/ are core/landjobs' (a ticket queue:
// neither a blocking nor a polling flock serves its waiters in order; docs/land.md, "The
// queue"); here are the records' contents and the liveness locks. A job's liveness lock
// (land-N.lock) is flocked by the process running (or waiting to run) the job for the job's
// whole life; the kernel drops it when that process dies, which is how the others learn the
// job was abandoned.
//
// Tickets are handed out under the repository lock. The head of the queue is the lowest
// unfinished ticket; only the head runs. A job's record is written only by the holder of
// its liveness lock, and its final state is written before that lock is released.

// LandState is where a job is in its life.
type LandState string

const (
	LandQueued    LandState = "queued"    // waiting for its turn
	LandRunning   LandState = "running"   // at the head, in a phase
	LandLanded    LandState = "landed"    // the target points at the landed commit
	LandBlocked   LandState = "blocked"   // stopped by a check; Code says which, Hint what to do
	LandAbandoned LandState = "abandoned" // its process died; the outcome is uncertain, never resumed
	LandCancelled LandState = "cancelled" // interrupted; Interrupted and Remaining say where and what is left
	LandFailed    LandState = "failed"    // git or the system failed; the target is unchanged
	LandUncertain LandState = "uncertain" // a step ran but its result could not be confirmed
)

// Finished reports a state the job never leaves.
func (s LandState) Finished() bool { return s != LandQueued && s != LandRunning }

// LandPhase is the step a job is in (or was in when it ended).
type LandPhase string

const (
	PhaseQueued    LandPhase = "queued"
	PhasePreflight LandPhase = "preflight"
	PhaseRebase    LandPhase = "rebase"
	PhaseTest      LandPhase = "test"
	PhaseAdvance   LandPhase = "advance"
	PhaseCleanup   LandPhase = "cleanup"
	PhaseDone      LandPhase = "done"
)

// LandWorktree names the worktree a job lands.
type LandWorktree struct {
	ID     string `json:"id,omitempty"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
}

// LandRebase is the rebase a job started: what git writes in rebase-merge/head-name,
// orig-head and onto. --force-restart aborts an open rebase only when all three match a
// record of this worktree, which proves copse started it.
type LandRebase struct {
	HeadName string `json:"head_name"`
	OrigHead string `json:"orig_head"`
	Onto     string `json:"onto"`
	// Stopped is what the rebase held when the land left it open on conflicts (nil while
	// it runs, or when it could not be read): --force-restart aborts only that.
	Stopped *LandStopped `json:"stopped,omitempty"`
}

// LandJob is one job's record (land-N.json), and what `land status --json` prints.
type LandJob struct {
	V            int          `json:"v"`
	Job          string       `json:"job"`
	Ticket       int64        `json:"ticket"`
	State        LandState    `json:"state"`
	Phase        LandPhase    `json:"phase"`
	Position     int          `json:"position,omitempty"` // computed when read: 1 = at the head
	Worktree     LandWorktree `json:"worktree"`
	Into         string       `json:"into"`
	Test         string       `json:"test,omitempty"`
	TestFrom     string       `json:"test_from,omitempty"` // where Test came from: --test (or the request's test), git config copse.test, .copse.conf copse.test
	TestTimeout  string       `json:"test_timeout,omitempty"`
	Retries      int          `json:"retries"`
	Keep         bool         `json:"keep,omitempty"`
	ForceRestart bool         `json:"force_restart,omitempty"`
	Owned        bool         `json:"owned"` // queued by a waiting process, or adopted by a runner
	PID          int          `json:"pid,omitempty"`
	Session      string       `json:"session,omitempty"`
	TakeOver     *Claim       `json:"claim_taken_over,omitempty"` // another session's claim a person approved taking over (force_claim)
	Created      string       `json:"created"`
	Started      string       `json:"started,omitempty"`
	Updated      string       `json:"updated"`
	Finished     string       `json:"finished,omitempty"`
	Attempts     int          `json:"attempts,omitempty"` // rebases run (1 + re-rebases after the target moved)
	Onto         string       `json:"onto,omitempty"`     // target commit of the last rebase
	Commit       string       `json:"commit,omitempty"`   // the rebased (tested, landed) commit
	Previous     string       `json:"previous,omitempty"` // the target's commit before the advance
	Rebase       *LandRebase  `json:"rebase,omitempty"`   // the rebase this job started
	Code         string       `json:"code,omitempty"`     // why it is blocked/failed/uncertain
	Message      string       `json:"message,omitempty"`
	Hint         string       `json:"hint,omitempty"`
	Conflicts    []string     `json:"conflicts,omitempty"`
	Interrupted  LandPhase    `json:"interrupted,omitempty"` // cancelled or abandoned in this phase
	Remaining    string       `json:"remaining,omitempty"`   // the state it left
	Log          string       `json:"log,omitempty"`
	LogTail      []string     `json:"log_tail,omitempty"` // a failed gate: the log's last lines, escaped (SafeLogLine)
	Gate         *LandGate    `json:"gate,omitempty"`     // the test gate's process group and marker, once it started
	Removed      bool         `json:"worktree_removed,omitempty"`
	BranchGone   bool         `json:"branch_deleted,omitempty"`
	Released     bool         `json:"claim_released,omitempty"`
	Warnings     []string     `json:"warnings,omitempty"`
	Notices      []string     `json:"notices,omitempty"` // after a land: upstreams that now differ, and the command that would publish

	// Orig is the branch's commit before the job's first rebase (Rebase names only the
	// last one's): once Commit is on the target, the commits under Orig that the worktree's
	// HEAD reflog still names are replaced by landed copies, not lost work.
	Orig string `json:"orig,omitempty"`
}

const landRecordVersion = 1

// ParseJobID accepts "land-N" or "N" and returns the ticket.
func ParseJobID(raw string) (int64, error) {
	if err := CheckText("job", raw, 32); err != nil {
		return 0, err
	}
	n, ok := landjobs.ParseName(raw)
	if !ok {
		return 0, Usage(CodeBadJob, "job", "use a job id as `copse land queue` shows it, e.g. land-7",
			"job %s is not a land job id", Quote(raw))
	}
	return n, nil
}

func nowStamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// writeJob stamps j (record version, time of the write) and stores it.
func writeJob(dir string, j *LandJob) error {
	j.V = landRecordVersion
	j.Updated = nowStamp()
	saved := j.Position
	j.Position = 0 // positions are computed when read, never stored
	err := landjobs.Write(dir, j.Job, j)
	j.Position = saved
	return err
}

// readJobs reads every record, ordered by ticket, and fills Position for unfinished jobs.
func readJobs(dir string) ([]LandJob, error) {
	jobs, err := landjobs.ReadAll[LandJob](dir)
	if err != nil {
		return nil, err
	}
	pos := 0
	for i := range jobs {
		if !jobs[i].State.Finished() {
			pos++
			jobs[i].Position = pos
		}
	}
	return jobs, nil
}

// dropLandsBefore deletes the records of land jobs that ended longer than copse.keepLands
// ago at now (default 14 days), and returns their ids; with dry it only names them. Only
// landed and failed jobs go: their outcome is plain (the target has the commit, or is
// unchanged). Blocked, cancelled, abandoned and uncertain jobs stay until a person has
// looked (they may have left a rebase open or a state to check), and so do unfinished
// ones. Prune calls it under the repository lock; the ticket counter is kept, so a job id
// is never handed out twice.
func (s *Env) DropLandsBefore(ctx context.Context, commonDir string, now time.Time, dry bool) ([]string, error) {
	keep, err := s.KeepFor(ctx, KeepLandsKey)
	if err != nil {
		return nil, err
	}
	dir := landjobs.Dir(commonDir)
	jobs, err := readJobs(dir)
	if err != nil {
		return nil, failed(CodeDropLandFailed, err, "look at the records in "+Escape(dir), "cannot read the land records")
	}
	var dropped []string
	for _, j := range jobs {
		if j.State != LandLanded && j.State != LandFailed {
			continue
		}
		ended, err := time.Parse(time.RFC3339Nano, j.Finished)
		if err != nil || now.Sub(ended) <= keep {
			continue
		}
		if !dry {
			if err := landjobs.Remove(dir, j.Job); err != nil {
				return dropped, failed(CodeDropLandFailed, err, "look at the records in "+Escape(dir), "cannot drop the land record %s", j.Job)
			}
		}
		dropped = append(dropped, j.Job)
	}
	return dropped, nil
}

// ---- liveness locks ----

// held keeps every liveness lock this process holds, by lock path, with the livenessOwner
// that holds it: one process may run several land loops at once (an MCP server, the
// picker), and a job is run only by the loop that holds it. The *os.File must stay
// referenced: a collected file is closed by its finalizer, which drops the flock and would
// make a live job look abandoned.
var (
	heldMu sync.Mutex
	held   = map[string]heldLock{}
)

type heldLock struct {
	f     *os.File
	owner *livenessOwner
}

// livenessOwner is who in this process holds a liveness lock: one land loop, or readQueue's
// probe for abandoned jobs. Only its address matters; it has a field so that two holders
// never share one (distinct zero-size values may have equal addresses).
type livenessOwner struct{ _ byte }

// takeLiveness tries to flock the job's liveness file without waiting. ok is false when
// another open file (another process, or another land loop in this one) holds it.
func takeLiveness(dir, job string, owner *livenessOwner) (ok bool, err error) {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	defer heldMu.Unlock()
	if _, mine := held[p]; mine {
		return false, nil
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, err
	}
	held[p] = heldLock{f: f, owner: owner}
	return true, nil
}

// ownerGone reports, without taking it, whether nobody holds the job's liveness lock (a
// missing lock file: nobody ever did); only a dry run asks, for its answer alone.
func ownerGone(dir, job string) bool {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	_, mine := held[p]
	heldMu.Unlock()
	if mine {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	// A shared probe, dropped at once: it conflicts only with the owner's exclusive lock.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return false
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// holds reports whether owner holds the job's liveness lock.
func holds(dir, job string, owner *livenessOwner) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	h, ok := held[landjobs.LockPath(dir, job)]
	return ok && h.owner == owner
}

// dropLiveness releases the job's liveness lock (after its final record is written).
func dropLiveness(dir, job string) {
	p := landjobs.LockPath(dir, job)
	heldMu.Lock()
	h, ok := held[p]
	delete(held, p)
	heldMu.Unlock()
	if ok {
		_ = syscall.Flock(int(h.f.Fd()), syscall.LOCK_UN)
		h.f.Close()
	}
}
