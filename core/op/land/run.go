package land

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/core/usercmd"
	"github.com/copse-dev/copse/gitx"
)

// LandProgress is what a land reports while it waits and runs: its own record (with
// Position while queued) and, while it waits, the job at the head of the queue.
type LandProgress struct {
	Job  core.LandJob
	Head *core.LandJob
}

// landPoll is how often a waiting land looks at the queue again.
const landPoll = 50 * time.Millisecond

// landGitTimeout bounds one rebase or worktree removal (large trees take a while).
const landGitTimeout = 10 * time.Minute

// LandError turns a finished job into the error its state means (nil when landed).
func LandError(j *core.LandJob) error {
	if j == nil || j.State == core.LandLanded {
		return nil
	}
	e := &core.Error{Code: j.Code, Hint: j.Hint}
	switch j.State {
	case core.LandBlocked:
		e.Kind = core.KindRefused
		e.Message = fmt.Sprintf("%s blocked (%s): %s", j.Job, j.Code, j.Message)
	case core.LandCancelled:
		e.Kind, e.Code = core.KindCancelled, core.CodeCancelled
		e.Message = fmt.Sprintf("%s cancelled during %s: %s", j.Job, j.Interrupted, j.Remaining)
	case core.LandUncertain, core.LandAbandoned:
		e.Kind = core.KindUncertain
		e.Message = fmt.Sprintf("%s %s: %s", j.Job, j.State, j.Message)
	case core.LandQueued, core.LandRunning:
		return nil
	default:
		e.Kind = core.KindFailed
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

// enqueueLand writes the job record: the engine holds the repository lock and has checked,
// on a worktree list read under it, that the land is still the one asked for.
func enqueueLand(s *core.Env, ctx context.Context, c *landCmd) (*core.Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	dir := landjobs.Dir(commonDir)
	ticket, err := landjobs.NextTicket(dir)
	if err != nil {
		return nil, core.Failed(core.CodeLandQueueFailed, err, "check that the git directory is writable", "cannot queue the land")
	}
	now := core.NowStamp()
	j := &core.LandJob{
		Job: landjobs.Name(ticket), Ticket: ticket, State: core.LandQueued, Phase: core.PhaseQueued,
		Worktree: core.LandWorktree{ID: c.id, Path: c.target.Path, Branch: c.target.Branch},
		Into:     c.into.String(), Test: c.test, TestFrom: c.testFrom, Retries: c.retries, Keep: c.keep, ForceRestart: c.forceRestart,
		Created: now, Log: landjobs.LogPath(dir, landjobs.Name(ticket)),
	}
	if c.test != "" {
		j.TestTimeout = c.timeout.String()
	}
	j.Session = c.session // who asked for the land, when known (events carry it)
	j.TakeOver = c.takeOver
	c.owner = &core.LivenessOwner{}
	if c.wait {
		// The liveness lock is taken before the record exists, so a record that says
		// owned always has a lock that a live owner holds.
		ok, lerr := core.TakeLiveness(dir, j.Job, c.owner)
		if lerr != nil || !ok {
			return nil, core.Failed(core.CodeLandQueueFailed, lerr, "", "cannot take the liveness lock of %s", j.Job)
		}
		j.Owned, j.PID = true, os.Getpid()
	}
	if err := core.WriteJob(dir, j); err != nil {
		core.DropLiveness(dir, j.Job)
		return nil, core.Failed(core.CodeLandQueueFailed, err, "check that the git directory is writable", "cannot write the land record")
	}
	warnings := s.EmitLand(commonDir, core.EventLandQueued, j, "")
	return &core.Outcome{Operation: core.OpLand, Land: j, Warnings: warnings}, nil
}

// awaitLand runs after the lock is released: without wait it says where the job stands
// in the queue; with wait it runs the queue until the job ends, reporting progress.
func awaitLand(s *core.Env, ctx context.Context, c *landCmd, out *core.Outcome) (*core.Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	dir := landjobs.Dir(commonDir)
	j := out.Land
	if !c.wait {
		if jobs, err := core.ReadJobs(dir); err == nil {
			for _, q := range jobs {
				if q.Job == j.Job {
					j.Position = q.Position
				}
			}
		}
		return out, nil
	}
	final, err := landLoop(s, ctx, dir, j.Job, c.owner, landProgressOf(ctx), nil)
	if err != nil {
		return nil, err
	}
	out = &core.Outcome{Operation: core.OpLand, Land: final, Warnings: append(out.Warnings, final.Warnings...)}
	if e := LandError(final); e != nil {
		return out, e
	}
	return out, nil
}

// drainLand runs every queued job nobody is waiting for, in queue order, waiting behind
// jobs that other live processes run.
func drainLand(s *core.Env, ctx context.Context) (*core.Outcome, error) {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	ran := []core.LandJob{}
	_, err = landLoop(s, ctx, landjobs.Dir(commonDir), "", &core.LivenessOwner{}, landProgressOf(ctx), func(j core.LandJob) { ran = append(ran, j) })
	if err != nil {
		return nil, err
	}
	return &core.Outcome{Operation: core.OpLandDrain, LandJobs: ran}, nil
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

// landLoop runs the queue from this process. With mine set it returns when that job has
// ended; with mine empty (drain) it returns when no queued job is left that nobody owns.
// Only the head of the queue (lowest unfinished ticket) ever runs.
func landLoop(s *core.Env, ctx context.Context, dir, mine string, owner *core.LivenessOwner, progress func(LandProgress), ran func(core.LandJob)) (*core.LandJob, error) {
	lastPos, lastHead := -1, ""
	watch := &stoppedWatch{s: s, ctx: ctx}
	for {
		jobs, err := core.ReadJobs(dir)
		if err != nil {
			return nil, core.Failed(core.CodeLandQueueUnreadable, err, "", "cannot read the land queue")
		}
		me, head, unowned := queueView(jobs, mine)
		if mine != "" && me == nil {
			core.DropLiveness(dir, mine)
			return nil, core.Failed(core.CodeLandRecordMissing, nil, "`copse land status` lists the jobs", "the record of %s disappeared", mine)
		}
		if me != nil && me.State.Finished() {
			return me, nil
		}
		if head == nil {
			return nil, nil
		}
		if again, err := takeTurn(s, ctx, dir, mine, head, owner, progress, ran); err != nil {
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
				return nil, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Message: "drain cancelled while waiting; no job was running here"}
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
func takeTurn(s *core.Env, ctx context.Context, dir, mine string, head *core.LandJob, owner *core.LivenessOwner, progress func(LandProgress), ran func(core.LandJob)) (again bool, err error) {
	switch {
	case core.Holds(dir, head.Job, owner):
		if head.Job != mine {
			head.Position = 0
		}
		done := runJob(s, ctx, dir, head, progress)
		if ran != nil && done != nil {
			ran(*done)
		}
		if mine == "" && ctx.Err() != nil {
			return false, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Message: "drain cancelled"}
		}
		return true, nil
	case head.Owned:
		ok, err := core.TakeLiveness(dir, head.Job, owner)
		if err != nil {
			return false, core.Failed(core.CodeLandQueueFailed, err, "", "cannot check the liveness of %s", head.Job)
		}
		if ok {
			s.Abandon(ctx, dir, head.Job, false)
		}
		return ok, nil
	}
	return adopt(s, dir, head.Job, owner), nil
}

// queueView finds, in the queue's jobs (by ticket), the job mine (nil when mine is not
// there), the head (the lowest unfinished ticket, the only one that may run; nil when all
// finished), and whether an unfinished job has no owner.
func queueView(jobs []core.LandJob, mine string) (me, head *core.LandJob, unowned bool) {
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
func cancelQueued(dir string, me *core.LandJob) {
	me.State, me.Interrupted, me.Finished = core.LandCancelled, core.PhaseQueued, core.NowStamp()
	me.Position = 0
	me.Remaining = "it was still queued; nothing changed"
	_ = core.WriteJob(dir, me)
	core.DropLiveness(dir, me.Job)
}

// adopt takes over a queued job that nobody waits for (queued with --no-wait).
func adopt(s *core.Env, dir, job string, me *core.LivenessOwner) bool {
	ok, err := core.TakeLiveness(dir, job, me)
	if err != nil || !ok {
		return false
	}
	j, err := landjobs.Read[core.LandJob](dir, job)
	if err != nil || j.State.Finished() || j.Owned {
		core.DropLiveness(dir, job)
		return false
	}
	j.Owned, j.PID = true, os.Getpid()
	if core.WriteJob(dir, &j) != nil {
		core.DropLiveness(dir, job)
		return false
	}
	return true
}

// landRun is one job being run by this process.
type landRun struct {
	s              *core.Env
	dir, commonDir string
	j              *core.LandJob
	progress       func(LandProgress)
	cmd            *landCmd
	locked         bool           // this run holds the repository lock (events need it)
	head           string         // the worktree's commit when the job reached the head of the queue
	snap           *core.Snapshot // the worktree list advance read (clean-up reuses it under the same lock)
}

func (r *landRun) save(phase core.LandPhase) {
	r.j.Phase = phase
	_ = core.WriteJob(r.dir, r.j)
	if r.progress != nil {
		r.progress(LandProgress{Job: *r.j})
	}
}

// runJob runs the head job (this process holds its liveness lock) to its end, writes the
// final record and releases the lock.
func runJob(s *core.Env, ctx context.Context, dir string, j *core.LandJob, progress func(LandProgress)) *core.LandJob {
	defer core.DropLiveness(dir, j.Job)
	r := &landRun{s: s, dir: dir, commonDir: filepath.Dir(filepath.Dir(dir)), j: j, progress: progress}
	j.State, j.Started, j.PID, j.Position = core.LandRunning, core.NowStamp(), os.Getpid(), 0
	r.run(ctx)
	if !j.State.Finished() { // defensive: a path that forgot to finish
		r.finish(core.LandFailed, core.CodeInternal, "the land ended without a result", "report this")
	}
	return j
}

// finish writes the final state and emits the event (taking the repository lock for it
// unless this run holds it).
func (r *landRun) finish(state core.LandState, code, msg, hint string) {
	j := r.j
	// The progress said "advance main to X": every advance that ends short of it says the
	// same one thing about the target (as a cancelled one does), whichever check stopped it.
	if j.Phase == core.PhaseAdvance && (state == core.LandBlocked || state == core.LandFailed) && j.Previous == "" && code != core.CodeTargetSyncFailed {
		msg += "; " + core.Escape(j.Into) + " is unchanged by this land"
	}
	j.State, j.Code, j.Message, j.Hint, j.Finished = state, code, msg, hint, core.NowStamp()
	if state == core.LandLanded {
		j.Phase = core.PhaseDone
	}
	_ = core.WriteJob(r.dir, j)
	// Every job ends with one event. land.blocked stands for every end other than
	// landed: blocked, failed, cancelled and uncertain (reason says which).
	event := core.EventLandBlocked
	if state == core.LandLanded {
		event = core.EventLandLanded
	}
	if event != "" {
		ok := r.locked
		if !ok {
			lctx, cancel := context.WithTimeout(context.Background(), core.ReadBackTimeout)
			defer cancel()
			if u, err := r.s.Lock(lctx); err == nil {
				ok = true
				defer u()
			}
		}
		if ok {
			j.Warnings = append(j.Warnings, r.s.EmitLand(r.commonDir, event, j, code)...)
			_ = core.WriteJob(r.dir, j)
		}
	}
	if r.progress != nil {
		r.progress(LandProgress{Job: *j})
	}
}

func (r *landRun) blocked(code, hint, format string, args ...any) {
	r.finish(core.LandBlocked, code, fmt.Sprintf(format, args...), hint)
}

// cancelled records where the job was interrupted and what state it left.
func (r *landRun) cancelled(phase core.LandPhase, remaining string) {
	r.j.Interrupted, r.j.Remaining = phase, remaining
	r.finish(core.LandCancelled, core.CodeCancelled, "interrupted during "+string(phase), "check the state it left: "+remaining)
}

// gitErr finishes the job as failed (or cancelled) from a git error in phase.
func (r *landRun) gitErr(phase core.LandPhase, err error, what string) {
	e := core.GitFailure(core.CodeLandGitFailed, err, what)
	if e.Kind == core.KindCancelled {
		r.cancelled(phase, r.remaining(phase))
		return
	}
	r.finish(core.LandFailed, e.Code, e.Message, e.Hint)
}

// remaining describes, after an interruption in phase, what state the job left.
func (r *landRun) remaining(phase core.LandPhase) string {
	j := r.j
	w := core.QuoteDisplay(j.Worktree.Path)
	switch phase {
	case core.PhaseQueued, core.PhasePreflight:
		return "nothing changed"
	case core.PhaseRebase:
		if gd, err := gitx.WorktreeGitDir(j.Worktree.Path); err == nil {
			if rb, _ := gitx.ReadRebase(gd); rb != nil {
				return "the rebase copse started is still open in " + w + "; land again with --force-restart to abort it, or finish it with git rebase --continue; " + core.Escape(j.Into) + " is unchanged"
			}
		}
		return "no rebase is open in " + w + "; branch " + core.Escape(j.Worktree.Branch) + " may already be rebased; " + core.Escape(j.Into) + " is unchanged"
	case core.PhaseTest:
		gate := "the test gate was stopped"
		if left := core.GateLeft(j.Gate); left != "" {
			gate = "the test gate's process group was killed, but processes that left it still run: " + left
		}
		return "branch " + core.Escape(j.Worktree.Branch) + " is rebased onto " + core.Short(j.Onto) + " (at " + core.Short(j.Commit) + "); " + gate + "; " + core.Escape(j.Into) + " is unchanged"
	case core.PhaseAdvance:
		return "branch " + core.Escape(j.Worktree.Branch) + " is rebased and tested at " + core.Short(j.Commit) + "; " + core.Escape(j.Into) + " is unchanged"
	}
	return "see `copse land status " + j.Job + "`"
}

func (r *landRun) run(ctx context.Context) {
	s, j := r.s, r.j
	r.save(core.PhasePreflight)
	ok := false
	var headErr error
	err := s.Critical(ctx, func(st *core.Step) error {
		r.locked = true
		defer func() { r.locked = false }()
		c, good := r.recheck(st.Snap)
		if good {
			r.cmd = c
			if err := preflight(s, ctx, c, r.commonDir, true); err != nil {
				r.refusal(core.PhasePreflight, err)
				good = false
			}
		}
		if good && j.ForceRestart {
			// An aborted rebase moved the branch back: read where it is now.
			if r.head, headErr = s.Git.ResolveCommit(ctx, j.Worktree.Path, "HEAD"); headErr != nil {
				return nil
			}
		}
		ok = good
		return nil
	})
	switch {
	case err != nil:
		r.refusal(core.PhasePreflight, err) // cancelled, lock_timeout, or git's list unreadable: nothing changed
		return
	case headErr != nil:
		r.gitErr(core.PhasePreflight, headErr, "cannot read the worktree's commit")
		return
	case !ok:
		return
	}

	for attempt := 0; ; attempt++ {
		onto, err := s.Git.ResolveCommit(ctx, s.Root(), "refs/heads/"+j.Into)
		if err != nil {
			if core.RefusedByGit(err) {
				r.blocked(core.CodeTargetMissing, "create it, or land with another --into", "the target branch %s does not exist", core.Escape(j.Into))
				return
			}
			r.gitErr(core.PhaseRebase, err, "cannot read the target branch "+core.Escape(j.Into))
			return
		}
		if !r.rebase(ctx, onto) {
			return
		}
		if !r.gate(ctx) {
			return
		}
		r.save(core.PhaseAdvance)
		retry := false
		err = s.Critical(ctx, func(st *core.Step) error {
			r.locked = true
			defer func() { r.locked = false }()
			// From here on nothing is interrupted half-way: the advance, its sync and its
			// rollback run to the end even after ^C.
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), landGitTimeout)
			defer cancel()
			moved, done := r.advance(actx, onto, st.Snap)
			if moved && attempt < j.Retries {
				retry = true
				return nil
			}
			switch {
			case moved:
				r.blocked(core.CodeTargetMoved, "land again when "+core.Escape(j.Into)+" is quieter, or raise git config copse.landRetries",
					"%s moved during the land %d times in a row; %s is rebased and tested but not landed", core.Escape(j.Into), attempt+1, core.Escape(j.Worktree.Branch))
			case done:
				r.landed(actx)
			}
			return nil
		})
		if err != nil {
			r.refusal(core.PhaseAdvance, err) // cancelled, lock_timeout, or git's list unreadable: the target is unchanged
			return
		}
		if !retry {
			return
		}
	}
}

// landed finishes a job whose target now points at its commit: the clean-up (unless
// keep), what the branch's upstream and the target's checkout say, the landed record.
// The caller holds the repository lock.
func (r *landRun) landed(actx context.Context) {
	j := r.j
	up, hasUp := r.readUpstream(actx, j.Worktree.Branch)
	if !j.Keep {
		r.save(core.PhaseCleanup)
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
	r.finish(core.LandLanded, "", fmt.Sprintf("%s landed onto %s at %s", core.Escape(j.Worktree.Branch), core.Escape(j.Into), core.Short(j.Commit)), "")
}

// refusal finishes the job from a check's *Error: refusals block it, the rest fail it.
func (r *landRun) refusal(phase core.LandPhase, err error) {
	e := core.AsError(err)
	switch e.Kind {
	case core.KindRefused, core.KindUsage:
		r.finish(core.LandBlocked, e.Code, e.Message, e.Hint)
	case core.KindCancelled:
		r.cancelled(phase, r.remaining(phase))
	default:
		r.finish(core.LandFailed, e.Code, e.Message, e.Hint)
	}
}

// recheck looks at git's list again at the head of the queue (snap, read under the lock
// the caller holds): the worktree may have gone or changed branch while the job waited.
func (r *landRun) recheck(snap core.Snapshot) (*landCmd, bool) {
	s, j := r.s, r.j
	t, ok := core.Find(snap, j.Worktree.Path)
	if !ok || t.Prunable != nil {
		r.blocked(core.CodeWorktreeGone, "create it again, or check `copse list`", "the worktree %s is gone", core.Escape(j.Worktree.Path))
		return nil, false
	}
	if t.Branch == "" {
		t.Branch = core.RebasingBranch(t)
	}
	if t.Branch != j.Worktree.Branch {
		r.blocked(core.CodeWorktreeBranchChanged, "land again to land what it holds now",
			"%s no longer has branch %s checked out (%s)", core.Escape(t.Path), core.Escape(j.Worktree.Branch), core.Describe(t))
		return nil, false
	}
	// A claim taken since the job was queued binds it like one seen at prepare.
	if held := core.ClaimOf(s.WithoutEndedClaim(t).Locked); held != nil && held.Session != j.Session && !sameClaim(held, j.TakeOver) {
		r.blocked(core.CodeClaimedByOther, "land it from that session (or after it releases the claim), or land again with --force-claim to take the claim over (asks first)",
			"%s is claimed by session %s since %s", core.Escape(t.Path), held.Session, held.Since.Format(time.RFC3339))
		return nil, false
	}
	r.head = t.Head
	return &landCmd{target: t, into: core.GitsBranch(j.Into), test: j.Test, retries: j.Retries, keep: j.Keep, forceRestart: j.ForceRestart}, true
}

// sameClaim: b is exactly claim a (same session, same time), e.g. the claim a person
// approved a land to take over.
func sameClaim(a, b *core.Claim) bool {
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
	j.Phase = core.PhaseRebase
	if done, ok := r.alreadyOnTop(ctx, orig, onto); !ok || done {
		return ok
	}
	merges, ok := r.mergesOnBranch(ctx, onto, orig)
	if !ok || !r.rebaseSparesIgnored(ctx, orig, onto) {
		return false
	}
	j.Rebase = &core.LandRebase{HeadName: "refs/heads/" + j.Worktree.Branch, OrigHead: orig, Onto: onto}
	if j.Orig == "" {
		j.Orig = orig
	}
	r.save(core.PhaseRebase)
	build := gitx.Rebase
	if len(merges) > 0 {
		build = gitx.RebaseKeepingMerges
	}
	cmd, err := build(w, onto)
	if err != nil {
		r.refusal(core.PhaseRebase, core.BuilderErr(err))
		return false
	}
	long := *s.Git
	long.Timeout = landGitTimeout
	_, runErr := long.Run(ctx, cmd)
	if runErr != nil {
		if core.IsGitKind(runErr, gitx.ErrCanceled) || ctx.Err() != nil {
			r.cancelled(core.PhaseRebase, r.remaining(core.PhaseRebase))
			return false
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
		defer cancel()
		gd, _ := gitx.WorktreeGitDir(w)
		if rb, _ := gitx.ReadRebase(gd); rb != nil {
			conflicts, _ := s.Git.Conflicted(rctx, w)
			j.Conflicts = conflicts
			// What it holds now, before anyone resolves anything: --force-restart aborts
			// only a rebase that still holds exactly this (unknown: it refuses).
			if st, err := rebaseStopState(s, rctx, w); err == nil && j.Rebase != nil {
				j.Rebase.Stopped = st
			}
			what := "the rebase onto " + core.Escape(j.Into) + " (" + core.Short(onto) + ") stopped"
			if len(conflicts) > 0 {
				what = "the rebase onto " + core.Escape(j.Into) + " (" + core.Short(onto) + ") conflicts in " + listPaths(conflicts)
			}
			r.blocked(core.CodeRebaseConflict,
				"resolve in "+core.QuoteDisplay(w)+", git add the files, git rebase --continue, then land again (or land with --force-restart to start over)",
				"%s; the rebase is left open in %s", what, core.Escape(w))
			return false
		}
		e := core.GitFailure(core.CodeRebaseFailed, runErr, "git rebase failed")
		r.blocked(core.CodeRebaseFailed, "run git -C "+core.QuoteDisplay(w)+" rebase "+core.Short(onto)+" yourself to see why", "%s", e.Message)
		return false
	}
	commit, err := s.Git.ResolveCommit(ctx, w, "HEAD")
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot read the rebased commit")
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
	r.save(core.PhaseTest)
	timeout := defaultTestTimeout
	if d, err := core.ParseSpan(j.TestTimeout, core.TimeoutRule); err == nil {
		timeout = d
	}
	// Every process the gate starts carries its marker, and the record keeps the marker
	// and the group before the gate can start anything: a later copse finds what still
	// runs even after this one died.
	j.Gate = newGate(j.Job)
	env := append(append([]string{}, s.Opts.Env...),
		"COPSE_LAND_JOB="+j.Job, "COPSE_LAND_INTO="+j.Into, "COPSE_LAND_COMMIT="+j.Commit, core.GateMarkerEnv+"="+j.Gate.Marker)
	_ = core.WriteJob(r.dir, j)
	logHint := "the output is in " + core.QuoteDisplay(j.Log)
	res, left, runErr := runGate(ctx, j.Worktree.Path, j.Test, timeout, j.Log, env, j.Gate, func(pgid int) {
		j.Gate.PGID = pgid
		_ = core.WriteJob(r.dir, j)
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
		r.cancelled(core.PhaseTest, r.remaining(core.PhaseTest))
		return false
	case res.TimedOut:
		r.blocked(core.CodeTestTimeout, "make the test faster, or raise git config copse.testTimeout; "+logHint,
			"the test gate did not finish within %s (its process group was killed)%s", core.FormatSpan(timeout), ranOn)
		return false
	case runErr != nil:
		r.finish(core.LandFailed, core.CodeTestNotRun, "the test gate could not run: "+core.Escape(runErr.Error()), logHint)
		return false
	case res.ExitCode != 0:
		r.blocked(core.CodeTestFailed, "fix it, commit, and land again; "+logHint,
			"the test gate %s exited %d%s", core.Quote(j.Test), res.ExitCode, ranOn)
		return false
	case left != "":
		r.blocked(core.CodeGateStillRunning, "end them, make the test wait for what it starts, and land again; "+logHint,
			"the test gate %s passed, but processes it started left its process group and still run: %s; the tested tree may still change",
			core.Quote(j.Test), left)
		return false
	}
	// The gate passed; it judged this commit and this tree only if it left them alone.
	head, err := s.Git.ResolveCommit(ctx, j.Worktree.Path, "HEAD")
	if err != nil {
		r.gitErr(core.PhaseTest, err, "cannot read the worktree's commit after the test")
		return false
	}
	ref, err := s.Git.SymbolicHeadRef(ctx, j.Worktree.Path)
	if err != nil {
		r.gitErr(core.PhaseTest, err, "cannot read the worktree's branch after the test")
		return false
	}
	if head != j.Commit || ref != "refs/heads/"+j.Worktree.Branch {
		r.blocked(core.CodeTestChangedWorktree, "a test gate must not commit, reset or switch branches; land again",
			"the worktree is at %s on %s after the test gate, not at the tested %s on %s",
			core.Short(head), core.Escape(strings.TrimPrefix(ref, "refs/heads/")), core.Short(j.Commit), core.Escape(j.Worktree.Branch))
		return false
	}
	dirty, err := s.Git.DirtyPaths(ctx, j.Worktree.Path)
	if err != nil {
		r.gitErr(core.PhaseTest, err, "cannot read the worktree's status after the test")
		return false
	}
	if len(dirty) > 0 {
		r.blocked(core.CodeTestChangedWorktree, "make the test leave the tree clean (write build output to ignored paths), clean it, and land again",
			"the test gate left changes in the worktree: %s", listPaths(dirty))
		return false
	}
	return true
}

// runGate runs the test command with core/usercmd (sh -c in the worktree, its own process
// group, killed whole on timeout or cancel), its output appended to the job's log between
// a header and a footer line.
// left describes the gate's processes that outlived it ("" when none did).
func runGate(ctx context.Context, dir, command string, timeout time.Duration, logPath string, env []string, g *core.LandGate, started func(pgid int)) (res usercmd.Result, left string, err error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return usercmd.Result{ExitCode: -1}, "", err
	}
	defer log.Close()
	fmt.Fprintf(log, "$ sh -c %s\n", core.QuoteDisplay(command))
	start := time.Now()
	res, err = usercmd.RunStarted(ctx, dir, command, env, timeout, log, started)
	left = core.GateLeft(g)
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
