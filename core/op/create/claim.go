package create

import (
	"context"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// prepareCreateClaim reads create's claim and session: with claim, the session is
// required, and the lock command joins the create's commands.
func prepareCreateClaim(s *core.Env, r core.CreateRequest, c *core.CreateSpec, cmds []string) ([]string, error) {
	if !r.Claim {
		if r.Session != nil {
			id, err := core.ParseSession("session", *r.Session)
			if err != nil {
				return nil, err
			}
			c.Session = id
		}
		return cmds, nil
	}
	id, err := core.RequireSession(r.Session, s.Opts.Getenv, "create --claim")
	if err != nil {
		return nil, err
	}
	c.Session, c.Claim = id, true
	lk, err := gitx.WorktreeLock(c.Cwd, c.Path.String(), core.FormatClaim(core.Claim{Session: id.String(), Since: time.Now()}))
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	return append(cmds, lk.String()), nil
}

// runCreateClaim is create, then, still under the same lock, the claim: no other copse
// can see the new worktree unclaimed.
func runCreateClaim(s *core.Env, ctx context.Context, c *core.CreateSpec, x *core.Execution) (*core.Outcome, error) {
	out, err := runCreate(s, ctx, c, x.Before, x.Warnings())
	if err != nil {
		return out, err
	}
	if !c.Claim {
		createdEvents(x, out)
		return out, nil
	}
	want := core.Claim{Session: c.Session.String(), Since: time.Now().UTC().Truncate(time.Second)}
	reason := core.FormatClaim(want)
	lk, err := gitx.WorktreeLock(c.Cwd, out.Path, reason)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	// The worktree exists now; the claim is written even if the caller gave up meanwhile.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
	defer cancel()
	_, runErr := s.Git.Run(lctx, lk)
	after, rerr := s.ReadBack(ctx)
	if rerr == nil {
		s.Learn(after)
		if t, ok := core.Find(after, out.Path); ok && t.Locked != nil && *t.Locked == reason {
			out.Worktree = s.Row(t, out.WorkspaceID)
			out.Claim = &want
			createdEvents(x, out)
			return out, nil
		}
	}
	// Created but not claimed: say so, and still log the create that happened.
	createdEvents(x, out)
	id := core.QuoteDisplay(out.Path)
	if out.Worktree != nil && out.Worktree.ID != "" {
		id = "id:" + out.Worktree.ID
	}
	cause := runErr
	if cause == nil {
		cause = rerr
	}
	return nil, core.Uncertain(core.CodeClaimAfterCreateFailed, cause, "claim it now: `copse claim "+id+" --session "+core.QuoteDisplay(c.Session.String())+"`",
		"created %s, but could not confirm its claim for session %s", core.Escape(out.Path), c.Session.String())
}
