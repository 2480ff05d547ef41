package core

import (
	"context"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// prepareCreateClaim reads create's claim and session: with claim, the session is
// required, and the lock command joins the create's commands.
func (s *Env) prepareCreateClaim(r CreateRequest, c *createCmd, cmds []string) ([]string, error) {
	if !r.Claim {
		if r.Session != nil {
			id, err := ParseSession("session", *r.Session)
			if err != nil {
				return nil, err
			}
			c.session = id
		}
		return cmds, nil
	}
	id, err := RequireSession(r.Session, s.Opts.Getenv, "create --claim")
	if err != nil {
		return nil, err
	}
	c.session, c.claim = id, true
	lk, err := gitx.WorktreeLock(c.cwd, c.path.String(), FormatClaim(Claim{Session: id.s, Since: time.Now()}))
	if err != nil {
		return nil, BuilderErr(err)
	}
	return append(cmds, lk.String()), nil
}

// runCreateClaim is create, then, still under the same lock, the claim: no other copse
// can see the new worktree unclaimed.
func (s *Env) runCreateClaim(ctx context.Context, c *createCmd, x *Execution) (*Outcome, error) {
	out, err := s.runCreate(ctx, c, x.Before, x.Warnings())
	if err != nil {
		return out, err
	}
	if !c.claim {
		createdEvents(x, out)
		return out, nil
	}
	want := Claim{Session: c.session.s, Since: time.Now().UTC().Truncate(time.Second)}
	reason := FormatClaim(want)
	lk, err := gitx.WorktreeLock(c.cwd, out.Path, reason)
	if err != nil {
		return nil, BuilderErr(err)
	}
	// The worktree exists now; the claim is written even if the caller gave up meanwhile.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
	defer cancel()
	_, runErr := s.Git.Run(lctx, lk)
	after, rerr := s.ReadBack(ctx)
	if rerr == nil {
		s.Learn(after)
		if t, ok := Find(after, out.Path); ok && t.Locked != nil && *t.Locked == reason {
			out.Worktree = s.Row(t, out.WorkspaceID)
			out.Claim = &want
			createdEvents(x, out)
			return out, nil
		}
	}
	// Created but not claimed: say so, and still log the create that happened.
	createdEvents(x, out)
	id := quoteDisplay(out.Path)
	if out.Worktree != nil && out.Worktree.ID != "" {
		id = "id:" + out.Worktree.ID
	}
	cause := runErr
	if cause == nil {
		cause = rerr
	}
	return nil, Uncertain(CodeClaimAfterCreateFailed, cause, "claim it now: `copse claim "+id+" --session "+quoteDisplay(c.session.s)+"`",
		"created %s, but could not confirm its claim for session %s", Escape(out.Path), c.session.s)
}
