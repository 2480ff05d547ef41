package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/core/usercmd"
	"github.com/copse-dev/copse/gitx"
)

// LandProgress is what a land reports while it waits and runs: its own record (with
// Position while queued) and, while it waits, the job at the head of the queue.
type LandProgress struct {
	Job  LandJob
	Head *LandJob
}

// landPoll is how often a waiting land looks at the queue again.
const landPoll = 50 * time.Millisecond

// landGitTimeout bounds one rebase or worktree removal (large trees take a while).
const landGitTimeout = 10 * time.Minute

// LandJobs reads every job record of the repository, oldest first (Position set on the
// unfinished ones).
func (s *Service) LandJobs(ctx context.Context) ([]LandJob, error) {
	commonDir, err := s.impl.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	return s.impl.readQueue(ctx, landjobs.Dir(commonDir), false)
}

// readQueue reads every record, first marking abandoned the unfinished jobs whose owner
// died (their liveness lock is free), so what is shown is what is true. locked: the caller
// holds the repository lock already.
func (s *Env) readQueue(ctx context.Context, dir string, locked bool) ([]LandJob, error) {
	jobs, err := readJobs(dir)
	if err != nil {
		return nil, failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	swept := false
	probe := &livenessOwner{}
	for _, j := range jobs {
		if j.State.Finished() || !j.Owned {
			continue
		}
		if ok, err := takeLiveness(dir, j.Job, probe); err == nil && ok {
			s.abandon(ctx, dir, j.Job, locked)
			swept = true
		}
	}
	if !swept {
		return jobs, nil
	}
	if jobs, err = readJobs(dir); err != nil {
		return nil, failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	return jobs, nil
}

// LandError turns a finished job into the error its state means (nil when landed).
func LandError(j *LandJob) error {
	if j == nil || j.State == LandLanded {
		return nil
	}
	e := &Error{Code: j.Code, Hint: j.Hint}
	switch j.State {
	case LandBlocked:
		e.Kind = KindRefused
		e.Message = fmt.Sprintf("%s blocked (%s): %s", j.Job, j.Code, j.Message)
	case LandCancelled:
		e.Kind, e.Code = KindCancelled, CodeCancelled
		e.Message = fmt.Sprintf("%s cancelled during %s: %s", j.Job, j.Interrupted, j.Remaining)
	case LandUncertain, LandAbandoned:
		e.Kind = KindUncertain
		e.Message = fmt.Sprintf("%s %s: %s", j.Job, j.State, j.Message)
	case LandQueued, LandRunning:
		return nil
	default:
		e.Kind = KindFailed
		e.Message = fmt.Sprintf("%s failed: %s", j.Job, j.Message)
	}
	if e.Code == "" {
		e.Code = string(j.State)
	}
	if len(j.LogTail) > 0 {
		e.Log, e.LogTail = j.Log, j.LogTail
	}
	return e
}

func (s *Env) landStatus(ctx context.Context, c landStatusCmd) (*Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	jobs, err := s.readQueue(ctx, landjobs.Dir(commonDir), false)
	if err != nil {
		return nil, err
	}
	if c.ticket == 0 {
		if jobs == nil {
			jobs = []LandJob{}
		}
		return &Outcome{Operation: OpLandStatus, LandJobs: jobs}, nil
	}
	for i := range jobs {
		if jobs[i].Ticket == c.ticket {
			return &Outcome{Operation: OpLandStatus, Land: &jobs[i]}, nil
		}
	}
	return nil, Refused(CodeNoSuchJob, "`copse land status` lists the jobs", "there is no land job %s", landjobs.Name(c.ticket))
}

// enqueueLand writes the job record: the engine holds the repository lock and has checked,
// on a worktree list read under it, that the land is still the one asked for.
func (s *Env) enqueueLand(ctx context.Context, c *landCmd) (*Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	dir := landjobs.Dir(commonDir)
	ticket, err := landjobs.NextTicket(dir)
	if err != nil {
		return nil, failed(CodeLandQueueFailed, err, "check that the git directory is writable", "cannot queue the land")
	}
	now := nowStamp()
	j := &LandJob{
		Job: landjobs.Name(ticket), Ticket: ticket, State: LandQueued, Phase: PhaseQueued,
		Worktree: LandWorktree{ID: c.id, Path: c.target.Path, Branch: c.target.Branch},
		Into:     c.into.s, Test: c.test, TestFrom: c.testFrom, Retries: c.retries, Keep: c.keep, ForceRestart: c.forceRestart,
		Created: now, Log: landjobs.LogPath(dir, landjobs.Name(ticket)),
	}
	if c.test != "" {
		j.TestTimeout = c.timeout.String()
	}
	j.Session = c.session // who asked for the land, when known (events carry it)
	j.TakeOver = c.takeOver
	c.owner = &livenessOwner{}
	if c.wait {
		// The liveness lock is taken before the record exists, so a record that says
		// owned always has a lock that a live owner holds.
		ok, lerr := takeLiveness(dir, j.Job, c.owner)
		if lerr != nil || !ok {
			return nil, failed(CodeLandQueueFailed, lerr, "", "cannot take the liveness lock of %s", j.Job)
		}
		j.Owned, j.PID = true, os.Getpid()
	}
	if err := writeJob(dir, j); err != nil {
		dropLiveness(dir, j.Job)
		return nil, failed(CodeLandQueueFailed, err, "check that the git directory is writable", "cannot write the land record")
	}
	warnings := s.emitLand(commonDir, EventLandQueued, j, "")
	return &Outcome{Operation: OpLand, Land: j, Warnings: warnings}, nil
}

// awaitLand runs after the lock is released: without wait it says where the job stands
// in the queue; with wait it runs the queue until the job ends, reporting progress.
func (s *Env) awaitLand(ctx context.Context, c *landCmd, out *Outcome) (*Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	dir := landjobs.Dir(commonDir)
	j := out.Land
	if !c.wait {
		if jobs, err := readJobs(dir); err == nil {
			for _, q := range jobs {
				if q.Job == j.Job {
					j.Position = q.Position
				}
			}
		}
		return out, nil
	}
	final, err := s.landLoop(ctx, dir, j.Job, c.owner, landProgressOf(ctx), nil)
	if err != nil {
		return nil, err
	}
	out = &Outcome{Operation: OpLand, Land: final, Warnings: append(out.Warnings, final.Warnings...)}
	if e := LandError(final); e != nil {
		return out, e
	}
	return out, nil
}

// drainLand runs every queued job nobody is waiting for, in queue order, waiting behind
// jobs that other live processes run.
func (s *Env) drainLand(ctx context.Context) (*Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	ran := []LandJob{}
	_, err = s.landLoop(ctx, landjobs.Dir(commonDir), "", &livenessOwner{}, landProgressOf(ctx), func(j LandJob) { ran = append(ran, j) })
	if err != nil {
		return nil, err
	}
	return &Outcome{Operation: OpLandDrain, LandJobs: ran}, nil
}

type landProgressKey struct{}

// WithLandProgress returns ctx carrying fn: a land executed with it reports each phase
// change of its job (and a drain, of every job it runs) to fn, on the running goroutine.
func WithLandProgress(ctx context.Context, fn func(LandProgress)) context.Context {
	return context.WithValue(ctx, landProgressKey{}, fn)
}

func landProgressOf(ctx context.Context) func(LandProgress) {
	fn, _ := ctx.Value(landProgressKey{}).(func(LandProgress))
	return fn
}

// emit appends a lifecycle event for job j; a failure becomes a warning (the land itself
// stands). The caller holds the repository lock.
func (s *Env) emitLand(commonDir, event string, j *LandJob, reason string) []string {
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

// landLoop runs the queue from this process. With mine set it returns when that job has
// ended; with mine empty (drain) it returns when no queued job is left that nobody owns.
// Only the head of the queue (lowest unfinished ticket) ever runs.
func (s *Env) landLoop(ctx context.Context, dir, mine string, owner *livenessOwner, progress func(LandProgress), ran func(LandJob)) (*LandJob, error) {
	lastPos, lastHead := -1, ""
	watch := &stoppedWatch{s: s, ctx: ctx}
	for {
		jobs, err := readJobs(dir)
		if err != nil {
			return nil, failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
		}
		me, head, unowned := queueView(jobs, mine)
		if mine != "" && me == nil {
			dropLiveness(dir, mine)
			return nil, failed(CodeLandRecordMissing, nil, "`copse land status` lists the jobs", "the record of %s disappeared", mine)
		}
		if me != nil && me.State.Finished() {
			return me, nil
		}
		if head == nil {
			return nil, nil
		}
		if again, err := s.takeTurn(ctx, dir, mine, head, owner, progress, ran); err != nil {
			return nil, err
		} else if again {
			continue
		}
		if mine == "" && !unowned {
			return nil, nil
		}
		if err := watch.check(head); err != nil {
			if me != nil {
				cancelQueued(dir, me) // still queued: nothing of it ran
			}
			return nil, err
		}
		if me != nil && progress != nil && (me.Position != lastPos || head.Job+string(head.Phase) != lastHead) {
			lastPos, lastHead = me.Position, head.Job+string(head.Phase)
			h := *head
			progress(LandProgress{Job: *me, Head: &h})
		}
		select {
		case <-ctx.Done():
			if me == nil {
				return nil, &Error{Kind: KindCancelled, Code: CodeCancelled, Message: "drain cancelled while waiting; no job was running here"}
			}
			cancelQueued(dir, me)
			return me, nil
		case <-time.After(landPoll):
		}
	}
}

// takeTurn acts on the head of the queue for this process: runs it when this process
// holds it, abandons it when its owner died, adopts it when nobody owns it. again: the
// queue changed, read it again now (false: wait for it).
func (s *Env) takeTurn(ctx context.Context, dir, mine string, head *LandJob, owner *livenessOwner, progress func(LandProgress), ran func(LandJob)) (again bool, err error) {
	switch {
	case holds(dir, head.Job, owner):
		if head.Job != mine {
			head.Position = 0
		}
		done := s.runJob(ctx, dir, head, progress)
		if ran != nil && done != nil {
			ran(*done)
		}
		if mine == "" && ctx.Err() != nil {
			return false, &Error{Kind: KindCancelled, Code: CodeCancelled, Message: "drain cancelled"}
		}
		return true, nil
	case head.Owned:
		ok, err := takeLiveness(dir, head.Job, owner)
		if err != nil {
			return false, failed(CodeLandQueueFailed, err, "", "cannot check the liveness of %s", head.Job)
		}
		if ok {
			s.abandon(ctx, dir, head.Job, false)
		}
		return ok, nil
	}
	return s.adopt(dir, head.Job, owner), nil
}

// queueView finds, in the queue's jobs (by ticket), the job mine (nil when mine is not
// there), the head (the lowest unfinished ticket, the only one that may run; nil when all
// finished), and whether an unfinished job has no owner.
func queueView(jobs []LandJob, mine string) (me, head *LandJob, unowned bool) {
	for i := range jobs {
		j := &jobs[i]
		if j.Job == mine {
			me = j
		}
		if j.State.Finished() {
			continue
		}
		if head == nil {
			head = j
		}
		if !j.Owned {
			unowned = true
		}
	}
	return me, head, unowned
}

// cancelQueued ends a job cancelled while it still waited in the queue: nothing changed.
func cancelQueued(dir string, me *LandJob) {
	me.State, me.Interrupted, me.Finished = LandCancelled, PhaseQueued, nowStamp()
	me.Position = 0
	me.Remaining = "it was still queued; nothing changed"
	_ = writeJob(dir, me)
	dropLiveness(dir, me.Job)
}

// adopt takes over a queued job that nobody waits for (queued with --no-wait).
func (s *Env) adopt(dir, job string, me *livenessOwner) bool {
	ok, err := takeLiveness(dir, job, me)
	if err != nil || !ok {
		return false
	}
	j, err := landjobs.Read[LandJob](dir, job)
	if err != nil || j.State.Finished() || j.Owned {
		dropLiveness(dir, job)
		return false
	}
	j.Owned, j.PID = true, os.Getpid()
	if writeJob(dir, &j) != nil {
		dropLiveness(dir, job)
		return false
	}
	return true
}

// abandon marks a job whose owner died (its liveness lock was free). The caller holds
// that lock now. The record is read again first: an owner that finished wrote its final
// state before it let go of the lock.
func (s *Env) abandon(ctx context.Context, dir, job string, locked bool) {
	defer dropLiveness(dir, job)
	j, err := landjobs.Read[LandJob](dir, job)
	if err != nil || j.State.Finished() {
		return
	}
	if !locked {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
		defer cancel()
		unlock, err := s.lock(lctx)
		if err != nil {
			return
		}
		defer unlock()
	}
	j.State, j.Interrupted, j.Finished, j.Code = LandAbandoned, j.Phase, nowStamp(), CodeAbandoned
	j.Message = fmt.Sprintf("the process running it (pid %d) ended during %s", j.PID, j.Phase)
	j.Remaining = abandonedState(j)
	j.Hint = "check " + QuoteDisplay(j.Worktree.Path) + " and branch " + Escape(j.Into) + " by hand, then land again; copse never resumes an abandoned job"
	if writeJob(dir, &j) == nil {
		s.emitLand(filepath.Dir(filepath.Dir(dir)), EventLandAbandoned, &j, string(j.Interrupted))
	}
}

func abandonedState(j LandJob) string {
	switch j.Phase {
	case PhaseQueued, PhasePreflight:
		return "nothing had changed yet"
	case PhaseRebase:
		return "a rebase may be open in the worktree (git status there tells); " + Escape(j.Into) + " was not moved"
	case PhaseTest:
		// The gate's group ends with the copse that ran it; say so only when it did.
		if left := gateLeft(j.Gate); left != "" {
			return "the branch was rebased; the test gate still runs: " + left + "; " + Escape(j.Into) + " was not moved"
		}
		return "the branch was rebased; the test gate was stopped; " + Escape(j.Into) + " was not moved"
	case PhaseAdvance:
		return Escape(j.Into) + " may or may not have been advanced to " + Short(j.Commit) + "; check it"
	}
	return "the land may be partly cleaned up (worktree, branch)"
}

// landRun is one job being run by this process.
type landRun struct {
	s              *Env
	dir, commonDir string
	j              *LandJob
	progress       func(LandProgress)
	cmd            *landCmd
	locked         bool      // this run holds the repository lock (events need it)
	head           string    // the worktree's commit when the job reached the head of the queue
	snap           *Snapshot // the worktree list advance read (clean-up reuses it under the same lock)
}

func (r *landRun) save(phase LandPhase) {
	r.j.Phase = phase
	_ = writeJob(r.dir, r.j)
	if r.progress != nil {
		r.progress(LandProgress{Job: *r.j})
	}
}

// runJob runs the head job (this process holds its liveness lock) to its end, writes the
// final record and releases the lock.
func (s *Env) runJob(ctx context.Context, dir string, j *LandJob, progress func(LandProgress)) *LandJob {
	defer dropLiveness(dir, j.Job)
	r := &landRun{s: s, dir: dir, commonDir: filepath.Dir(filepath.Dir(dir)), j: j, progress: progress}
	j.State, j.Started, j.PID, j.Position = LandRunning, nowStamp(), os.Getpid(), 0
	r.run(ctx)
	if !j.State.Finished() { // defensive: a path that forgot to finish
		r.finish(LandFailed, CodeInternal, "the land ended without a result", "report this")
	}
	return j
}

// finish writes the final state and emits the event (taking the repository lock for it
// unless this run holds it).
func (r *landRun) finish(state LandState, code, msg, hint string) {
	j := r.j
	// The progress said "advance main to X": every advance that ends short of it says the
	// same one thing about the target (as a cancelled one does), whichever check stopped it.
	if j.Phase == PhaseAdvance && (state == LandBlocked || state == LandFailed) && j.Previous == "" && code != CodeTargetSyncFailed {
		msg += "; " + Escape(j.Into) + " is unchanged by this land"
	}
	j.State, j.Code, j.Message, j.Hint, j.Finished = state, code, msg, hint, nowStamp()
	if state == LandLanded {
		j.Phase = PhaseDone
	}
	_ = writeJob(r.dir, j)
	// Every job ends with one event. land.blocked stands for every end other than
	// landed: blocked, failed, cancelled and uncertain (reason says which).
	event := EventLandBlocked
	if state == LandLanded {
		event = EventLandLanded
	}
	if event != "" {
		ok := r.locked
		if !ok {
			lctx, cancel := context.WithTimeout(context.Background(), ReadBackTimeout)
			defer cancel()
			if u, err := r.s.lock(lctx); err == nil {
				ok = true
				defer u()
			}
		}
		if ok {
			j.Warnings = append(j.Warnings, r.s.emitLand(r.commonDir, event, j, code)...)
			_ = writeJob(r.dir, j)
		}
	}
	if r.progress != nil {
		r.progress(LandProgress{Job: *j})
	}
}

func (r *landRun) blocked(code, hint, format string, args ...any) {
	r.finish(LandBlocked, code, fmt.Sprintf(format, args...), hint)
}

// cancelled records where the job was interrupted and what state it left.
func (r *landRun) cancelled(phase LandPhase, remaining string) {
	r.j.Interrupted, r.j.Remaining = phase, remaining
	r.finish(LandCancelled, CodeCancelled, "interrupted during "+string(phase), "check the state it left: "+remaining)
}

// gitErr finishes the job as failed (or cancelled) from a git error in phase.
func (r *landRun) gitErr(phase LandPhase, err error, what string) {
	e := GitFailure(CodeLandGitFailed, err, what)
	if e.Kind == KindCancelled {
		r.cancelled(phase, r.remaining(phase))
		return
	}
	r.finish(LandFailed, e.Code, e.Message, e.Hint)
}

// remaining describes, after an interruption in phase, what state the job left.
func (r *landRun) remaining(phase LandPhase) string {
	j := r.j
	w := QuoteDisplay(j.Worktree.Path)
	switch phase {
	case PhaseQueued, PhasePreflight:
		return "nothing changed"
	case PhaseRebase:
		if gd, err := gitx.WorktreeGitDir(j.Worktree.Path); err == nil {
			if rb, _ := gitx.ReadRebase(gd); rb != nil {
				return "the rebase copse started is still open in " + w + "; land again with --force-restart to abort it, or finish it with git rebase --continue; " + Escape(j.Into) + " is unchanged"
			}
		}
		return "no rebase is open in " + w + "; branch " + Escape(j.Worktree.Branch) + " may already be rebased; " + Escape(j.Into) + " is unchanged"
	case PhaseTest:
		gate := "the test gate was stopped"
		if left := gateLeft(j.Gate); left != "" {
			gate = "the test gate's process group was killed, but processes that left it still run: " + left
		}
		return "branch " + Escape(j.Worktree.Branch) + " is rebased onto " + Short(j.Onto) + " (at " + Short(j.Commit) + "); " + gate + "; " + Escape(j.Into) + " is unchanged"
	case PhaseAdvance:
		return "branch " + Escape(j.Worktree.Branch) + " is rebased and tested at " + Short(j.Commit) + "; " + Escape(j.Into) + " is unchanged"
	}
	return "see `copse land status " + j.Job + "`"
}

func (r *landRun) run(ctx context.Context) {
	s, j := r.s, r.j
	r.save(PhasePreflight)
	unlock, err := s.lock(ctx)
	if err != nil {
		r.refusal(PhasePreflight, err) // cancelled, or lock_timeout: nothing changed
		return
	}
	r.locked = true
	c, ok := r.recheck(ctx)
	if ok {
		r.cmd = c
		if err := s.preflight(ctx, c, r.commonDir, true); err != nil {
			r.refusal(PhasePreflight, err)
			ok = false
		}
	}
	if ok && j.ForceRestart {
		// An aborted rebase moved the branch back: read where it is now.
		if r.head, err = s.Git.ResolveCommit(ctx, j.Worktree.Path, "HEAD"); err != nil {
			r.locked = false
			unlock()
			r.gitErr(PhasePreflight, err, "cannot read the worktree's commit")
			return
		}
	}
	r.locked = false
	unlock()
	if !ok {
		return
	}

	for attempt := 0; ; attempt++ {
		onto, err := s.Git.ResolveCommit(ctx, s.Root(), "refs/heads/"+j.Into)
		if err != nil {
			if RefusedByGit(err) {
				r.blocked(CodeTargetMissing, "create it, or land with another --into", "the target branch %s does not exist", Escape(j.Into))
				return
			}
			r.gitErr(PhaseRebase, err, "cannot read the target branch "+Escape(j.Into))
			return
		}
		if !r.rebase(ctx, onto) {
			return
		}
		if !r.gate(ctx) {
			return
		}
		r.save(PhaseAdvance)
		unlock, err := s.lock(ctx)
		if err != nil {
			r.refusal(PhaseAdvance, err) // cancelled, or lock_timeout: the target is unchanged
			return
		}
		r.locked = true
		// From here on nothing is interrupted half-way: the advance, its sync and its
		// rollback run to the end even after ^C.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), landGitTimeout)
		moved, done := r.advance(actx, onto)
		if moved && attempt < j.Retries {
			r.locked = false
			unlock()
			cancel()
			continue
		}
		switch {
		case moved:
			r.blocked(CodeTargetMoved, "land again when "+Escape(j.Into)+" is quieter, or raise git config copse.landRetries",
				"%s moved during the land %d times in a row; %s is rebased and tested but not landed", Escape(j.Into), attempt+1, Escape(j.Worktree.Branch))
		case done:
			up, hasUp := r.readUpstream(actx, j.Worktree.Branch)
			if !j.Keep {
				r.save(PhaseCleanup)
				r.cleanup(actx)
			}
			if hasUp {
				if n := r.branchNotice(actx, up, j.BranchGone); n != "" {
					j.Notices = append(j.Notices, n)
				}
			}
			if n := r.targetNotice(actx); n != "" {
				j.Notices = append(j.Notices, n)
			}
			r.finish(LandLanded, "", fmt.Sprintf("%s landed onto %s at %s", Escape(j.Worktree.Branch), Escape(j.Into), Short(j.Commit)), "")
		}
		r.locked = false
		unlock()
		cancel()
		return
	}
}

// refusal finishes the job from a check's *Error: refusals block it, the rest fail it.
func (r *landRun) refusal(phase LandPhase, err error) {
	e := AsError(err)
	switch e.Kind {
	case KindRefused, KindUsage:
		r.finish(LandBlocked, e.Code, e.Message, e.Hint)
	case KindCancelled:
		r.cancelled(phase, r.remaining(phase))
	default:
		r.finish(LandFailed, e.Code, e.Message, e.Hint)
	}
}

// recheck reads git again at the head of the queue: the worktree may have gone or changed
// branch while the job waited. The caller holds the repository lock.
func (r *landRun) recheck(ctx context.Context) (*landCmd, bool) {
	s, j := r.s, r.j
	snap, err := s.readAndLearn(ctx)
	if err != nil {
		r.refusal(PhasePreflight, err)
		return nil, false
	}
	t, ok := Find(snap, j.Worktree.Path)
	if !ok || t.Prunable != nil {
		r.blocked(CodeWorktreeGone, "create it again, or check `copse list`", "the worktree %s is gone", Escape(j.Worktree.Path))
		return nil, false
	}
	if t.Branch == "" {
		t.Branch = rebasingBranch(t)
	}
	if t.Branch != j.Worktree.Branch {
		r.blocked(CodeWorktreeBranchChanged, "land again to land what it holds now",
			"%s no longer has branch %s checked out (%s)", Escape(t.Path), Escape(j.Worktree.Branch), Describe(t))
		return nil, false
	}
	// A claim taken since the job was queued binds it like one seen at prepare.
	if held := claimOf(s.withoutEndedClaim(t).Locked); held != nil && held.Session != j.Session && !sameClaim(held, j.TakeOver) {
		r.blocked(CodeClaimedByOther, "land it from that session (or after it releases the claim), or land again with --force-claim to take the claim over (asks first)",
			"%s is claimed by session %s since %s", Escape(t.Path), held.Session, held.Since.Format(time.RFC3339))
		return nil, false
	}
	r.head = t.Head
	return &landCmd{target: t, into: BranchName{j.Into}, test: j.Test, retries: j.Retries, keep: j.Keep, forceRestart: j.ForceRestart}, true
}

// sameClaim: b is exactly claim a (same session, same time), e.g. the claim a person
// approved a land to take over.
func sameClaim(a, b *Claim) bool {
	return a != nil && b != nil && a.Session == b.Session && a.Since.Equal(b.Since)
}

// rebase rebases the worktree's branch onto the target commit. It records the rebase
// first (head-name, orig-head, onto), so a rebase left open can be proved to be copse's.
func (r *landRun) rebase(ctx context.Context, onto string) bool {
	s, j := r.s, r.j
	w := j.Worktree.Path
	// The branch's commit before this rebase: from the worktree list read at the head of
	// the queue for the first rebase, then the commit the previous attempt made.
	orig := r.head
	if j.Commit != "" {
		orig = j.Commit
	}
	j.Attempts++
	j.Onto = onto
	// The checks before the rebase change nothing; a job they block records no new rebase.
	j.Phase = PhaseRebase
	if done, ok := r.alreadyOnTop(ctx, orig, onto); !ok || done {
		return ok
	}
	merges, ok := r.mergesOnBranch(ctx, onto, orig)
	if !ok || !r.rebaseSparesIgnored(ctx, orig, onto) {
		return false
	}
	j.Rebase = &LandRebase{HeadName: "refs/heads/" + j.Worktree.Branch, OrigHead: orig, Onto: onto}
	if j.Orig == "" {
		j.Orig = orig
	}
	r.save(PhaseRebase)
	build := gitx.Rebase
	if len(merges) > 0 {
		build = gitx.RebaseKeepingMerges
	}
	cmd, err := build(w, onto)
	if err != nil {
		r.refusal(PhaseRebase, BuilderErr(err))
		return false
	}
	long := *s.Git
	long.Timeout = landGitTimeout
	_, runErr := long.Run(ctx, cmd)
	if runErr != nil {
		if IsGitKind(runErr, gitx.ErrCanceled) || ctx.Err() != nil {
			r.cancelled(PhaseRebase, r.remaining(PhaseRebase))
			return false
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
		defer cancel()
		gd, _ := gitx.WorktreeGitDir(w)
		if rb, _ := gitx.ReadRebase(gd); rb != nil {
			conflicts, _ := s.Git.Conflicted(rctx, w)
			j.Conflicts = conflicts
			// What it holds now, before anyone resolves anything: --force-restart aborts
			// only a rebase that still holds exactly this (unknown: it refuses).
			if st, err := s.rebaseStopState(rctx, w); err == nil && j.Rebase != nil {
				j.Rebase.Stopped = st
			}
			what := "the rebase onto " + Escape(j.Into) + " (" + Short(onto) + ") stopped"
			if len(conflicts) > 0 {
				what = "the rebase onto " + Escape(j.Into) + " (" + Short(onto) + ") conflicts in " + listPaths(conflicts)
			}
			r.blocked(CodeRebaseConflict,
				"resolve in "+QuoteDisplay(w)+", git add the files, git rebase --continue, then land again (or land with --force-restart to start over)",
				"%s; the rebase is left open in %s", what, Escape(w))
			return false
		}
		e := GitFailure(CodeRebaseFailed, runErr, "git rebase failed")
		r.blocked(CodeRebaseFailed, "run git -C "+QuoteDisplay(w)+" rebase "+Short(onto)+" yourself to see why", "%s", e.Message)
		return false
	}
	commit, err := s.Git.ResolveCommit(ctx, w, "HEAD")
	if err != nil {
		r.gitErr(PhaseRebase, err, "cannot read the rebased commit")
		return false
	}
	j.Commit = commit
	return r.prove(ctx, orig, onto, commit, merges)
}

// gate runs the test command (if any) and checks that it left HEAD and the tree alone.
func (r *landRun) gate(ctx context.Context) bool {
	s, j := r.s, r.j
	if j.Test == "" {
		return true
	}
	r.save(PhaseTest)
	timeout := defaultTestTimeout
	if d, err := ParseSpan(j.TestTimeout, timeoutRule); err == nil {
		timeout = d
	}
	// Every process the gate starts carries its marker, and the record keeps the marker
	// and the group before the gate can start anything: a later copse finds what still
	// runs even after this one died.
	j.Gate = newGate(j.Job)
	env := append(append([]string{}, s.Opts.Env...),
		"COPSE_LAND_JOB="+j.Job, "COPSE_LAND_INTO="+j.Into, "COPSE_LAND_COMMIT="+j.Commit, gateMarkerEnv+"="+j.Gate.Marker)
	_ = writeJob(r.dir, j)
	logHint := "the output is in " + QuoteDisplay(j.Log)
	res, left, runErr := runGate(ctx, j.Worktree.Path, j.Test, timeout, j.Log, env, j.Gate, func(pgid int) {
		j.Gate.PGID = pgid
		_ = writeJob(r.dir, j)
	})
	// What left the group (setsid) outlived the kill: the tree the gate judged may still
	// change, and no record may call such a gate stopped.
	ranOn := ""
	if left != "" {
		ranOn = "; processes it started left its process group and still run: " + left
	}
	if !res.Canceled && (res.TimedOut || runErr != nil || res.ExitCode != 0 || left != "") {
		j.LogTail = gateTail(j.Log)
	}
	switch {
	case res.Canceled:
		r.cancelled(PhaseTest, r.remaining(PhaseTest))
		return false
	case res.TimedOut:
		r.blocked(CodeTestTimeout, "make the test faster, or raise git config copse.testTimeout; "+logHint,
			"the test gate did not finish within %s (its process group was killed)%s", FormatSpan(timeout), ranOn)
		return false
	case runErr != nil:
		r.finish(LandFailed, CodeTestNotRun, "the test gate could not run: "+Escape(runErr.Error()), logHint)
		return false
	case res.ExitCode != 0:
		r.blocked(CodeTestFailed, "fix it, commit, and land again; "+logHint,
			"the test gate %s exited %d%s", Quote(j.Test), res.ExitCode, ranOn)
		return false
	case left != "":
		r.blocked(CodeGateStillRunning, "end them, make the test wait for what it starts, and land again; "+logHint,
			"the test gate %s passed, but processes it started left its process group and still run: %s; the tested tree may still change",
			Quote(j.Test), left)
		return false
	}
	// The gate passed; it judged this commit and this tree only if it left them alone.
	head, err := s.Git.ResolveCommit(ctx, j.Worktree.Path, "HEAD")
	if err != nil {
		r.gitErr(PhaseTest, err, "cannot read the worktree's commit after the test")
		return false
	}
	ref, err := s.Git.SymbolicHeadRef(ctx, j.Worktree.Path)
	if err != nil {
		r.gitErr(PhaseTest, err, "cannot read the worktree's branch after the test")
		return false
	}
	if head != j.Commit || ref != "refs/heads/"+j.Worktree.Branch {
		r.blocked(CodeTestChangedWorktree, "a test gate must not commit, reset or switch branches; land again",
			"the worktree is at %s on %s after the test gate, not at the tested %s on %s",
			Short(head), Escape(strings.TrimPrefix(ref, "refs/heads/")), Short(j.Commit), Escape(j.Worktree.Branch))
		return false
	}
	dirty, err := s.Git.DirtyPaths(ctx, j.Worktree.Path)
	if err != nil {
		r.gitErr(PhaseTest, err, "cannot read the worktree's status after the test")
		return false
	}
	if len(dirty) > 0 {
		r.blocked(CodeTestChangedWorktree, "make the test leave the tree clean (write build output to ignored paths), clean it, and land again",
			"the test gate left changes in the worktree: %s", listPaths(dirty))
		return false
	}
	return true
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
		into = recordedInto(commonDir, IdOf(WorktreeIDs(commonDir), path))
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
	pt, err := si.projectTest(ctx)
	if err != nil || pt == "" {
		return DefaultGate{}, err
	}
	missing, err := si.unapproved([]string{pt})
	if err != nil {
		return DefaultGate{}, err
	}
	return DefaultGate{Command: pt, From: GateFromProject, Approved: len(missing) == 0}, nil
}

// runGate runs the test command with core/usercmd (sh -c in the worktree, its own process
// group, killed whole on timeout or cancel), its output appended to the job's log between
// a header and a footer line.
// left describes the gate's processes that outlived it ("" when none did).
func runGate(ctx context.Context, dir, command string, timeout time.Duration, logPath string, env []string, g *LandGate, started func(pgid int)) (res usercmd.Result, left string, err error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return usercmd.Result{ExitCode: -1}, "", err
	}
	defer log.Close()
	fmt.Fprintf(log, "$ sh -c %s\n", QuoteDisplay(command))
	start := time.Now()
	res, err = usercmd.RunStarted(ctx, dir, command, env, timeout, log, started)
	left = gateLeft(g)
	note := fmt.Sprintf("exit %d", res.ExitCode)
	switch {
	case err != nil:
		note = "not started: " + err.Error()
	case res.TimedOut:
		note = "timed out after " + timeout.String() + "; process group killed"
	case res.Canceled:
		note = "cancelled; process group killed"
	}
	if left != "" {
		note += "; still running outside its group: " + left
	}
	fmt.Fprintf(log, "# gate: %s after %s\n", note, time.Since(start).Round(time.Millisecond))
	return res, left, err
}
