package land

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
)

// advance moves the target from onto to the tested commit with a compare-and-swap, and
// keeps any checkout of the target in step: a bare update-ref would leave that checkout
// stale, and its next commit would silently revert the land (docs/land.md, "advance").
// The caller holds the repository lock. moved: the target is no longer at onto (rebase
// and test again). done: the target now points at the commit. Neither: the job finished
// blocked, failed or uncertain.
func (r *landRun) advance(ctx context.Context, onto string, snap core.Snapshot) (moved, done bool) {
	s, j := r.s, r.j
	root := s.Root()
	into := j.Into
	old, err := s.Git.ResolveCommit(ctx, root, "refs/heads/"+into)
	if err != nil {
		r.gitErr(core.PhaseAdvance, err, "cannot read the target branch "+core.Escape(into))
		return false, false
	}
	if old != onto {
		return true, false
	}
	if ok, err := s.Git.Ancestor(ctx, root, old, j.Commit); err != nil {
		r.gitErr(core.PhaseAdvance, err, "cannot check that the land is a fast-forward")
		return false, false
	} else if !ok {
		return true, false
	}
	r.snap = &snap // the clean-up, under the same lock, starts from this list
	holder, refusal := targetHolder(snap.Trees, into, busyBranchOf)
	if refusal != nil {
		r.blocked(refusal.Code, refusal.Hint, "%s", refusal.Message)
		return false, false
	}
	if holder != nil && !r.checkHolder(ctx, *holder, old) {
		return false, false
	}
	upd, err := gitx.UpdateRefCAS(root, into, j.Commit, old, "copse land "+j.Job+": "+j.Worktree.Branch)
	if err != nil {
		r.refusal(core.PhaseAdvance, core.BuilderErr(err))
		return false, false
	}
	if _, err := s.Git.Run(ctx, upd); err != nil {
		cur, rerr := s.Git.ResolveCommit(ctx, root, "refs/heads/"+into)
		if rerr == nil && cur != old {
			return true, false // someone moved it between our read and the swap
		}
		r.gitErr(core.PhaseAdvance, err, "cannot advance "+core.Escape(into))
		return false, false
	}
	j.Previous = old
	if testHookAfterSwap != nil {
		testHookAfterSwap()
	}
	if holder != nil {
		if !r.sync(ctx, *holder, old) {
			return false, false
		}
	}
	cur, err := s.Git.ResolveCommit(ctx, root, "refs/heads/"+into)
	if err != nil || cur != j.Commit {
		r.finish(core.LandUncertain, core.CodeAdvanceUnverified, "the target "+core.Escape(into)+" was advanced, but reading it back did not show "+core.Short(j.Commit),
			"check git log "+core.Escape(into)+" before doing anything else")
		return false, false
	}
	return false, true
}

// targetHolder is the one checkout of the target branch into that the advance keeps in
// step (nil when none is on disk), or the refusal: into is being rebased or bisected in a
// worktree (busy gives the branch a worktree's operation holds, "" when none), or it is
// checked out in more than one.
func targetHolder(trees []gitx.Worktree, into string, busy func(gitx.Worktree) string) (*gitx.Worktree, *core.Error) {
	var holders []gitx.Worktree
	for _, t := range trees {
		if t.Bare {
			continue
		}
		if t.Branch == into {
			holders = append(holders, t)
		}
		if t.Prunable == nil && busy(t) == "refs/heads/"+into {
			return nil, core.Refused(core.CodeTargetBusy, "let that finish (or abort it) first, then land again",
				"%s is being rebased or bisected in %s; a later abort there would move it back and erase the land", core.Escape(into), core.Escape(t.Path))
		}
	}
	if len(holders) > 1 {
		var paths []string
		for _, h := range holders {
			paths = append(paths, h.Path)
		}
		return nil, core.Refused(core.CodeTargetCheckedOutTwice, "switch all but one of them to another branch, then land again",
			"%s is checked out in %d worktrees (%s); copse cannot keep them all in step", core.Escape(into), len(holders), listPaths(paths))
	}
	if len(holders) == 1 && holders[0].Prunable == nil {
		return &holders[0], nil
	}
	return nil, nil
}

// busyBranchOf is the branch an operation in t holds (a rebase or bisect), "" when none
// or when its git directory cannot be found.
func busyBranchOf(t gitx.Worktree) string {
	gd, err := gitx.WorktreeGitDir(t.Path)
	if err != nil {
		return ""
	}
	return gitx.BusyBranch(gd)
}

// testHookAfterSwap runs between the swap and the sync (tests inject failures there).
var testHookAfterSwap func()

// checkHolder refuses a checkout of the target that cannot be kept in step: one in the
// middle of an operation, one whose HEAD is not the target any more, or one whose
// uncommitted paths overlap the paths the land changes.
func (r *landRun) checkHolder(ctx context.Context, h gitx.Worktree, old string) bool {
	refusal, failure, err := holderVerdict(r.s, ctx, h, r.j.Into, old, r.j.Commit)
	switch {
	case failure == core.CodeWorktreeUnreadable:
		r.finish(core.LandFailed, core.CodeWorktreeUnreadable, "cannot find the git directory of "+core.Escape(h.Path), "check that checkout")
		return false
	case err != nil:
		r.gitErr(core.PhaseAdvance, err, "cannot read the checkout of "+core.Escape(r.j.Into)+" at "+core.Escape(h.Path))
		return false
	case refusal != nil:
		r.blocked(refusal.Code, refusal.Hint, "%s", refusal.Message)
		return false
	}
	return true
}

// holderVerdict judges the checkout h of the target into before the land moves it from
// old to the commit to: a refusal when it cannot be kept in step, nil when it can. It only
// reads; land's advance and its dry run both decide on it. failure names what could not
// be read (CodeWorktreeUnreadable for its git directory) when err is set.
func holderVerdict(s *core.Env, ctx context.Context, h gitx.Worktree, into, old, to string) (refusal *core.Error, failure string, err error) {
	gd, err := gitx.WorktreeGitDir(h.Path)
	if err != nil {
		return nil, core.CodeWorktreeUnreadable, err
	}
	if op, err := gitx.Operation(gd); err != nil || op != "" {
		if op == "" {
			op = "an operation (unreadable state)"
		}
		return core.Refused(core.CodeTargetBusy, "finish or abort the "+op+" in "+core.QuoteDisplay(h.Path)+", then land again",
			"%s is checked out in %s, where a %s is in progress", core.Escape(into), core.Escape(h.Path), op), "", nil
	}
	ref, err := s.Git.SymbolicHeadRef(ctx, h.Path)
	if err != nil {
		return nil, "", err
	}
	if ref != "refs/heads/"+into {
		return core.Refused(core.CodeTargetBusy, "land again", "%s no longer has %s checked out", core.Escape(h.Path), core.Escape(into)), "", nil
	}
	// Ignored files count too: read-tree -m -u overwrites or deletes an ignored file (or a
	// whole ignored directory, a nested repository in it included) that stands where the
	// land adds, changes or removes a path, and nothing of it could be restored.
	dirty, ignored, err := s.Git.ChangedAndIgnored(ctx, h.Path)
	if err != nil {
		return nil, "", err
	}
	// Changes git status does not show (assume-unchanged, skip-worktree) are the person's
	// work too, and read-tree overwrites them silently: the same part of "what would be
	// lost" that remove refuses on.
	hidden, err := s.Git.HiddenChanges(ctx, h.Path)
	if err != nil {
		return nil, "", err
	}
	dirty = append(dirty, hidden...)
	if len(dirty) == 0 && len(ignored) == 0 {
		return nil, "", nil
	}
	incoming, err := s.Git.ChangedPaths(ctx, h.Path, old, to)
	if err != nil {
		return nil, "", err
	}
	if over := overlap(dirty, incoming); len(over) > 0 {
		return core.Refused(core.CodeTargetDirtyOverlap, "commit, stash or revert those paths in "+core.QuoteDisplay(h.Path)+", then land again",
			"%s is checked out in %s, whose uncommitted changes touch paths the land changes: %s",
			core.Escape(into), core.Escape(h.Path), listPaths(over)), "", nil
	}
	if over := overlap(ignored, incoming); len(over) > 0 {
		return core.Refused(core.CodeTargetIgnoredOverlap, "move them out of "+core.QuoteDisplay(h.Path)+" (git keeps no copy of ignored files), land again, then put back what you still need",
			"%s is checked out in %s, where ignored files stand at paths the land would replace or remove: %s; nothing was overwritten",
			core.Escape(into), core.Escape(h.Path), listPaths(over)), "", nil
	}
	return nil, "", nil
}

// overlap returns the dirty paths that are, contain or lie inside an incoming path. git
// prints a directory it did not enter (an untracked or ignored one, a nested repository)
// with a trailing "/"; it covers everything inside.
func overlap(dirty, incoming []string) []string {
	in := map[string]bool{}
	for _, p := range incoming {
		in[p] = true
	}
	var out []string
	for _, shown := range dirty {
		d := strings.TrimSuffix(shown, "/")
		hit := in[d]
		for _, p := range incoming {
			if hit {
				break
			}
			hit = strings.HasPrefix(p, d+"/") || strings.HasPrefix(d, p+"/")
		}
		if hit {
			out = append(out, shown)
		}
	}
	return out
}

// sync moves the holder's checkout from old to the landed commit; if git cannot, the ref
// is swapped back, and if that fails too the outcome is uncertain.
func (r *landRun) sync(ctx context.Context, h gitx.Worktree, old string) bool {
	s, j := r.s, r.j
	release := s.HoldRefreshes()
	defer release()
	if refresh, err := gitx.RefreshIndex(h.Path); err == nil {
		_, _ = s.Git.Run(ctx, refresh) // only refreshes stat data; read-tree judges the result
	}
	rt, err := gitx.ReadTreeSync(h.Path, old, j.Commit)
	if err != nil {
		r.refusal(core.PhaseAdvance, core.BuilderErr(err))
		return false
	}
	_, syncErr := s.Git.Run(ctx, rt)
	if syncErr == nil {
		s.RefreshAfterCheckout(h.Path)
		return true
	}
	back, err := gitx.UpdateRefCAS(s.Root(), j.Into, old, j.Commit, "copse land "+j.Job+": roll back")
	if err == nil {
		_, err = s.Git.Run(ctx, back)
	}
	why := core.GitFailure(core.CodeSyncFailed, syncErr, "git read-tree failed").Message
	if err != nil {
		r.finish(core.LandUncertain, core.CodeRollbackFailed,
			"the checkout of "+core.Escape(j.Into)+" in "+core.Escape(h.Path)+" could not be synced ("+why+"), and moving "+core.Escape(j.Into)+" back to "+core.Short(old)+" failed too",
			"check "+core.Escape(j.Into)+" and "+core.QuoteDisplay(h.Path)+" by hand: git -C "+core.QuoteDisplay(h.Path)+" status")
		return false
	}
	j.Previous = ""
	r.blocked(core.CodeTargetSyncFailed, "look at "+core.QuoteDisplay(h.Path)+" (git status there), make it clean, then land again",
		"the checkout of %s in %s could not be brought up to date (%s); %s was moved back to %s", core.Escape(j.Into), core.Escape(h.Path), why, core.Escape(j.Into), core.Short(old))
	return false
}

// cleanup releases copse's claim on the landed worktree, removes it (never forced) and
// deletes its branch if it still points at the landed commit. A step that cannot run is a
// warning: the land itself is done. The caller holds the repository lock.
func (r *landRun) cleanup(ctx context.Context) {
	s, j := r.s, r.j
	warn := func(format string, args ...any) {
		j.Warnings = append(j.Warnings, fmt.Sprintf(format, args...))
	}
	// The list advance read under this same lock still holds: the advance and the sync
	// change no worktree's place or branch.
	if r.snap == nil {
		snap, err := s.ReadAndLearn(ctx)
		if err != nil {
			warn("kept %s: cannot read the worktree list (%s)", core.Escape(j.Worktree.Path), core.AsError(err).Message)
			return
		}
		r.snap = &snap
	}
	t, ok := core.Find(*r.snap, j.Worktree.Path)
	if !ok {
		warn("the worktree %s is already gone", core.Escape(j.Worktree.Path))
		return
	}
	// The claim goes first: the work is landed, so the claim has done its job even when the
	// worktree itself must stay (copse runs inside it).
	if kept := claimKeeps(s.WithoutEndedClaim(t), j.Session, j.TakeOver); kept != "" {
		warn("%s", kept)
		return
	}
	if t.Locked != nil {
		un, err := gitx.WorktreeUnlock(s.Root(), t.Path)
		if err == nil {
			_, err = s.Git.Run(ctx, un)
		}
		if err != nil {
			warn("kept %s: cannot release its claim (%s)", core.Escape(t.Path), core.AsError(core.GitFailure(core.CodeUnlockFailed, err, "git worktree unlock failed")).Message)
			return
		}
		j.Released = true
		t.Locked = nil // as it is now: the removal below sees an unlocked worktree
		emitWorktree(s, r.commonDir, core.EventReleased, j)
	}
	ws, err := removal.WorkspaceAt(s, ctx, *r.snap, t.Path)
	if err != nil {
		warn("kept %s: cannot tell which window or workspace shows it (%s)", core.Escape(t.Path), core.AsError(err).Message)
		return
	}
	// copse's own tmux window (a land typed in the worktree's window) closes once copse has
	// answered, not under it: read before the worktree, and its window's mark, go.
	own := s.OwnWindow(ctx, t.Path)
	l, kept := worktreeKeeps(s, ctx, t, ws, false)
	if kept != "" {
		warn("%s", kept)
		return
	}
	long := *s.Git
	long.Timeout = landGitTimeout
	// Recorded first (no record, no remove), read back and verified as remove does. The
	// list is not compared: the land's run is long and other worktrees move meanwhile. The
	// processes are looked at again right before git removes it, and its window or
	// workspace is closed with it.
	run := removal.UnforcedRemoval(s, t, ws, &long)
	if own != "" {
		run = removal.UnforcedRemovalInOwnWindow(s, t, own, &long)
	}
	rr, err := removal.RemoveOne(s, ctx, removal.RemoveStep{Target: t, Record: true, Run: run})
	if rerr, ok := removal.IsReadBack(err); ok {
		warn("removing %s ran, but the worktree list could not be read back (%s); run `copse list`", core.Escape(t.Path), core.Escape(core.FirstLine(rerr.Error())))
		return
	}
	if err != nil {
		warn("kept %s: %s", core.Escape(t.Path), core.AsError(err).Message)
		return
	}
	switch rr.Verdict {
	case removal.RemovalNothing:
		if live, ok := removal.StillLive(rr.RunErr); ok {
			warn("%s", liveKeeps(t.Path, live))
			return
		}
		warn("kept %s: %s", core.Escape(t.Path), core.GitFailure(core.CodeRemoveFailed, rr.RunErr, "git worktree remove refused").Message)
		return
	case removal.RemovalPartial, removal.RemovalIncomplete:
		warn("%s; run `copse list` (git worktree prune forgets a worktree whose directory is gone)", removal.RemoveState(t.Path, rr.Listed, rr.OnDisk))
		return
	}
	j.Removed = true
	if rr.Verdict == removal.RemovalGoneAnyway && rr.RunErr != nil {
		warn("removed %s, but: %s", core.Escape(t.Path), core.AsError(rr.RunErr).Message)
	}
	if own != "" {
		s.CloseOwnWindow(ctx, own, warn)
	}
	if l.Ignored > 0 {
		// Deleted as by remove, and like remove's confirmation the land says which.
		warn("removed %s: %s with it (ignored files are not recorded)", core.Escape(t.Path), l.IgnoredNamed())
	}
	del, err := gitx.DeleteRefCAS(s.Root(), j.Worktree.Branch, j.Commit)
	if err == nil {
		_, err = s.Git.Run(ctx, del)
	}
	j.BranchGone = err == nil
	// After the branch's delete, so the event says whether it went.
	emitWorktree(s, r.commonDir, core.EventRemoved, j)
	if err != nil {
		warn("kept branch %s: it no longer points at the landed %s", core.Escape(j.Worktree.Branch), core.Short(j.Commit))
	}
}

// claimKeeps says why the clean-up keeps t, claim and all ("" when it does not): a lock
// copse did not write, or a claim of a session other than the landing one (or than the
// claim a person approved taking over). It only reads; the clean-up and land's dry run
// both decide on it.
func claimKeeps(t gitx.Worktree, session string, takeOver *core.Claim) string {
	if t.Locked == nil {
		return ""
	}
	cl, ok := core.ParseClaim(*t.Locked)
	if !ok {
		return fmt.Sprintf("kept %s: it is locked by someone else (%s)", core.Escape(t.Path), core.Escape(*t.Locked))
	}
	if cl.Session != session && !sameClaim(&cl, takeOver) {
		return fmt.Sprintf("kept %s: it is claimed by session %s since %s", core.Escape(t.Path), cl.Session, cl.Since.Format(time.RFC3339))
	}
	return ""
}

// worktreeKeeps says why the clean-up keeps the landed worktree t once its claim is
// released ("" when it would remove it): copse runs in it, a process works in it, or a
// remove would lose anything (the same answer remove refuses on and prune keeps on; what
// goes is recorded first, so no record, no remove). It returns the losses it read. It only
// reads; the clean-up and land's dry run both decide on it. beforeLand is the dry run's
// case: the branch's own commits are not landed yet, and the land is what puts them on the
// target, so they are not counted as lost.
func worktreeKeeps(s *core.Env, ctx context.Context, t gitx.Worktree, ws string, beforeLand bool) (core.Losses, string) {
	if own := s.OwnWindow(ctx, t.Path); own != "" {
		// copse runs in the worktree's own tmux window, which closes once copse has
		// answered (closeOwnWindow): the shell that started copse, and copse, go with it;
		// anything else working there keeps the worktree.
		if l := s.Backend.WorkspaceLive(ctx, t.Path, own); len(l.Procs) > 0 || l.Unknown != "" {
			return core.Losses{}, fmt.Sprintf("kept %s: %s; remove it when they end (`copse remove %s`)", core.Escape(t.Path), l.KeptBy(), core.QuoteDisplay(t.Path))
		}
	} else if cur := s.Current(); cur != "" && core.Canonical(cur) == core.Canonical(t.Path) {
		return core.Losses{}, fmt.Sprintf("kept %s: copse runs inside it; remove it from elsewhere (`copse remove %s`)", core.Escape(t.Path), core.QuoteDisplay(t.Path))
	} else if l := s.Backend.WorkspaceLive(ctx, t.Path, ws); len(l.Procs) > 0 {
		// Judged as remove judges them: the idle shells of the worktree's window (ws) do
		// not keep it.
		return core.Losses{}, liveKeeps(t.Path, l)
	}
	l := removal.Losses(s, ctx, t)
	if beforeLand {
		l.Unique = 0
	}
	if reason, detail := core.PruneKeep(t, l); reason != "" {
		return l, fmt.Sprintf("kept %s: %s (%s)", core.Escape(t.Path), detail, reason)
	}
	return l, ""
}

// liveKeeps is the clean-up's warning for a worktree processes work in: landed work is
// safe, the processes' directory is not, so they keep it.
func liveKeeps(path string, l core.LiveSet) string {
	return fmt.Sprintf("kept %s: %s working in it (%s); remove it when they end (`copse remove %s`)",
		core.Escape(path), core.Plural(len(l.Procs), "process"), core.DescribeProcs(l.Procs), core.QuoteDisplay(path))
}

func emitWorktree(s *core.Env, commonDir, event string, j *core.LandJob) {
	ev := core.Event{Event: event, Repo: s.Root(), Job: j.Job, Session: j.Session,
		Worktree: &core.EventWorktree{ID: j.Worktree.ID, Path: j.Worktree.Path, Branch: j.Worktree.Branch}}
	if event == core.EventRemoved {
		ev.Commit, ev.BranchDeleted = j.Commit, j.BranchGone
	}
	if _, err := eventlog.Append(commonDir, ev); err != nil {
		j.Warnings = append(j.Warnings, "could not record the "+event+" event: "+core.Escape(err.Error()))
	}
}
