package core

import (
	"context"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/gitx"
)

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

// LandPhase is the step a job is in (or was in when it ended).
type LandPhase string

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

func NowStamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// writeJob stamps j (record version, time of the write) and stores it.
func WriteJob(dir string, j *LandJob) error {
	j.V = landRecordVersion
	j.Updated = NowStamp()
	saved := j.Position
	j.Position = 0 // positions are computed when read, never stored
	err := landjobs.Write(dir, j.Job, j)
	j.Position = saved
	return err
}

// readJobs reads every record, ordered by ticket, and fills Position for unfinished jobs.
func ReadJobs(dir string) ([]LandJob, error) {
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
	jobs, err := ReadJobs(dir)
	if err != nil {
		return nil, Failed(CodeDropLandFailed, err, "look at the records in "+Escape(dir), "cannot read the land records")
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
				return dropped, Failed(CodeDropLandFailed, err, "look at the records in "+Escape(dir), "cannot drop the land record %s", j.Job)
			}
		}
		dropped = append(dropped, j.Job)
	}
	return dropped, nil
}

type typedByPersonKey struct{}

// WithTypedByPerson marks requests whose free-form commands a person typed (the CLI's
// flags, the picker's forms): a land's --test then runs without the approval that a test
// command arriving in an agent's request (copse tool, MCP, pi) needs. Without the mark,
// core assumes the command came from an agent.
func WithTypedByPerson(ctx context.Context) context.Context {
	return context.WithValue(ctx, typedByPersonKey{}, true)
}

func TypedByPerson(ctx context.Context) bool {
	v, _ := ctx.Value(typedByPersonKey{}).(bool)
	return v
}

// rebasingBranch is the branch a rebase in progress in t will return to ("" for none):
// git lists a worktree in the middle of a rebase as detached.
func RebasingBranch(t gitx.Worktree) string {
	if !t.Detached || t.Prunable != nil {
		return ""
	}
	gd, err := gitx.WorktreeGitDir(t.Path)
	if err != nil {
		return ""
	}
	rb, err := gitx.ReadRebase(gd)
	if err != nil || rb == nil {
		return ""
	}
	b, _ := strings.CutPrefix(rb.HeadName, "refs/heads/")
	if b == rb.HeadName {
		return ""
	}
	return b
}

// Finished reports a state the job never leaves.
func (s LandState) Finished() bool { return s != LandQueued && s != LandRunning }

const (
	PhaseQueued    LandPhase = "queued"
	PhasePreflight LandPhase = "preflight"
	PhaseRebase    LandPhase = "rebase"
	PhaseTest      LandPhase = "test"
	PhaseAdvance   LandPhase = "advance"
	PhaseCleanup   LandPhase = "cleanup"
	PhaseDone      LandPhase = "done"
)

// LandStopped is what a stopped rebase held when the land left it open: HEAD, and for each
// path git status lists, its entry (and what the file holds where it differs from the index).
type LandStopped struct {
	Head  string            `json:"head"`
	Paths map[string]string `json:"paths"`
}

// LandGate is what a land's record keeps of its test gate's processes: the process group
// the gate ran in, and the marker every process it started carries in its environment
// (COPSE_LAND_GATE). With them a later copse can tell whether the gate still runs, also
// after the copse that ran it died, and name what runs.
type LandGate struct {
	PGID   int    `json:"pgid,omitempty"`
	Marker string `json:"marker"`
}
