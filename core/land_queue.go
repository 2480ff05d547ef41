package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/copse-dev/copse/internal/textsafe"
)

// The land queue lives in files under <common>/copse/land/, so every copse process of the
// repository sees the same queue without a daemon (reference/land.md, "A FIFO across
// processes"):
//
//	ticket          the last ticket handed out (a decimal number; write + rename)
//	land-N.json     job N's record (write + rename, so a reader never sees half of one)
//	land-N.lock     job N's liveness lock: flocked by the process running (or waiting to
//	                run) the job for the job's whole life; the kernel drops it when that
//	                process dies, which is how the others learn the job was abandoned
//	land-N.log      the test gate's output
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
}

const landRecordVersion = 1

func landDir(commonDir string) string { return filepath.Join(commonDir, "copse", "land") }

func jobName(ticket int64) string { return "land-" + strconv.FormatInt(ticket, 10) }

// ParseJobID accepts "land-N" or "N" and returns the ticket.
func ParseJobID(raw string) (int64, error) {
	if err := checkText("job", raw, 32); err != nil {
		return 0, err
	}
	digits := strings.TrimPrefix(raw, "land-")
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != digits {
		return 0, usage(CodeBadJob, "job", "use a job id as `copse land queue` shows it, e.g. land-7",
			"job %s is not a land job id", quote(raw))
	}
	return n, nil
}

func nowStamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// nextTicket bumps the ticket counter. The caller holds the repository lock.
func nextTicket(dir string) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	var last int64
	b, err := os.ReadFile(filepath.Join(dir, "ticket"))
	switch {
	case err == nil:
		if last, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil || last < 0 {
			return 0, fmt.Errorf("the land ticket counter %s is corrupt (%q)", filepath.Join(dir, "ticket"), clipText(string(b)))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return 0, err
	}
	// Never hand out a ticket below an existing record, even if the counter was lost.
	jobs, err := readJobs(dir)
	if err != nil {
		return 0, err
	}
	for _, j := range jobs {
		last = max(last, j.Ticket)
	}
	next := last + 1
	if err := writeFileAtomic(filepath.Join(dir, "ticket"), []byte(strconv.FormatInt(next, 10)+"\n")); err != nil {
		return 0, err
	}
	return next, nil
}

func clipText(s string) string { return textsafe.Cut(Escape(s), 40) }

func writeJob(dir string, j *LandJob) error {
	j.V = landRecordVersion
	j.Updated = nowStamp()
	saved := j.Position
	j.Position = 0 // positions are computed when read, never stored
	b, err := json.MarshalIndent(j, "", "  ")
	j.Position = saved
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, j.Job+".json"), append(b, '\n'))
}

// readJobs reads every record, ordered by ticket, and fills Position for unfinished jobs.
func readJobs(dir string) ([]LandJob, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var jobs []LandJob
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "land-") || !strings.HasSuffix(name, ".json") {
			continue
		}
		j, err := readJob(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].Ticket < jobs[b].Ticket })
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
func (s *service) dropLandsBefore(ctx context.Context, cd string, now time.Time, dry bool) ([]string, error) {
	keep, err := s.keepFor(ctx, keepLandsKey)
	if err != nil {
		return nil, err
	}
	dir := landDir(cd)
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
			if err := os.Remove(filepath.Join(dir, j.Job+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return dropped, failed(CodeDropLandFailed, err, "look at the records in "+Escape(dir), "cannot drop the land record %s", j.Job)
			}
		}
		dropped = append(dropped, j.Job)
	}
	return dropped, nil
}

func readJob(path string) (LandJob, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return LandJob{}, err
	}
	var j LandJob
	if err := json.Unmarshal(b, &j); err != nil {
		return LandJob{}, fmt.Errorf("land record %s is corrupt: %w", path, err)
	}
	if j.Job != strings.TrimSuffix(filepath.Base(path), ".json") || j.Ticket <= 0 {
		return LandJob{}, fmt.Errorf("land record %s does not match its name", path)
	}
	return j, nil
}

// ---- liveness locks ----

// held keeps every liveness lock this process holds, by lock path, with the lockHolder
// that holds it: one process may run several land loops at once (an MCP server, the picker),
// and a job is run only by the loop that holds it. The *os.File must stay referenced: a
// collected file is closed by its finalizer, which drops the flock and would make a live
// job look abandoned.
var (
	heldMu sync.Mutex
	held   = map[string]heldLock{}
)

type heldLock struct {
	f     *os.File
	owner *lockHolder
}

// lockHolder is who in this process holds a liveness lock: one land loop, or readQueue's
// probe for abandoned jobs. Only its address matters; it has a field so that two holders
// never share one (distinct zero-size values may have equal addresses).
type lockHolder struct{ _ byte }

func lockPath(dir, job string) string { return filepath.Join(dir, job+".lock") }

// takeLiveness tries to flock the job's liveness file without waiting. ok is false when
// another open file (another process, or another land loop in this one) holds it.
func takeLiveness(dir, job string, owner *lockHolder) (ok bool, err error) {
	p := lockPath(dir, job)
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

// holds reports whether owner holds the job's liveness lock.
func holds(dir, job string, owner *lockHolder) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	h, ok := held[lockPath(dir, job)]
	return ok && h.owner == owner
}

// dropLiveness releases the job's liveness lock (after its final record is written).
func dropLiveness(dir, job string) {
	p := lockPath(dir, job)
	heldMu.Lock()
	h, ok := held[p]
	delete(held, p)
	heldMu.Unlock()
	if ok {
		_ = syscall.Flock(int(h.f.Fd()), syscall.LOCK_UN)
		h.f.Close()
	}
}
