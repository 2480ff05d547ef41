package claim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

func prepareClaim(s *core.Env, ctx context.Context, req core.Request, snap core.Snapshot) (*core.Plan, error) {
	var (
		path, branch, session *string
		force, release        bool
		verb                  = "claim"
	)
	switch r := req.(type) {
	case core.ClaimRequest:
		path, branch, session, force = r.Path, r.Branch, r.Session, r.Force
	case core.ReleaseRequest:
		path, branch, session, force, release, verb = r.Path, r.Branch, r.Session, r.Force, true, "release"
	}
	t, _, err := s.ResolveTarget(ctx, snap, path, branch, nil)
	if err != nil {
		return nil, err
	}
	if e := core.RuleClaimable(t, snap); e != nil {
		return nil, e
	}
	c := &core.ClaimSpec{Release: release, Target: t, Force: force, Cwd: s.Root()}
	if release && force {
		// A forced release needs no session: it is the way out when the holder is gone.
		if c.Session, _, err = core.ResolveSession(session, s.Opts.Getenv); err != nil {
			return nil, err
		}
	} else if c.Session, err = core.RequireSession(session, s.Opts.Getenv, verb); err != nil {
		return nil, err
	}
	c.Held, c.Human = core.ClaimHolder(t.Locked)
	warnings, e := claimVerdict(c, verb)
	if e != nil {
		return nil, e
	}
	cmds, err := claimCommands(c)
	if err != nil {
		return nil, err
	}
	p := &core.Plan{Request: req, Cmd: c, Commands: cmds, Warnings: warnings}
	if force {
		p.Confirm = claimConfirmation(c)
	}
	return p, nil
}

// claimVerdict decides a claim or release (verb): nothing to do when this session holds
// the claim already (a warning says so), else the first rule that refuses it.
func claimVerdict(c *core.ClaimSpec, verb string) ([]string, *core.Error) {
	var warnings []string
	if !c.Release && c.Held != nil && c.Held.Session == c.Session.String() {
		c.Already = true
		warnings = append(warnings, fmt.Sprintf("%s is already claimed by session %s (since %s); nothing changed",
			core.Escape(c.Target.Path), c.Session.String(), c.Held.Since.Format(time.RFC3339)))
	} else {
		for _, rule := range []func() *core.Error{
			func() *core.Error { return core.RuleNotClaimedByOther(c) },
			func() *core.Error { return core.RuleNotLockedByHuman(c, verb) },
			func() *core.Error { return core.RuleIsClaimed(c) },
			func() *core.Error { return core.RuleClaimIsOurs(c) },
		} {
			if e := rule(); e != nil {
				return nil, e
			}
		}
	}
	if !c.Release {
		if e := core.RuleNotPrunable(c.Target); e != nil {
			return nil, e
		}
	}
	return warnings, nil
}

// claimCommands are the git commands a claim or release runs, for the plan.
func claimCommands(c *core.ClaimSpec) ([]string, error) {
	if c.Already {
		return nil, nil
	}
	var cmds []string
	if c.Target.Locked != nil {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		cmds = append(cmds, un.String())
	}
	if !c.Release {
		lk, err := gitx.WorktreeLock(c.Cwd, c.Target.Path, core.FormatClaim(core.Claim{Session: c.Session.String(), Since: time.Now()}))
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		cmds = append(cmds, lk.String())
	}
	return cmds, nil
}

// claimConfirmation is what a forced claim or release asks: whose claim, or which lock a
// person wrote, goes.
func claimConfirmation(c *core.ClaimSpec) *core.Confirmation {
	title := "Claim this worktree (forced)?"
	if c.Release {
		title = "Release this worktree (forced)?"
	}
	conf := &core.Confirmation{Title: title}
	conf.Add("path", c.Target.Path)
	if c.Target.Branch != "" {
		conf.Add("branch", c.Target.Branch)
	}
	if !c.Session.IsZero() {
		conf.Add("session", c.Session.String())
	}
	switch {
	case c.Held != nil && c.Held.Session != c.Session.String():
		conf.Losses = append(conf.Losses, fmt.Sprintf("session %s holds it since %s and loses its claim",
			c.Held.Session, c.Held.Since.Format(time.RFC3339)))
	case c.Human != nil:
		conf.Losses = append(conf.Losses, "a lock copse did not write is removed: "+core.Escape(core.LockedReason(*c.Human)))
	}
	return conf
}

// runClaim locks or unlocks under the repository lock and reads git back: the claim is
// what `git worktree list` shows afterwards, nothing else.
func runClaim(s *core.Env, ctx context.Context, c *core.ClaimSpec, x *core.Execution) (*core.Outcome, error) {
	op := core.OpClaim
	if c.Release {
		op = core.OpRelease
	}
	warnings := x.Warnings()
	if c.Already {
		return &core.Outcome{Operation: op, Worktree: s.Row(c.Target, ""), Path: c.Target.Path, Claim: c.Held, Warnings: warnings}, nil
	}
	want := core.Claim{Session: c.Session.String(), Since: time.Now().UTC().Truncate(time.Second)}
	reason := core.FormatClaim(want)
	runErr, err := relock(s, ctx, c, reason)
	if err != nil {
		return nil, err
	}
	after, err := s.ReadBack(ctx)
	if err != nil {
		return nil, core.Uncertain(string(op)+"_unverified", err, "run `copse list` to see the claim",
			"%s of %s ran, but the worktree list could not be read back", op, core.Escape(c.Target.Path))
	}
	s.Learn(after)
	t, listed := core.Find(after, c.Target.Path)
	if !listed {
		return nil, core.Uncertain(string(op)+"_not_listed", runErr, "run `copse list`",
			"%s of %s ran, but git no longer lists the worktree", op, core.Escape(c.Target.Path))
	}
	ok := (c.Release && t.Locked == nil) || (!c.Release && t.Locked != nil && *t.Locked == reason)
	if !ok {
		if runErr != nil && core.LockUnchanged(c.Target.Locked, t.Locked) {
			if errors.Is(runErr, context.Canceled) || core.IsGitKind(runErr, gitx.ErrCanceled) {
				return nil, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: runErr, Message: string(op) + " of " + core.Escape(c.Target.Path) + " cancelled; nothing changed"}
			}
			return nil, core.GitFailure(string(op)+"_failed", runErr, "git could not "+string(op)+" the worktree")
		}
		state := "unlocked"
		if t.Locked != nil {
			state = "locked: " + core.Escape(core.LockedReason(*t.Locked))
		}
		return nil, core.Uncertain(string(op)+"_uncertain", runErr, "run `copse list` and claim or release again as needed",
			"%s of %s did not end as asked; the worktree is now %s", op, core.Escape(c.Target.Path), state)
	}
	out := &core.Outcome{Operation: op, Worktree: s.Row(t, ""), Path: t.Path, Warnings: warnings}
	ev, previous := claimEvent(c)
	out.Previous = previous
	if !c.Release {
		out.Claim = &want
	}
	x.Emit(ev, out.Worktree)
	return out, nil
}

// relock unlocks (when locked) and, for a claim, locks with reason. runErr is git's
// answer, judged once the list is read back; err is a command that could not be built.
func relock(s *core.Env, ctx context.Context, c *core.ClaimSpec, reason string) (runErr, err error) {
	unlocked := false
	if c.Target.Locked != nil {
		un, err := gitx.WorktreeUnlock(c.Cwd, c.Target.Path)
		if err != nil {
			return nil, core.BuilderErr(err)
		}
		if _, runErr = s.Git.Run(ctx, un); runErr == nil {
			unlocked = true
		}
	}
	if runErr != nil || c.Release {
		return runErr, nil
	}
	lk, err := gitx.WorktreeLock(c.Cwd, c.Target.Path, reason)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	// Once the old lock is gone, the new one is written even if the caller gave up
	// meanwhile: a takeover must not end with the worktree unclaimed.
	lctx := ctx
	if unlocked {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
		defer cancel()
	}
	_, runErr = s.Git.Run(lctx, lk)
	return runErr, nil
}

// claimEvent is the event a claim or release that happened records, and the session
// that lost its claim to it ("" when none did).
func claimEvent(c *core.ClaimSpec) (core.Event, string) {
	ev := core.Event{Event: core.EventClaimed, Session: c.Session.String()}
	if c.Release {
		ev.Event = core.EventReleased
		if c.Held == nil {
			ev.Reason = "forced: a lock copse did not write"
			return ev, ""
		}
		ev.Session = c.Held.Session
		if c.Held.Session != c.Session.String() {
			ev.Reason = "forced"
			return ev, c.Held.Session
		}
		return ev, ""
	}
	if c.Held != nil {
		ev.Previous = c.Held.Session
		return ev, c.Held.Session
	}
	if c.Human != nil {
		ev.Reason = "took over a lock copse did not write"
	}
	return ev, ""
}
