package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/removal"
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
func landDryRun(s *core.Env, ctx context.Context, c *landCmd) (*core.Outcome, error) {
	w := c.target
	root := s.Root()
	onto, err := s.Git.ResolveCommit(ctx, root, "refs/heads/"+c.into.String())
	if err != nil {
		return nil, core.GitFailure(core.CodeBranchLookupFailed, err, "cannot read the target branch "+core.Escape(c.into.String()))
	}
	out := &core.Outcome{Operation: core.OpLand, DryRun: true, Path: w.Path}
	note := func(format string, args ...any) { out.Notices = append(out.Notices, fmt.Sprintf(format, args...)) }
	tree, clean, landed, err := dryRebase(s, ctx, c, onto, out)
	if err != nil {
		return nil, err
	}
	if !clean {
		note("%s does not merge cleanly onto %s (%s): the rebase would stop on conflicts and the land be blocked (rebase_conflict)",
			core.Escape(w.Branch), core.Escape(c.into.String()), core.Short(onto))
	}
	if c.test != "" {
		out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"sh", "-c", c.test})+"   # in "+textsafe.ShellQuote(w.Path)+", timeout "+core.FormatSpan(c.timeout)+", from "+c.testFrom)
	}
	// The rebased commit is not known before the rebase: the compare-and-swap is shown with
	// the target's commit it must still find.
	out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", root, "update-ref", "refs/heads/" + c.into.String(), landed, onto}))
	snap, err := s.Read(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range snap.Trees {
		if h.Bare || h.Branch != c.into.String() || !clean {
			continue
		}
		refusal, _, err := holderVerdict(s, ctx, h, c.into.String(), onto, tree)
		if err != nil {
			return nil, core.GitFailure(core.CodeStatusFailed, err, "cannot read the checkout of "+core.Escape(c.into.String())+" at "+core.Escape(h.Path))
		}
		if refusal != nil {
			return nil, refusal
		}
		out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", h.Path, "read-tree", "-m", "-u", onto, landed}))
	}
	if c.keep {
		note("the worktree and branch %s stay (--keep)", core.Escape(w.Branch))
		return out, nil
	}
	t, ok := core.Find(snap, w.Path)
	if !ok {
		return nil, core.Refused(core.CodeWorktreeGone, "run copse list", "%s is no longer a worktree", core.Escape(w.Path))
	}
	if kept := claimKeeps(s.WithoutEndedClaim(t), c.session, c.takeOver); kept != "" {
		note("the clean-up would %s", keepNotKept(kept))
		return out, nil
	}
	ws, err := removal.WorkspaceAt(s, ctx, snap, t.Path)
	if err != nil {
		return nil, err
	}
	if _, kept := worktreeKeeps(s, ctx, t, ws, true); kept != "" {
		note("the clean-up would %s", keepNotKept(kept))
		return out, nil
	}
	rm, err := removal.UnforcedRemoveCommands(s, t, ws)
	if err != nil {
		return nil, err
	}
	out.Commands = append(out.Commands, rm...)
	out.Commands = append(out.Commands, textsafe.ShellJoin([]string{"git", "-C", root, "update-ref", "-d", "refs/heads/" + w.Branch, landed}))
	note("the clean-up would record %s for copse restore, remove it and delete branch %s", core.Escape(t.Path), core.Escape(w.Branch))
	return out, nil
}

// dryRebase judges the rebase phase as the land runs it and adds its command to out: a
// branch that already contains the target is not rebased (alreadyOnTop) and lands as its
// own commit; one with merge commits is rebased keeping them; the ignored files the
// rebase would replace refuse it. It returns the tree the target would receive, whether
// the branch merges cleanly, and the commit that lands (or "<rebased commit>").
func dryRebase(s *core.Env, ctx context.Context, c *landCmd, onto string, out *core.Outcome) (tree string, clean bool, landed string, err error) {
	w := c.target
	orig := w.Head
	onTop, err := s.Git.Ancestor(ctx, s.Root(), onto, orig)
	if err != nil {
		return "", false, "", core.GitFailure(core.CodeRebaseFailed, err, "cannot check whether "+core.Escape(w.Branch)+" already contains "+core.Escape(c.into.String()))
	}
	if !onTop {
		if over, err := ignoredInRebase(s, ctx, w.Path, orig, onto); err != nil {
			return "", false, "", core.GitFailure(core.CodeStatusFailed, err, "cannot read which ignored files of "+core.Escape(w.Path)+" the rebase would replace")
		} else if len(over) > 0 {
			return "", false, "", worktreeIgnoredRefusal(w.Path, c.into.String(), onto, over)
		}
	}
	// What the target receives: the target merged with the branch, which the rebased tree
	// must equal (land's proof). A branch that does not merge cleanly stops the rebase.
	tree, clean, err = s.Git.MergeTree(ctx, w.Path, onto, orig)
	if err != nil {
		return "", false, "", core.GitFailure(core.CodeRebaseFailed, err, "cannot merge "+core.Escape(w.Branch)+" with "+core.Escape(c.into.String())+" in memory")
	}
	if onTop {
		out.Notices = append(out.Notices, fmt.Sprintf("%s already contains %s (%s): it is not rebased and lands as it is", core.Escape(w.Branch), core.Escape(c.into.String()), core.Short(onto)))
		return tree, true, orig, nil
	}
	merges, err := s.Git.MergeCommits(ctx, w.Path, onto, orig)
	if err != nil {
		return "", false, "", core.GitFailure(core.CodeRebaseFailed, err, "cannot list the merge commits on "+core.Escape(w.Branch))
	}
	build := gitx.Rebase
	if len(merges) > 0 {
		build = gitx.RebaseKeepingMerges
	}
	if cmd, err := build(w.Path, onto); err == nil {
		out.Commands = append(out.Commands, cmd.String())
	}
	return tree, clean, "<rebased commit>", nil
}

// keepNotKept turns a clean-up verdict ("kept PATH: why", the land's own words after the
// fact) into what the dry run says before it: "keep PATH: why".
func keepNotKept(kept string) string {
	if rest, ok := strings.CutPrefix(kept, "kept "); ok {
		return "keep " + rest
	}
	return kept
}
