package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/landjobs"
)

// LandJobs reads every job record of the repository, oldest first (Position set on the
// unfinished ones).
func (s *Service) LandJobs(ctx context.Context) ([]LandJob, error) {
	commonDir, err := s.impl.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	return s.impl.ReadQueue(ctx, landjobs.Dir(commonDir), false)
}

// LandDefaults is what a land form for the worktree at path starts from: the default
// target (the branch the worktree was created from, else the main checkout's branch, ""
// when it has none) and the test command from git config copse.test.
func (s *Service) LandDefaults(ctx context.Context, path string) (into, test string, err error) {
	snap, err := s.impl.Read(ctx)
	if err != nil {
		return "", "", err
	}
	if commonDir, err := s.impl.CommonDir(ctx); err == nil {
		into = RecordedInto(commonDir, IdOf(WorktreeIDs(commonDir), path))
	}
	if into == "" && len(snap.Trees) > 0 && !snap.Trees[0].Bare {
		into = snap.Trees[0].Branch
	}
	v, ok, err := s.impl.Git.ConfigValue(ctx, s.impl.Root(), "copse.test")
	if err != nil {
		return into, "", GitFailure(CodeConfigFailed, err, "cannot read git config copse.test")
	}
	if ok {
		test = strings.TrimSpace(v)
	}
	return into, test, nil
}

// Where a land's test gate comes from, in the order a land looks: the request's own
// (--test), git config copse.test, the committed .copse.conf's copse.test (approved).
const (
	GateFromRequest   = "--test"
	GateFromGitConfig = "git config copse.test"
	GateFromProject   = ProjectConfigFile + " copse.test"
)

// DefaultGate is the test gate a land that names no test of its own runs, and where it
// comes from: what the front ends show before a land (the picker's form, the help).
type DefaultGate struct {
	Command  string // "" when no gate runs
	From     string // GateFromGitConfig or GateFromProject; "" with no Command
	Approved bool   // a person approved the .copse.conf command on this machine (git config's needs none)
}

// DefaultLandGate reads the gate a land without --test would run, by landSettings' order.
// An unapproved .copse.conf test is returned with Approved false: the land refuses it.
func (s *Service) DefaultLandGate(ctx context.Context) (DefaultGate, error) {
	si := s.impl
	v, ok, err := si.Git.ConfigValue(ctx, si.Root(), "copse.test")
	if err != nil {
		return DefaultGate{}, GitFailure(CodeConfigFailed, err, "cannot read git config copse.test")
	}
	if v = strings.TrimSpace(v); ok && v != "" {
		return DefaultGate{Command: v, From: GateFromGitConfig, Approved: true}, nil
	}
	pt, err := si.ProjectTest(ctx)
	if err != nil || pt == "" {
		return DefaultGate{}, err
	}
	missing, err := si.Unapproved([]string{pt})
	if err != nil {
		return DefaultGate{}, err
	}
	return DefaultGate{Command: pt, From: GateFromProject, Approved: len(missing) == 0}, nil
}

// LandLogText is a land job's test log as its gate wrote it.
type LandLogText struct {
	Job  string
	Path string // the log read: the one beside the job's record, whatever path the record names
	Data []byte // its last maxLandLog bytes when it is larger
	Cut  bool   // the log holds more before Data
}

// LandLog reads the test gate's log of job (land-N).
func (s *Service) LandLog(ctx context.Context, job string) (*LandLogText, error) {
	ticket, err := ParseJobID(job)
	if err != nil {
		return nil, err
	}
	out, err := s.impl.LandStatus(ctx, LandStatusSpec{Ticket: ticket})
	if err != nil {
		return nil, err
	}
	commonDir, err := s.impl.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	j := out.Land
	l := &LandLogText{Job: j.Job, Path: landjobs.LogPath(landjobs.Dir(commonDir), landjobs.Name(ticket))}
	l.Data, l.Cut, err = ReadEnd(l.Path, maxLandLog)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, Refused(CodeLandNoLog, "a job has a log once its test gate ran; `copse land status "+j.Job+"` shows where it stopped",
			"%s has no test log (phase %s, state %s)", j.Job, j.Phase, j.State)
	case err != nil:
		return nil, Failed(CodeLandQueueUnreadable, err, "check the permissions of "+QuoteDisplay(l.Path), "cannot read the test log of %s", j.Job)
	}
	return l, nil
}

// readQueue reads every record, first marking abandoned the unfinished jobs whose owner
// died (their liveness lock is free), so what is shown is what is true. locked: the caller
// holds the repository lock already.
func (s *Env) ReadQueue(ctx context.Context, dir string, locked bool) ([]LandJob, error) {
	jobs, err := ReadJobs(dir)
	if err != nil {
		return nil, Failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	swept := false
	probe := &LivenessOwner{}
	for _, j := range jobs {
		if j.State.Finished() || !j.Owned {
			continue
		}
		if ok, err := TakeLiveness(dir, j.Job, probe); err == nil && ok {
			s.Abandon(ctx, dir, j.Job, locked)
			swept = true
		}
	}
	if !swept {
		return jobs, nil
	}
	if jobs, err = ReadJobs(dir); err != nil {
		return nil, Failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	return jobs, nil
}

func (s *Env) LandStatus(ctx context.Context, c LandStatusSpec) (*Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	jobs, err := s.ReadQueue(ctx, landjobs.Dir(commonDir), false)
	if err != nil {
		return nil, err
	}
	if c.Ticket == 0 {
		if jobs == nil {
			jobs = []LandJob{}
		}
		return &Outcome{Operation: OpLandStatus, LandJobs: jobs}, nil
	}
	for i := range jobs {
		if jobs[i].Ticket == c.Ticket {
			return &Outcome{Operation: OpLandStatus, Land: &jobs[i]}, nil
		}
	}
	return nil, Refused(CodeNoSuchJob, "`copse land status` lists the jobs", "there is no land job %s", landjobs.Name(c.Ticket))
}

// abandon marks a job whose owner died (its liveness lock was free). The caller holds
// that lock now. The record is read again first: an owner that finished wrote its final
// state before it let go of the lock.
func (s *Env) Abandon(ctx context.Context, dir, job string, locked bool) {
	defer DropLiveness(dir, job)
	j, err := landjobs.Read[LandJob](dir, job)
	if err != nil || j.State.Finished() {
		return
	}
	if !locked {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
		defer cancel()
		unlock, err := s.Lock(lctx)
		if err != nil {
			return
		}
		defer unlock()
	}
	j.State, j.Interrupted, j.Finished, j.Code = LandAbandoned, j.Phase, NowStamp(), CodeAbandoned
	j.Message = fmt.Sprintf("the process running it (pid %d) ended during %s", j.PID, j.Phase)
	j.Remaining = abandonedState(j)
	j.Hint = "check " + QuoteDisplay(j.Worktree.Path) + " and branch " + Escape(j.Into) + " by hand, then land again; copse never resumes an abandoned job"
	if WriteJob(dir, &j) == nil {
		s.EmitLand(filepath.Dir(filepath.Dir(dir)), EventLandAbandoned, &j, string(j.Interrupted))
	}
}

type LandStatusSpec struct{ Ticket int64 }

// maxLandLog bounds what LandLog reads: a gate that printed more shows its last part.
const maxLandLog = 8 << 20

// readEnd reads at most limit bytes from the end of the file at path; cut reports that
// the file holds more before them.
func ReadEnd(path string, limit int64) (data []byte, cut bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	off := int64(0)
	if fi.Size() > limit {
		off, cut = fi.Size()-limit, true
	}
	data, err = io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	return data, cut, err
}

// emit appends a lifecycle event for job j; a failure becomes a warning (the land itself
// stands). The caller holds the repository lock.
func (s *Env) EmitLand(commonDir, event string, j *LandJob, reason string) []string {
	ev := Event{Event: event, Repo: s.Root(), Job: j.Job, Into: j.Into, Session: j.Session, Reason: reason,
		Worktree: &EventWorktree{ID: j.Worktree.ID, Path: j.Worktree.Path, Branch: j.Worktree.Branch}}
	if event == EventLandLanded {
		ev.Commit, ev.BranchDeleted = j.Commit, j.BranchGone
	}
	if _, err := eventlog.Append(commonDir, ev); err != nil {
		return []string{"could not record the " + event + " event: " + Escape(err.Error())}
	}
	return nil
}

func abandonedState(j LandJob) string {
	switch j.Phase {
	case PhaseQueued, PhasePreflight:
		return "nothing had changed yet"
	case PhaseRebase:
		return "a rebase may be open in the worktree (git status there tells); " + Escape(j.Into) + " was not moved"
	case PhaseTest:
		// The gate's group ends with the copse that ran it; say so only when it did.
		if left := GateLeft(j.Gate); left != "" {
			return "the branch was rebased; the test gate still runs: " + left + "; " + Escape(j.Into) + " was not moved"
		}
		return "the branch was rebased; the test gate was stopped; " + Escape(j.Into) + " was not moved"
	case PhaseAdvance:
		return Escape(j.Into) + " may or may not have been advanced to " + Short(j.Commit) + "; check it"
	}
	return "the land may be partly cleaned up (worktree, branch)"
}

// gateLeft describes the processes of gate g that still run ("" when none). Right after
// the group was killed the kernel may still be ending them, so it looks again for a
// moment before it says any are left.
func GateLeft(g *LandGate) string {
	if g == nil {
		return ""
	}
	procs := GateProcesses(g)
	for i := 0; i < 40 && len(procs) > 0; i++ {
		time.Sleep(25 * time.Millisecond)
		procs = GateProcesses(g)
	}
	return DescribeGateProcs(procs)
}

func DescribeGateProcs(procs []GateProc) string {
	const show = 5
	var parts []string
	for i, p := range procs {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(procs)-show))
			break
		}
		if p.Cmd == "" {
			parts = append(parts, fmt.Sprintf("pid %d", p.PID))
		} else {
			parts = append(parts, fmt.Sprintf("pid %d (%s)", p.PID, p.Cmd))
		}
	}
	return strings.Join(parts, ", ")
}

// gateProc is one live process of a gate.
type GateProc struct {
	PID int
	Cmd string // its command line, escaped and cut
}

// gateMarkerEnv is the environment variable that marks a gate's processes.
const GateMarkerEnv = "COPSE_LAND_GATE"
