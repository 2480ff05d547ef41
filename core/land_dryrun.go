package core

import (
	"context"
	"fmt"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/internal/textsafe"
)

// landDryRun answers what a land of c would do, without queueing it or running anything:
// Prepare already refused what a land refuses before it queues (a claim, a dirty
// worktree, an earlier gate still running); here the later phases are judged on today's
// state with the very checks they run: the ignored files the rebase would destroy
// (refused, as the rebase would block), the checkout of the target (refused, as the
// advance would block), and what the clean-up would keep. The commands are the ones the
// land would run, with the commits known now; a target that moves in between changes them.
func (s *service) landDryRun(ctx context.Context, c *landCmd) (*Outcome, error) {
	w := c.target
	root := s.root()
	onto, err := s.git.ResolveCommit(ctx, root, "refs/heads/"+c.into.s)
	if err != nil {
		return nil, gitFailure(CodeBranchLookupFailed, err, "cannot read the target branch "+Escape(c.into.s))
	}
	orig := w.Head
	if over, err := s.ignoredInRebase(ctx, w.Path, orig, onto); err != nil {
		return nil, gitFailure(CodeStatusFailed, err, "cannot read which ignored files of "+Escape(w.Path)+" the rebase would replace")
	} else if len(over) > 0 {
		return nil, worktreeIgnoredRefusal(w.Path, c.into.s, onto, over)
	}
	out := &Outcome{Operation: OpLand, DryRun: true, Path: w.Path}
	note := func(format string, args ...any) { out.Notices = append(out.Notices, fmt.Sprintf(format, args...)) }
	// What the target receives: the target merged with the branch, which the rebased tree
	// must equal (land's proof). A branch that does not merge cleanly stops the rebase.
	tree, clean, err := s.git.MergeTree(ctx, w.Path, onto, orig)
	if err != nil {
		return nil, gitFailure(CodeRebaseFailed, err, "cannot merge "+Escape(w.Branch)+" with "+Escape(c.into.s)+" in memory")
	}
	add := func(cmd gitx.Cmd, err error) {
		if err == nil {
			out.Commands = append(out.Commands, cmd.String())
		}
	}
	add(gitx.Rebase(w.Path, onto))
	if !clean {
		note("%s does not merge cleanly onto %s (%s): the rebase would stop on conflicts and the land be blocked (rebase_conflict)",
			Escape(w.Branch), Escape(c.into.s), short(onto))
	}
	if c.test != "" {
		out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"sh", "-c", c.test})+"   # in "+textsafe.ShellQuote(w.Path)+", timeout "+FormatSpan(c.timeout))
	}
	// The rebased commit is not known before the rebase: the compare-and-swap is shown with
	// the target's commit it must still find.
	out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", root, "update-ref", "refs/heads/" + c.into.s, "<rebased commit>", onto}))
	snap, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range snap.trees {
		if h.Bare || h.Branch != c.into.s || !clean {
			continue
		}
		refusal, _, err := s.holderVerdict(ctx, h, c.into.s, onto, tree)
		if err != nil {
			return nil, gitFailure(CodeStatusFailed, err, "cannot read the checkout of "+Escape(c.into.s)+" at "+Escape(h.Path))
		}
		if refusal != nil {
			return nil, refusal
		}
		out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", h.Path, "read-tree", "-m", "-u", onto, "<rebased commit>"}))
	}
	if c.keep {
		note("the worktree and branch %s stay (--keep)", Escape(w.Branch))
		return out, nil
	}
	t, ok := find(snap, w.Path)
	if !ok {
		return nil, refused(CodeWorktreeGone, "run copse list", "%s is no longer a worktree", Escape(w.Path))
	}
	if kept := claimKeeps(s.withoutEndedClaim(t), c.session, c.takeOver); kept != "" {
		note("the clean-up would have %s", kept)
		return out, nil
	}
	if _, kept := s.worktreeKeeps(ctx, t, true); kept != "" {
		note("the clean-up would have %s", kept)
		return out, nil
	}
	add(gitx.WorktreeRemove(root, t.Path, false, false))
	out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", root, "update-ref", "-d", "refs/heads/" + w.Branch, "<rebased commit>"}))
	note("the clean-up would record %s for copse restore, remove it and delete branch %s", Escape(t.Path), Escape(w.Branch))
	return out, nil
}
