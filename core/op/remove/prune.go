package remove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/liveproc"
)

// Prune removes worktrees nobody needs: clean, unclaimed, not landing, holding no commit
// found on no other branch or remote, and idle longer than older-than. Everything else is
// kept, each with its reason. Entries whose directory is gone are forgotten with `git
// worktree prune`, which skips locked ones by itself.

type pruneCand struct {
	t       gitx.Worktree
	id      string
	ws      string // its workspace (tmux window, Herdr workspace), closed with it; "" when none
	head    string
	ignored string // the ignored files removing it deletes, for the confirmation
	// record: a worktree whose directory is gone is recorded first only when its admin
	// directory holds commits nothing else does (a removed one always is); held says
	// which, unescaped, for the confirmation.
	record bool
	held   string
}

type pruneCmd struct {
	report       core.PruneReport
	remove       []pruneCand
	forget       []pruneCand
	deleteBranch bool
	dryRun       bool
	cwd          string
}

// ParseIdle reads an idle threshold: a Go duration ("90m", "72h"), whole days ("3d") or
// weeks ("2w"), at most 100 years, or "never" (nothing is pruned for being idle).
func ParseIdle(field, raw string) (time.Duration, error) {
	if err := core.CheckText(field, raw, 32); err != nil {
		return 0, err
	}
	d, err := core.ParseSpan(raw, core.IdleRule)
	if err != nil {
		return 0, core.SpanError(core.CodeBadDuration, field, raw, core.IdleRule, err, "use a duration such as 72h, 90m or 3d")
	}
	return d, nil
}

func pruneAfter(s *core.Env, ctx context.Context, r core.PruneRequest) (time.Duration, error) {
	if r.OlderThan != nil {
		return ParseIdle("older_than", *r.OlderThan)
	}
	v, ok, err := s.Git.ConfigValue(ctx, s.Root(), core.PruneAfterConfig)
	if err != nil {
		return 0, core.GitFailure(core.CodeConfigFailed, err, "cannot read git config "+core.PruneAfterConfig)
	}
	if !ok {
		return core.DefaultPruneAfter, nil
	}
	d, perr := ParseIdle(core.PruneAfterConfig, strings.TrimSpace(v))
	if perr != nil {
		e := core.AsError(perr)
		fix := "fix it: `git config " + core.PruneAfterConfig + " 72h` (or pass --older-than)"
		if e.Code == core.CodeDurationTooLong {
			e.Hint += "; " + fix
		} else {
			e.Hint = fix
		}
		return 0, e
	}
	return d, nil
}

func preparePrune(s *core.Env, ctx context.Context, r core.PruneRequest, snap core.Snapshot) (*core.Plan, error) {
	older, err := pruneAfter(s, ctx, r)
	if err != nil {
		return nil, err
	}
	// The retentions are read now, before anything is removed: a bad or huge one refuses
	// the prune (exit 2, nothing changed) instead of surfacing as a warning after the
	// worktrees are gone.
	for _, key := range []string{core.KeepRemovedKey, core.KeepLandsKey} {
		if _, err := s.KeepFor(ctx, key); err != nil {
			return nil, err
		}
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	c := &pruneCmd{deleteBranch: r.DeleteBranch, dryRun: r.DryRun, cwd: s.Root()}
	c.report = core.PruneReport{OlderThan: core.FormatSpan(older), Removed: []core.PruneEntry{}, Forgotten: []core.PruneEntry{}, Kept: []core.PruneEntry{}}
	// The worktrees' workspaces: their idle shells are judged as remove judges them, and a
	// worktree's window or workspace is closed with it.
	wsOf, err := s.WorkspacesOf(ctx, snap)
	if err != nil {
		return nil, err
	}
	sc := &pruneScan{commonDir: commonDir, ids: core.WorktreeIDs(commonDir), jobs: landJobs(commonDir), now: time.Now(), older: older, live: &core.LiveScan{}, wsOf: wsOf}
	for _, t := range snap.Trees {
		if !t.Bare && t.Prunable == nil {
			sc.live.Paths = append(sc.live.Paths, t.Path)
		}
	}
	for i, t := range snap.Trees {
		e, cand, fate := judgeForPrune(s, ctx, sc, i, t)
		switch fate {
		case pruneKept:
			c.report.Kept = append(c.report.Kept, e)
		case pruneForgotten:
			c.report.Forgotten = append(c.report.Forgotten, e)
			c.forget = append(c.forget, cand)
		case pruneRemoved:
			c.report.Removed = append(c.report.Removed, e)
			c.remove = append(c.remove, cand)
		}
	}
	cmds, err := pruneCommands(s, c)
	if err != nil {
		return nil, err
	}
	p := &core.Plan{Request: r, Cmd: c, Commands: cmds, Warnings: sc.warnings}
	if !r.DryRun && (len(c.remove) > 0 || len(c.forget) > 0) {
		p.Confirm = pruneConfirmation(c, older, sc.warnings)
		p.Warnings = p.Confirm.Warnings
	}
	return p, nil
}

// pruneScan is what prune reads once for all worktrees, and the warnings judging them gave.
type pruneScan struct {
	commonDir  string
	ids        map[string]string
	jobs       landIndex
	now        time.Time
	older      time.Duration
	live       *core.LiveScan
	wsOf       map[string]string // worktree path → its workspace
	liveWarned bool
	warnings   []string
}

// pruneFate is where a worktree goes in prune's report.
type pruneFate int

const (
	pruneKept pruneFate = iota
	pruneForgotten
	pruneRemoved
)

// judgeForPrune reads what prune needs about the worktree t (the i-th git lists), cheapest
// first, and gives its report entry and fate; a candidate to remove comes with what the
// confirmation says about it.
func judgeForPrune(s *core.Env, ctx context.Context, sc *pruneScan, i int, t gitx.Worktree) (core.PruneEntry, pruneCand, pruneFate) {
	e := core.PruneEntry{Path: t.Path, Branch: t.Branch}
	if !t.Bare && i > 0 {
		e.ID = core.IdOf(sc.ids, t.Path)
	}
	kept := func(reason, detail string) (core.PruneEntry, pruneCand, pruneFate) {
		e.Reason, e.Detail = reason, detail
		return e, pruneCand{}, pruneKept
	}
	ended := t.Locked != nil && s.ClaimEnded(t)
	if reason, detail := pruneStays(i == 0, s.Current() != "" && core.Canonical(s.Current()) == core.Canonical(t.Path), ended, t); reason == core.PruneGone {
		return judgeGone(s, ctx, e, t, detail)
	} else if reason != "" {
		if reason == core.KeepLocked {
			reason, detail = core.AgentLockKeep(t, sc.commonDir, e.ID, reason, detail)
		}
		return kept(reason, detail)
	}
	if j, ok := sc.jobs.find(e.ID, t.Path); ok {
		return kept(landKeep(j))
	}
	// One answer to "what would be lost", the one remove refuses on.
	l := removal.Losses(s, ctx, t)
	if reason, detail := core.PruneKeep(t, l); reason != "" {
		return kept(reason, detail)
	}
	// A process working in it is activity: the idle test below reads only git's files.
	// In a worktree with a workspace, the backend judges as for remove (its idle shells
	// do not count); the others share one scan.
	ws := sc.wsOf[t.Path]
	var procs []liveproc.Proc
	var unknown string
	if ws != "" {
		l := s.Backend.WorkspaceLive(ctx, t.Path, ws)
		procs, unknown = l.Procs, l.Unknown
	} else {
		procs, unknown = sc.live.In(t.Path)
	}
	if len(procs) > 0 {
		return kept(core.KeepProcesses, core.LiveDetail(core.LiveSet{Procs: procs}))
	}
	if unknown != "" && !sc.liveWarned {
		sc.liveWarned = true
		sc.warnings = append(sc.warnings, "idle means no git activity only: "+unknown)
	}
	idle, known := idleFor(sc.commonDir, e.ID, sc.now)
	if known {
		e.Idle = idle.Round(time.Second).String()
	}
	if reason, detail := idleKeep(idle, known, sc.older); reason != "" {
		return kept(reason, detail)
	}
	e.Reason, e.Detail = core.PruneIdle, "idle "+e.Idle+", clean, nothing unique"
	cand := pruneCand{t: t, id: e.ID, ws: ws, head: t.Head}
	if l.Ignored > 0 {
		// Deleted with it, as by remove: named, refusing nothing.
		e.Detail += "; " + core.Plural(l.Ignored, "ignored file") + " deleted with it: " + core.Sample(l.IgnoredSample, l.Ignored)
		cand.ignored = ignoredRaw(l)
	}
	return e, cand, pruneRemoved
}

// judgeGone judges a worktree whose directory is gone: its admin directory may still hold
// a detached HEAD, a HEAD reflog and refs/worktree/* with commits nothing else has. Those
// are recorded first (as a removal is), so forgetting it loses nothing; what cannot be
// read keeps it.
func judgeGone(s *core.Env, ctx context.Context, e core.PruneEntry, t gitx.Worktree, detail string) (core.PruneEntry, pruneCand, pruneFate) {
	l := removal.Losses(s, ctx, t)
	if l.Status.Error != "" {
		e.Reason, e.Detail = core.KeepStatusUnknown, "directory gone, and cannot tell what its admin directory holds: "+l.Status.Error
		return e, pruneCand{}, pruneKept
	}
	if l.Status.Dirty() {
		e.Reason, e.Detail = core.KeepDirty, "directory gone, and its index holds "+core.Plural(l.Status.Staged, "staged change")+" no commit has"
		return e, pruneCand{}, pruneKept
	}
	if len(l.Submodules) > 0 {
		// A submodule repository with commits on no remote: what no record can keep.
		e.Reason, e.Detail = core.KeepSubmodule, fmt.Sprintf("directory gone, and its admin directory keeps %s whose commits go with it: %s",
			core.Plural(len(l.Submodules), "submodule repository"), core.HeldNames(l.Submodules))
		return e, pruneCand{}, pruneKept
	}
	e.Reason, e.Detail = core.PruneGone, detail
	cand := pruneCand{t: t, id: e.ID, head: t.Head, record: len(l.Keep) > 0}
	if cand.record {
		e.Detail += "; recorded first: it holds " + gone(l, core.Escape)
		cand.held = "recorded first: it holds " + gone(l, func(s string) string { return s })
	}
	return e, cand, pruneForgotten
}

// gone says what the admin directory of a worktree whose directory is gone holds that
// nothing else does: "2 commits only it held (detached HEAD, HEAD reflog, refs/worktree/x)",
// the ref names passed through esc.
func gone(l core.Losses, esc func(string) string) string {
	n := l.HeldCount()
	var where []string
	if l.Detached > 0 {
		where = append(where, "detached HEAD")
	}
	if l.Reflog > 0 {
		where = append(where, "HEAD reflog")
	}
	for _, r := range l.WorktreeRefs {
		where = append(where, esc(r))
	}
	return core.Plural(n, "commit") + " only it held (" + strings.Join(where, ", ") + ")"
}

// pruneStays is why prune keeps t before reading anything about it (reason "" when
// nothing keeps it yet), or PruneGone when git already knows its directory is gone.
// ended: t's lock is a claim whose --run command ended, which keeps nothing.
func pruneStays(first, current, ended bool, t gitx.Worktree) (string, string) {
	switch {
	case first || t.Bare:
		return core.KeepMain, "the main checkout"
	case current:
		return core.KeepCurrent, "copse is running in it"
	case t.Locked != nil && !ended:
		if cl, ok := core.ParseClaim(*t.Locked); ok {
			return core.KeepClaimed, fmt.Sprintf("claimed by session %s since %s", cl.Session, cl.Since.Format(time.RFC3339))
		}
		return core.KeepLocked, "locked by a human: " + core.Escape(core.LockedReason(*t.Locked))
	case t.Prunable != nil:
		return core.PruneGone, "directory gone: " + core.Escape(*t.Prunable)
	}
	return "", ""
}

// landKeep is why prune keeps a worktree a land job still holds.
func landKeep(j landJob) (string, string) {
	if j.blocked {
		return core.KeepBlocked, "its land is blocked" + j.detail
	}
	return core.KeepLanding, "a land job is queued or running" + j.detail
}

// idleKeep is why prune keeps a worktree idle for idle (known: that can be told) against
// the threshold older ("" when it is idle long enough).
func idleKeep(idle time.Duration, known bool, older time.Duration) (string, string) {
	switch {
	case !known:
		return core.KeepNotIdle, "cannot tell how long it has been idle"
	case older == core.Never:
		return core.KeepNotIdle, "idle " + idle.Round(time.Second).String() + "; the idle threshold is never"
	case idle < older:
		return core.KeepNotIdle, "idle " + idle.Round(time.Second).String() + ", less than " + core.FormatSpan(older)
	}
	return "", ""
}

// ignoredRaw names the ignored files removing it deletes, unescaped: the confirmation
// escapes its fields itself.
func ignoredRaw(l core.Losses) string {
	names := l.IgnoredSample[:min(len(l.IgnoredSample), 3)]
	out := core.Plural(l.Ignored, "ignored file") + " deleted with it: " + strings.Join(names, ", ")
	if more := l.Ignored - len(names); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// pruneCommands are the commands prune would run, for the plan.
func pruneCommands(s *core.Env, c *pruneCmd) ([]string, error) {
	var cmds []string
	for _, cand := range c.remove {
		if cand.t.Locked != nil {
			// Only an ended claim's lock reaches here (pruneStays keeps every other).
			un, err := gitx.WorktreeUnlock(c.cwd, cand.t.Path)
			if err != nil {
				return nil, core.BuilderErr(err)
			}
			cmds = append(cmds, un.String())
		}
		rm, err := removal.UnforcedRemoveCommands(s, cand.t, cand.ws)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, rm...)
		if c.deleteBranch && cand.t.Branch != "" {
			bd, err := gitx.BranchDelete(c.cwd, cand.t.Branch, true)
			if err != nil {
				return nil, core.BuilderErr(err)
			}
			cmds = append(cmds, bd.String())
		}
	}
	for _, cand := range c.forget {
		// One by one, not `git worktree prune`: that forgets every worktree git finds gone,
		// the ones not shown, and the ones whose commits were not recorded, alike.
		rm, err := gitx.WorktreeRemove(c.cwd, cand.t.Path, false, false)
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		cmds = append(cmds, rm.String())
	}
	return cmds, nil
}

// pruneConfirmation asks before prune removes or forgets anything: what goes, what stays
// and why.
func pruneConfirmation(c *pruneCmd, older time.Duration, warnings []string) *core.Confirmation {
	var what []string
	if n := len(c.remove); n > 0 {
		what = append(what, "remove "+core.Plural(n, "idle worktree"))
	}
	if n := len(c.forget); n > 0 {
		what = append(what, "forget "+core.Plural(n, "worktree")+" whose directory is gone")
	}
	conf := &core.Confirmation{Title: "Prune: " + strings.Join(what, " and ") + "?", Warnings: warnings}
	for i, e := range c.report.Removed {
		v := e.Path
		if e.Branch != "" {
			v += " (" + e.Branch + ")"
		}
		if ig := c.remove[i].ignored; ig != "" {
			v += "; " + ig
		}
		conf.Add("remove", v)
	}
	for i, e := range c.report.Forgotten {
		v := e.Path
		if h := c.forget[i].held; h != "" {
			v += "; " + h
		}
		conf.Add("forget", v)
	}
	if c.deleteBranch {
		conf.Warnings = append(conf.Warnings, "their branches are deleted too (they hold no unique commits)")
	}
	if len(c.remove) > 0 {
		conf.Notices = append(conf.Notices, "each is recorded first: `copse restore ID` brings it back (ignored files are not kept)")
	}
	for _, e := range c.report.Kept {
		// What stays is information (the report lists it again), not a warning.
		conf.Notices = append(conf.Notices, "keeps "+core.Escape(e.Path)+": "+keptWhy(e, older))
	}
	return conf
}

// keptWhy is why a worktree stays, in words that do not change while the confirmation is
// open (its digest covers them): no idle times, no land phases, no process names.
func keptWhy(e core.PruneEntry, older time.Duration) string {
	switch e.Reason {
	case core.KeepNotIdle:
		if older == core.Never {
			return "the idle threshold is never"
		}
		return "not idle for " + core.FormatSpan(older) + " yet"
	case core.KeepLanding:
		return "a land job is queued or running"
	case core.KeepProcesses:
		return "processes work in it"
	}
	return e.Detail
}

// idleFor is how long the worktree has been idle: since the newest of its index and
// HEAD log (git touches these on every checkout, commit, add, reset), falling back to
// HEAD itself when there is no reflog.
func idleFor(commonDir, id string, now time.Time) (time.Duration, bool) {
	if id == "" {
		return 0, false
	}
	admin := core.AdminDir(commonDir, id)
	var newest time.Time
	for _, name := range []string{"index", filepath.Join("logs", "HEAD"), "HEAD"} {
		if st, err := os.Stat(filepath.Join(admin, name)); err == nil && st.ModTime().After(newest) {
			newest = st.ModTime()
		}
	}
	if newest.IsZero() {
		return 0, false
	}
	return max(now.Sub(newest), 0), true
}

// runPrune removes, under the lock, the worktrees that are prunable now AND were shown
// in the confirmation; a worktree that changed since is kept with its new reason.
func runPrune(s *core.Env, ctx context.Context, fresh *pruneCmd, x *core.Execution) (*core.Outcome, error) {
	p, freshPlan := x.Asked, x.Plan
	out := &core.Outcome{Operation: core.OpPrune, DryRun: fresh.dryRun, Prune: &fresh.report, Warnings: freshPlan.Warnings}
	if fresh.dryRun {
		out.Commands = freshPlan.Commands
		dropExpiredRecords(s, ctx, out, true)
		return out, nil
	}
	shown := shownIn(p, func(c *pruneCmd) []pruneCand { return c.remove })
	rep := &fresh.report
	removed := rep.Removed
	rep.Removed = []core.PruneEntry{}
	for i, cand := range fresh.remove {
		e := removed[i]
		if !shown[core.Canonical(cand.t.Path)] {
			e.Reason, e.Detail = core.KeepNotConfirmed, "became prunable after the confirmation was shown; prune again"
			rep.Kept = append(rep.Kept, e)
			continue
		}
		if ctx.Err() != nil {
			e.Reason, e.Detail = core.KeepNotConfirmed, "not removed: cancelled"
			rep.Kept = append(rep.Kept, e)
			continue
		}
		// Recorded first, like a forced remove: `copse restore ID` brings it back. The
		// processes are looked at again right before git removes it.
		r, err := removal.RemoveOne(s, ctx, removal.RemoveStep{Target: cand.t, Record: true, DeleteBranch: fresh.deleteBranch,
			Run: removal.UnforcedRemoval(s, cand.t, cand.ws, s.Git)})
		if rerr, ok := removal.IsReadBack(err); ok {
			return nil, core.Uncertain(core.CodePruneUnverified, rerr, "run `copse list` to see what exists",
				"prune removed %s, but the worktree list could not be read back", core.Escape(cand.t.Path))
		}
		if err != nil {
			e.Reason, e.Detail = pruneNotRecorded(err)
			rep.Kept = append(rep.Kept, e)
			continue
		}
		switch r.Verdict {
		case removal.RemovalNothing:
			e.Reason, e.Detail = core.KeepRemoveRefused, pruneRefusedDetail(r.RunErr)
			if l, ok := removal.StillLive(r.RunErr); ok {
				e.Reason, e.Detail = core.KeepProcesses, core.LiveDetail(l)
			}
			rep.Kept = append(rep.Kept, e)
			continue
		case removal.RemovalPartial, removal.RemovalIncomplete:
			return nil, core.Uncertain(core.CodePruneIncomplete, r.RunErr, "run `copse list`; `git worktree prune` forgets a worktree whose directory is gone",
				"%s", removal.RemoveState(cand.t.Path, r.Listed, r.OnDisk))
		}
		if r.Verdict == removal.RemovalGoneAnyway && r.RunErr != nil {
			// Gone, but a step after git's failed (its window could not be closed): said.
			out.Warnings = append(out.Warnings, "removed "+core.Escape(cand.t.Path)+", but: "+core.AsError(r.RunErr).Message)
		}
		saved := r.Saved
		if fresh.deleteBranch && cand.t.Branch != "" {
			if pruneDeleteBranch(s, ctx, fresh.cwd, cand.t.Branch) {
				e.BranchDeleted = true
			} else {
				out.Warnings = append(out.Warnings, "branch "+core.Escape(cand.t.Branch)+" of "+core.Escape(cand.t.Path)+" could not be deleted")
			}
		}
		e.RestoreID = saved.ID
		rep.Removed = append(rep.Removed, e)
		x.Emit(core.Event{Event: core.EventPruned, Reason: core.PruneIdle, Commit: cand.head, BranchDeleted: e.BranchDeleted},
			&core.Worktree{ID: e.ID, Path: e.Path, Branch: e.Branch})
	}
	if err := forgetGone(s, ctx, fresh, p, x, out); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: ctx.Err(),
			Message: fmt.Sprintf("prune cancelled after removing %d worktrees", len(rep.Removed))}
	}
	dropExpiredRecords(s, ctx, out, false)
	return out, nil
}

// shownIn is the worktrees (canonical paths) the prune plan asked showed in one of its
// lists (which picks it): what a run may act on.
func shownIn(asked *core.Plan, which func(*pruneCmd) []pruneCand) map[string]bool {
	shown := map[string]bool{}
	if old, ok := asked.Cmd.(*pruneCmd); ok {
		for _, c := range which(old) {
			shown[core.Canonical(c.t.Path)] = true
		}
	}
	return shown
}

// forgetGone forgets, under the lock, the worktrees whose directory is gone that are so now
// AND were shown in the confirmation, each on its own (`git worktree remove` of a missing
// directory drops only its admin directory), recorded first when it holds commits.
func forgetGone(s *core.Env, ctx context.Context, fresh *pruneCmd, asked *core.Plan, x *core.Execution, out *core.Outcome) error {
	shown := shownIn(asked, func(c *pruneCmd) []pruneCand { return c.forget })
	rep := &fresh.report
	forgotten := rep.Forgotten
	rep.Forgotten = []core.PruneEntry{}
	for i, cand := range fresh.forget {
		e := forgotten[i]
		if !shown[core.Canonical(cand.t.Path)] || ctx.Err() != nil {
			e.Reason, e.Detail = core.KeepNotConfirmed, "its directory went after the confirmation was shown; prune again"
			if ctx.Err() != nil {
				e.Detail = "not forgotten: cancelled"
			}
			rep.Kept = append(rep.Kept, e)
			continue
		}
		rm, err := gitx.WorktreeRemove(fresh.cwd, cand.t.Path, false, false)
		if err != nil {
			return core.BuilderErr(err)
		}
		r, err := removal.RemoveOne(s, ctx, removal.RemoveStep{Target: cand.t, Record: cand.record,
			Run: func(ctx context.Context) error { _, err := s.Git.Run(ctx, rm); return err }})
		if rerr, ok := removal.IsReadBack(err); ok {
			return core.Uncertain(core.CodePruneUnverified, rerr, "run `copse list` to see what exists",
				"prune forgot %s, but the worktree list could not be read back", core.Escape(cand.t.Path))
		}
		if err != nil {
			e.Reason, e.Detail = pruneNotRecorded(err)
			rep.Kept = append(rep.Kept, e)
			continue
		}
		switch r.Verdict {
		case removal.RemovalNothing:
			e.Reason, e.Detail = core.KeepRemoveRefused, pruneRefusedDetail(r.RunErr)
			rep.Kept = append(rep.Kept, e)
			continue
		case removal.RemovalPartial, removal.RemovalIncomplete:
			return core.Uncertain(core.CodePruneIncomplete, r.RunErr, "run `copse list`",
				"%s", removal.RemoveState(cand.t.Path, r.Listed, r.OnDisk))
		}
		if r.Saved != nil {
			e.RestoreID = r.Saved.ID
		}
		rep.Forgotten = append(rep.Forgotten, e)
		x.Emit(core.Event{Event: core.EventPruned, Reason: core.PruneGone}, &core.Worktree{ID: e.ID, Path: e.Path, Branch: e.Branch})
	}
	return nil
}

// pruneNotRecorded is why prune keeps a worktree it could not record for restore first.
func pruneNotRecorded(err error) (string, string) {
	if core.AsError(err).Kind == core.KindCancelled {
		return core.KeepNotConfirmed, "not removed: cancelled"
	}
	return core.KeepRemoveRefused, "could not record it for restore first: " + core.AsError(err).Message
}

// pruneRefusedDetail says why a worktree git refused to remove stays.
func pruneRefusedDetail(runErr error) string {
	var e *core.Error
	if errors.As(runErr, &e) {
		return "not removed: " + e.Message // the backend's refusal, escaped already
	}
	msg := "git refused to remove it"
	if runErr != nil {
		msg += ": " + core.Escape(core.FirstLine(gitErrText(runErr)))
	}
	return msg
}

// dropExpiredRecords drops (dry: names) the restore and land records past their keep
// time into the report. It is house-keeping after the worktrees are done: a failure is a
// warning, never the prune's failure, and it keeps what it could not drop.
func dropExpiredRecords(s *core.Env, ctx context.Context, out *core.Outcome, dry bool) {
	now := time.Now()
	rep := out.Prune
	ids, err := removal.DropRemovedBefore(s, ctx, now, dry)
	rep.DroppedRestores = ids
	if err != nil {
		out.Warnings = append(out.Warnings, "expired restore records kept: "+core.AsError(err).Error())
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		out.Warnings = append(out.Warnings, "expired land records kept: "+core.AsError(err).Error())
		return
	}
	jobs, err := s.DropLandsBefore(ctx, commonDir, now, dry)
	rep.DroppedLands = jobs
	if err != nil {
		out.Warnings = append(out.Warnings, "expired land records kept: "+core.AsError(err).Error())
	}
}

func gitErrText(err error) string {
	var ge *gitx.Error
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
		return ge.Stderr
	}
	return err.Error()
}

// pruneDeleteBranch deletes a branch prune found to hold nothing unique, checking again
// under the lock first.
func pruneDeleteBranch(s *core.Env, ctx context.Context, cwd, branch string) bool {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
	defer cancel()
	if n, err := s.Git.UniqueCommits(rctx, cwd, branch); err != nil || n > 0 {
		return false
	}
	bd, err := gitx.BranchDelete(cwd, branch, true)
	if err != nil {
		return false
	}
	_, err = s.Git.Run(rctx, bd)
	still, err2 := s.Git.BranchExists(rctx, cwd, branch)
	return err == nil && err2 == nil && !still
}

// ---- land jobs (land writes them, core/landjobs stores them; prune only reads) ----

type landJob struct {
	blocked bool
	detail  string
}

type landIndex struct{ byID, byPath map[string]landJob }

func (l landIndex) find(id, path string) (landJob, bool) {
	if id != "" {
		if j, ok := l.byID[id]; ok {
			return j, true
		}
	}
	if j, ok := l.byPath[path]; ok {
		return j, true
	}
	j, ok := l.byPath[core.Canonical(path)]
	return j, ok
}

// landJobs reads the job records under <common>/copse/land/ (land-N.json, written by
// copse land): for each worktree its latest job (highest ticket) counts. queued or running
// marks it landing; blocked or uncertain (a step ran but its result is unknown) marks it
// blocked; any other final state (landed, abandoned, cancelled, failed) lets prune judge
// the worktree on its own. A record that does not parse is skipped.
func landJobs(commonDir string) landIndex {
	idx := landIndex{byID: map[string]landJob{}, byPath: map[string]landJob{}}
	type latest struct {
		ticket int64
		job    landJob
		skip   bool
	}
	byKey := map[string]*latest{}
	landjobs.Scan(landjobs.Dir(commonDir), func(name string, b []byte) {
		var rec struct {
			Worktree struct {
				ID   string `json:"id"`
				Path string `json:"path"`
			} `json:"worktree"`
			Ticket int64  `json:"ticket"`
			Job    string `json:"job"`
			State  string `json:"state"`
			Phase  string `json:"phase"`
			Code   string `json:"code"`
		}
		if json.Unmarshal(b, &rec) != nil || (rec.Worktree.ID == "" && rec.Worktree.Path == "") {
			return
		}
		if rec.Ticket == 0 {
			rec.Ticket, _ = strconv.ParseInt(strings.TrimPrefix(name, "land-"), 10, 64)
		}
		j := landJob{}
		skip := false
		switch strings.ToLower(rec.State) {
		case "queued", "running", "":
		case "blocked", "uncertain":
			j.blocked = true
		default:
			skip = true
		}
		job := core.FirstNonEmpty(rec.Job, name)
		j.detail = " (job " + core.Escape(job)
		switch {
		case j.blocked && rec.Code != "":
			j.detail += ": " + core.Escape(rec.Code)
		case j.blocked:
			j.detail += ": " + core.Escape(rec.State)
		case rec.Phase != "":
			j.detail += ", " + core.Escape(rec.Phase)
		}
		j.detail += ")"
		for _, key := range []string{"id:" + rec.Worktree.ID, "path:" + rec.Worktree.Path} {
			if key == "id:" || key == "path:" {
				continue
			}
			if l, ok := byKey[key]; ok && l.ticket > rec.Ticket {
				continue // a later job of the worktree counts
			}
			byKey[key] = &latest{ticket: rec.Ticket, job: j, skip: skip}
		}
	})
	for key, l := range byKey {
		if l.skip {
			continue
		}
		if id, ok := strings.CutPrefix(key, "id:"); ok {
			idx.byID[id] = l.job
		} else if p, ok := strings.CutPrefix(key, "path:"); ok {
			idx.byPath[p] = l.job
			idx.byPath[core.Canonical(p)] = l.job
		}
	}
	return idx
}
