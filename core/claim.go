package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Claim is a session's hold on a worktree: a git worktree lock whose reason copse wrote.
// Every git tool sees the lock; `git worktree remove` and `git worktree prune` respect it.
type Claim struct {
	Session string    `json:"session"`
	Since   time.Time `json:"since"`
	// Agent and PID, on a lock an agent wrote itself (Claude Code's "claude session <name>
	// (pid N)", see agentlock.go): which agent, and the process that holds it.
	Agent string `json:"agent,omitempty"`
	PID   int    `json:"pid,omitempty"`
	// Ended: the session is a create --run command's and the command ended (or its window
	// closed): the claim binds nothing, and remove, prune and land go ahead without
	// --force (the lock goes with the worktree). Listings only; never in a lock reason.
	Ended bool `json:"ended,omitempty"`
}

const (
	claimPrefix = "copse claim: session="
	claimSince  = " since="
)

// FormatClaim is the lock reason for c: "copse claim: session=<id> since=<RFC3339>".
func FormatClaim(c Claim) string {
	return claimPrefix + c.Session + claimSince + c.Since.UTC().Format(time.RFC3339)
}

// ParseClaim reads a lock reason that FormatClaim wrote. Any other reason (a human's
// `git worktree lock`, a lock with no reason) is not a claim: ok is false.
func ParseClaim(reason string) (Claim, bool) {
	rest, ok := strings.CutPrefix(reason, claimPrefix)
	if !ok {
		return Claim{}, false
	}
	sess, since, ok := strings.Cut(rest, claimSince)
	if !ok || sess == "" {
		return Claim{}, false
	}
	for _, r := range sess {
		if !sessionRune(r) {
			return Claim{}, false
		}
	}
	t, err := time.Parse(time.RFC3339, since)
	if err != nil {
		return Claim{}, false
	}
	return Claim{Session: sess, Since: t.UTC()}, true
}

// claimOf is the claim a worktree's lock records, if copse wrote it.
func claimOf(locked *string) *Claim {
	if locked == nil {
		return nil
	}
	if c, ok := ParseClaim(*locked); ok {
		return &c
	}
	return nil
}

// claimCmd claims or releases one worktree.
type claimCmd struct {
	release bool
	target  gitx.Worktree
	session SessionID // the requesting session (zero only for a forced release without one)
	force   bool
	held    *Claim  // the claim held before, if copse wrote the lock
	human   *string // the reason of a lock copse did not write
	already bool    // claim: this session holds it already; nothing to do
	cwd     string
}

func lockedReason(r string) string {
	if r == "" {
		return "no reason given"
	}
	return r
}

func (s *Env) prepareClaim(ctx context.Context, req Request, snap Snapshot) (*Plan, error) {
	var (
		path, branch, session *string
		force, release        bool
		verb                  = "claim"
	)
	switch r := req.(type) {
	case ClaimRequest:
		path, branch, session, force = r.Path, r.Branch, r.Session, r.Force
	case ReleaseRequest:
		path, branch, session, force, release, verb = r.Path, r.Branch, r.Session, r.Force, true, "release"
	}
	t, _, err := s.ResolveTarget(ctx, snap, path, branch, nil)
	if err != nil {
		return nil, err
	}
	if e := ruleClaimable(t, snap); e != nil {
		return nil, e
	}
	c := &claimCmd{release: release, target: t, force: force, cwd: s.Root()}
	if release && force {
		// A forced release needs no session: it is the way out when the holder is gone.
		if c.session, _, err = resolveSession(session, s.opts.Getenv); err != nil {
			return nil, err
		}
	} else if c.session, err = requireSession(session, s.opts.Getenv, verb); err != nil {
		return nil, err
	}
	c.held, c.human = lockHolder(t.Locked)
	warnings, e := claimVerdict(c, verb)
	if e != nil {
		return nil, e
	}
	cmds, err := claimCommands(c)
	if err != nil {
		return nil, err
	}
	p := &Plan{Request: req, Cmd: c, Commands: cmds, Warnings: warnings}
	if force {
		p.Confirm = claimConfirmation(c)
	}
	return p, nil
}

// lockHolder is who holds a lock: a session's claim copse wrote, or the reason of a lock
// it did not write (both nil when unlocked).
func lockHolder(locked *string) (*Claim, *string) {
	if locked == nil {
		return nil, nil
	}
	if cl, ok := ParseClaim(*locked); ok {
		return &cl, nil
	}
	r := *locked
	return nil, &r
}

// claimVerdict decides a claim or release (verb): nothing to do when this session holds
// the claim already (a warning says so), else the first rule that refuses it.
func claimVerdict(c *claimCmd, verb string) ([]string, *Error) {
	var warnings []string
	if !c.release && c.held != nil && c.held.Session == c.session.s {
		c.already = true
		warnings = append(warnings, fmt.Sprintf("%s is already claimed by session %s (since %s); nothing changed",
			Escape(c.target.Path), c.session.s, c.held.Since.Format(time.RFC3339)))
	} else {
		for _, rule := range []func() *Error{
			func() *Error { return ruleNotClaimedByOther(c) },
			func() *Error { return ruleNotLockedByHuman(c, verb) },
			func() *Error { return ruleIsClaimed(c) },
			func() *Error { return ruleClaimIsOurs(c) },
		} {
			if e := rule(); e != nil {
				return nil, e
			}
		}
	}
	if !c.release {
		if e := ruleNotPrunable(c.target); e != nil {
			return nil, e
		}
	}
	return warnings, nil
}

// claimCommands are the git commands a claim or release runs, for the plan.
func claimCommands(c *claimCmd) ([]string, error) {
	if c.already {
		return nil, nil
	}
	var cmds []string
	if c.target.Locked != nil {
		un, err := gitx.WorktreeUnlock(c.cwd, c.target.Path)
		if err != nil {
			return nil, builderErr(err)
		}
		cmds = append(cmds, un.String())
	}
	if !c.release {
		lk, err := gitx.WorktreeLock(c.cwd, c.target.Path, FormatClaim(Claim{Session: c.session.s, Since: time.Now()}))
		if err != nil {
			return nil, builderErr(err)
		}
		cmds = append(cmds, lk.String())
	}
	return cmds, nil
}

// claimConfirmation is what a forced claim or release asks: whose claim, or which lock a
// person wrote, goes.
func claimConfirmation(c *claimCmd) *Confirmation {
	title := "Claim this worktree (forced)?"
	if c.release {
		title = "Release this worktree (forced)?"
	}
	conf := &Confirmation{Title: title}
	conf.add("path", c.target.Path)
	if c.target.Branch != "" {
		conf.add("branch", c.target.Branch)
	}
	if !c.session.IsZero() {
		conf.add("session", c.session.s)
	}
	switch {
	case c.held != nil && c.held.Session != c.session.s:
		conf.Losses = append(conf.Losses, fmt.Sprintf("session %s holds it since %s and loses its claim",
			c.held.Session, c.held.Since.Format(time.RFC3339)))
	case c.human != nil:
		conf.Losses = append(conf.Losses, "a lock copse did not write is removed: "+Escape(lockedReason(*c.human)))
	}
	return conf
}

// runClaim locks or unlocks under the repository lock and reads git back: the claim is
// what `git worktree list` shows afterwards, nothing else.
func (s *Env) runClaim(ctx context.Context, c *claimCmd, x *Execution) (*Outcome, error) {
	op := OpClaim
	if c.release {
		op = OpRelease
	}
	warnings := x.Warnings()
	if c.already {
		return &Outcome{Operation: op, Worktree: s.Row(c.target, ""), Path: c.target.Path, Claim: c.held, Warnings: warnings}, nil
	}
	want := Claim{Session: c.session.s, Since: time.Now().UTC().Truncate(time.Second)}
	reason := FormatClaim(want)
	runErr, err := s.relock(ctx, c, reason)
	if err != nil {
		return nil, err
	}
	after, err := s.readBack(ctx)
	if err != nil {
		return nil, uncertain(string(op)+"_unverified", err, "run `copse list` to see the claim",
			"%s of %s ran, but the worktree list could not be read back", op, Escape(c.target.Path))
	}
	s.learn(after)
	t, listed := find(after, c.target.Path)
	if !listed {
		return nil, uncertain(string(op)+"_not_listed", runErr, "run `copse list`",
			"%s of %s ran, but git no longer lists the worktree", op, Escape(c.target.Path))
	}
	ok := (c.release && t.Locked == nil) || (!c.release && t.Locked != nil && *t.Locked == reason)
	if !ok {
		if runErr != nil && lockUnchanged(c.target.Locked, t.Locked) {
			if errors.Is(runErr, context.Canceled) || isGitKind(runErr, gitx.ErrCanceled) {
				return nil, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr, Message: string(op) + " of " + Escape(c.target.Path) + " cancelled; nothing changed"}
			}
			return nil, gitFailure(string(op)+"_failed", runErr, "git could not "+string(op)+" the worktree")
		}
		state := "unlocked"
		if t.Locked != nil {
			state = "locked: " + Escape(lockedReason(*t.Locked))
		}
		return nil, uncertain(string(op)+"_uncertain", runErr, "run `copse list` and claim or release again as needed",
			"%s of %s did not end as asked; the worktree is now %s", op, Escape(c.target.Path), state)
	}
	out := &Outcome{Operation: op, Worktree: s.Row(t, ""), Path: t.Path, Warnings: warnings}
	ev, previous := claimEvent(c)
	out.Previous = previous
	if !c.release {
		out.Claim = &want
	}
	x.Emit(ev, out.Worktree)
	return out, nil
}

// relock unlocks (when locked) and, for a claim, locks with reason. runErr is git's
// answer, judged once the list is read back; err is a command that could not be built.
func (s *Env) relock(ctx context.Context, c *claimCmd, reason string) (runErr, err error) {
	unlocked := false
	if c.target.Locked != nil {
		un, err := gitx.WorktreeUnlock(c.cwd, c.target.Path)
		if err != nil {
			return nil, builderErr(err)
		}
		if _, runErr = s.git.Run(ctx, un); runErr == nil {
			unlocked = true
		}
	}
	if runErr != nil || c.release {
		return runErr, nil
	}
	lk, err := gitx.WorktreeLock(c.cwd, c.target.Path, reason)
	if err != nil {
		return nil, builderErr(err)
	}
	// Once the old lock is gone, the new one is written even if the caller gave up
	// meanwhile: a takeover must not end with the worktree unclaimed.
	lctx := ctx
	if unlocked {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
		defer cancel()
	}
	_, runErr = s.git.Run(lctx, lk)
	return runErr, nil
}

// claimEvent is the event a claim or release that happened records, and the session
// that lost its claim to it ("" when none did).
func claimEvent(c *claimCmd) (Event, string) {
	ev := Event{Event: EventClaimed, Session: c.session.s}
	if c.release {
		ev.Event = EventReleased
		if c.held == nil {
			ev.Reason = "forced: a lock copse did not write"
			return ev, ""
		}
		ev.Session = c.held.Session
		if c.held.Session != c.session.s {
			ev.Reason = "forced"
			return ev, c.held.Session
		}
		return ev, ""
	}
	if c.held != nil {
		ev.Previous = c.held.Session
		return ev, c.held.Session
	}
	if c.human != nil {
		ev.Reason = "took over a lock copse did not write"
	}
	return ev, ""
}

func lockUnchanged(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

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
	id, err := requireSession(r.Session, s.opts.Getenv, "create --claim")
	if err != nil {
		return nil, err
	}
	c.session, c.claim = id, true
	lk, err := gitx.WorktreeLock(c.cwd, c.path.String(), FormatClaim(Claim{Session: id.s, Since: time.Now()}))
	if err != nil {
		return nil, builderErr(err)
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
		return nil, builderErr(err)
	}
	// The worktree exists now; the claim is written even if the caller gave up meanwhile.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	_, runErr := s.git.Run(lctx, lk)
	after, rerr := s.readBack(ctx)
	if rerr == nil {
		s.learn(after)
		if t, ok := find(after, out.Path); ok && t.Locked != nil && *t.Locked == reason {
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
	return nil, uncertain(CodeClaimAfterCreateFailed, cause, "claim it now: `copse claim "+id+" --session "+quoteDisplay(c.session.s)+"`",
		"created %s, but could not confirm its claim for session %s", Escape(out.Path), c.session.s)
}
