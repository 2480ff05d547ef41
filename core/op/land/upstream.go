package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// A landed branch and its target often have upstreams: a land rewrites the one (the
// rebase) and moves the other ahead, and neither is pushed, since publishing is the
// person's call. These notices say what now differs and the command that would publish
// it; copse never runs it.

// landUpstream is an upstream read before the clean-up (deleting the branch drops its
// upstream config).
type landUpstream struct {
	tracking, remote, name string // refs/remotes/origin/x, origin, x
	commit                 string // the tracking ref's commit
}

// readUpstream reads branch's upstream on a remote; ok is false when it has none, or its
// tracking ref is gone. Errors only lose a notice, so they are not reported.
func (r *landRun) readUpstream(ctx context.Context, branch string) (u landUpstream, ok bool) {
	s := r.s
	tracking, remote, ref, ok, err := s.Git.Upstream(ctx, s.Root(), branch)
	if err != nil || !ok {
		return u, false
	}
	commit, err := s.Git.ResolveCommit(ctx, s.Root(), tracking)
	if err != nil {
		return u, false
	}
	return landUpstream{tracking: tracking, remote: remote, name: strings.TrimPrefix(ref, "refs/heads/"), commit: commit}, true
}

func (u landUpstream) short() string { return strings.TrimPrefix(u.tracking, "refs/remotes/") }

// branchNotice says how the landed branch's upstream differs from the landed commit: the
// rebase left it behind or diverged. deleted: the clean-up deleted the branch.
func (r *landRun) branchNotice(ctx context.Context, u landUpstream, deleted bool) string {
	j := r.j
	if u.commit == j.Commit {
		return ""
	}
	onlyUp, onlyLanded, err := r.s.Git.Divergence(ctx, r.s.Root(), u.commit, j.Commit)
	if err != nil {
		return ""
	}
	var state string
	switch {
	case onlyLanded == 0 && onlyUp == 0:
		return ""
	case onlyLanded == 0: // pushed after the worktree last fetched: the land did not include them
		return fmt.Sprintf("branch %s's upstream %s has %s the land did not include; look at them: git log %s..%s",
			core.Escape(j.Worktree.Branch), core.Escape(u.short()), core.Plural(onlyUp, "commit"), core.Short(j.Commit), core.Escape(u.short()))
	case onlyUp == 0:
		state = "is behind the landed commit by " + core.Plural(onlyLanded, "commit")
	default:
		state = fmt.Sprintf("has diverged from the landed commit (the rebase rewrote the branch: %s only there)", core.Plural(onlyUp, "commit"))
	}
	if deleted {
		return fmt.Sprintf("branch %s's upstream %s %s and still holds the branch as it was before the land; copse deleted the branch, not its upstream: git push %s --delete %s if you no longer need it",
			core.Escape(j.Worktree.Branch), core.Escape(u.short()), state, textsafe.ShellQuote(u.remote), textsafe.ShellQuote(u.name))
	}
	push := fmt.Sprintf("git -C %s push %s %s", core.QuoteDisplay(j.Worktree.Path), textsafe.ShellQuote(u.remote), textsafe.ShellQuote(j.Worktree.Branch+":"+u.name))
	if onlyUp > 0 {
		push = fmt.Sprintf("git -C %s push --force-with-lease=%s %s %s", core.QuoteDisplay(j.Worktree.Path),
			textsafe.ShellQuote(u.name+":"+u.commit), textsafe.ShellQuote(u.remote), textsafe.ShellQuote(j.Worktree.Branch+":"+u.name))
	}
	return fmt.Sprintf("branch %s's upstream %s %s; to update it: %s", core.Escape(j.Worktree.Branch), core.Escape(u.short()), state, push)
}

// targetNotice says that the target is ahead of (or diverged from) its upstream after the
// land, and what would publish it.
func (r *landRun) targetNotice(ctx context.Context) string {
	j := r.j
	u, ok := r.readUpstream(ctx, j.Into)
	if !ok || u.commit == j.Commit {
		return ""
	}
	behind, ahead, err := r.s.Git.Divergence(ctx, r.s.Root(), u.commit, j.Commit)
	if err != nil || ahead == 0 {
		return ""
	}
	push := fmt.Sprintf("git push %s %s", textsafe.ShellQuote(u.remote), textsafe.ShellQuote(j.Into+":"+u.name))
	if j.Into == u.name {
		push = fmt.Sprintf("git push %s %s", textsafe.ShellQuote(u.remote), textsafe.ShellQuote(j.Into))
	}
	if behind > 0 {
		return fmt.Sprintf("%s is %s ahead of %s and %s behind it; bring in %s first (git pull --rebase in its checkout), then %s",
			core.Escape(j.Into), core.Plural(ahead, "commit"), core.Escape(u.short()), core.Plural(behind, "commit"), core.Escape(u.short()), push)
	}
	return fmt.Sprintf("%s is %s ahead of %s; to publish it: %s", core.Escape(j.Into), core.Plural(ahead, "commit"), core.Escape(u.short()), push)
}
