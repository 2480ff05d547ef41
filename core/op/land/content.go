package land

import (
	"context"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// What lands is what was on the branch. A rebase can silently drop work: plain `git rebase`
// drops merge commits and with them any change made inside one (a conflict resolution, an
// edit), and --rebase-merges recreates merges without those changes (git's own manual says
// so). So after every rebase copse proves that the rebased branch brings the target exactly
// the change the branch made against its merge base, before the gate runs and long before
// the target moves. Nor may the rebase overwrite the ignored files of the worktree it runs
// in (rebaseSparesIgnored).

// alreadyOnTop reports (done) that the branch already contains onto: the land is then a
// fast-forward to the branch's own commit, so nothing is rebased and nothing can be lost
// (a rebase would rewrite a branch whose commits are not all on top of onto, such as one
// that merged the target in, and drop what its merges changed). ok is false when the job
// has finished on an error.
func (r *landRun) alreadyOnTop(ctx context.Context, orig, onto string) (done, ok bool) {
	on, err := r.s.Git.Ancestor(ctx, r.s.Root(), onto, orig)
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot check whether "+core.Escape(r.j.Worktree.Branch)+" already contains "+core.Escape(r.j.Into))
		return false, false
	}
	if on {
		r.j.Commit = orig
	}
	return on, true
}

// mergesOnBranch lists the merge commits on the branch that the target does not have
// (tip's side of onto..tip). The rebase keeps such merges (--rebase-merges) and the
// proof names them when what they changed would be lost.
func (r *landRun) mergesOnBranch(ctx context.Context, onto, tip string) ([]string, bool) {
	merges, err := r.s.Git.MergeCommits(ctx, r.j.Worktree.Path, onto, tip)
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot list the merge commits on "+core.Escape(r.j.Worktree.Branch))
		return nil, false
	}
	return merges, true
}

// prove checks that rebasing orig onto onto, which made commit, kept the branch's change.
// The expected tree is the three-way merge of onto and orig (their merge base is where
// the branch started): what the target plus the branch's own change looks like. A
// rebase that left something out (or put something in) gives another tree: the land is blocked and the
// branch is put back where it was. merges are the branch's merge commits (they decide
// which code and advice the refusal gets).
func (r *landRun) prove(ctx context.Context, orig, onto, commit string, merges []string) bool {
	s, j := r.s, r.j
	if commit == orig {
		return true // nothing was rewritten
	}
	root := s.Root()
	want, clean, err := s.Git.MergeTree(ctx, root, onto, orig)
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot compute what the land should bring "+core.Escape(j.Into))
		return false
	}
	got, err := s.Git.TreeOf(ctx, root, commit)
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot read the rebased tree")
		return false
	}
	if clean && got == want {
		return true
	}
	var what string
	if clean {
		paths, err := s.Git.ChangedPaths(ctx, root, want, got)
		if err != nil {
			r.gitErr(core.PhaseRebase, err, "cannot list what the rebase changed")
			return false
		}
		what = "the rebased " + core.Short(commit) + " differs from " + core.Escape(j.Worktree.Branch) + "'s own change in " + listPaths(paths)
	} else {
		// The branch's total change and the target's overlap in a way a three-way merge
		// cannot settle (e.g. the target already has one of the branch's commits and the
		// branch edited the same lines again); the rebase went through commit by commit,
		// but copse cannot show that the result is the branch's change.
		what = "the branch's change and " + core.Escape(j.Into) + "'s since they diverged touch the same lines, so copse cannot prove that the rebased " + core.Short(commit) + " carries exactly the branch's change"
	}
	w := core.QuoteDisplay(j.Worktree.Path)
	code := core.CodeLandChangedContent
	hint := "rebase it yourself (git -C " + w + " rebase " + core.Escape(j.Into) + "), check the result, then land again: a branch already on top of " + core.Escape(j.Into) + " is not rebased and lands as it is"
	if len(merges) > 0 {
		code = core.CodeMergeCommits
		what += "; the branch has merge commits (" + listPaths(shortAll(merges)) + "), and a rebase does not keep changes made inside a merge (a conflict resolution or an edit)"
		hint = "merge " + core.Escape(j.Into) + " into the branch again (git -C " + w + " merge " + core.Escape(j.Into) + "; a branch that contains " + core.Escape(j.Into) + " lands as it is, merges and all), or move those changes into an ordinary commit, then land again"
	}
	restored := r.putBack(ctx, orig, commit)
	if restored != "" {
		r.finish(core.LandFailed, code, what+"; "+core.Escape(j.Into)+" was not moved, but putting "+core.Escape(j.Worktree.Branch)+" back failed ("+restored+")",
			"put it back by hand: git -C "+w+" reset --keep "+orig)
		return false
	}
	j.Commit = "" // the rebased commit is not the branch's any more (it stays in the reflog)
	r.blocked(code, hint, "%s; nothing landed: %s was not moved, and %s is back at %s with its worktree kept",
		what, core.Escape(j.Into), core.Escape(j.Worktree.Branch), core.Short(orig))
	return false
}

// putBack moves the branch from the rebased commit back to orig, its commit before the
// rebase (the tree is clean: the rebase just finished). It returns "" on success, else
// why not. It only moves a worktree still on the branch at commit.
func (r *landRun) putBack(ctx context.Context, orig, commit string) string {
	s, j := r.s, r.j
	w := j.Worktree.Path
	head, err := s.Git.ResolveCommit(ctx, w, "HEAD")
	if err != nil {
		return core.GitFailure(core.CodeLandGitFailed, err, "cannot read the worktree's commit").Message
	}
	ref, err := s.Git.SymbolicHeadRef(ctx, w)
	if err != nil {
		return core.GitFailure(core.CodeLandGitFailed, err, "cannot read the worktree's branch").Message
	}
	if head != commit || ref != "refs/heads/"+j.Worktree.Branch {
		return "the worktree is at " + core.Short(head) + " on " + core.Escape(strings.TrimPrefix(ref, "refs/heads/")) + " now, not at the rebased " + core.Short(commit)
	}
	cmd, err := gitx.ResetKeep(w, orig)
	if err == nil {
		_, err = s.Git.Run(ctx, cmd)
	}
	if err != nil {
		return core.GitFailure(core.CodeLandGitFailed, err, "git reset --keep failed").Message
	}
	return ""
}

// rebaseSparesIgnored refuses a rebase that would overwrite or delete ignored files in
// the worktree being landed: git treats them as expendable, so checking out the target
// (a tracked .env template over the .env copse.copy put there) or replaying a commit would
// destroy them without a trace. The paths a rebase writes are those where the branch and
// the target differ plus those any of the branch's commits touch. It runs before the
// rebase, so a refusal changes nothing.
func (r *landRun) rebaseSparesIgnored(ctx context.Context, orig, onto string) bool {
	s, j := r.s, r.j
	w := j.Worktree.Path
	over, err := ignoredInRebase(s, ctx, w, orig, onto)
	if err != nil {
		r.gitErr(core.PhaseRebase, err, "cannot read which ignored files of "+core.Escape(w)+" the rebase would replace")
		return false
	}
	if len(over) > 0 {
		e := worktreeIgnoredRefusal(w, j.Into, onto, over)
		r.blocked(e.Code, e.Hint, "%s", e.Message)
		return false
	}
	return true
}

// ignoredInRebase lists the ignored files of the worktree at w that stand at paths a
// rebase of orig onto onto writes: those where the two differ, and those any of the
// branch's commits touch. It only reads; land's rebase and its dry run both decide on it.
func ignoredInRebase(s *core.Env, ctx context.Context, w, orig, onto string) ([]string, error) {
	_, ignored, err := s.Git.ChangedAndIgnored(ctx, w)
	if err != nil || len(ignored) == 0 {
		return nil, err
	}
	differ, err := s.Git.ChangedPaths(ctx, w, orig, onto)
	if err != nil {
		return nil, err
	}
	touched, err := s.Git.TouchedPaths(ctx, w, onto, orig)
	if err != nil {
		return nil, err
	}
	return overlap(ignored, append(differ, touched...)), nil
}

// worktreeIgnoredRefusal is the refusal for ignored files a rebase would destroy.
func worktreeIgnoredRefusal(w, into, onto string, over []string) *core.Error {
	return core.Refused(core.CodeWorktreeIgnoredOverlap, "move them out of "+core.QuoteDisplay(w)+" (git keeps no copy of ignored files), land again, then put back what you still need",
		"%s has ignored files at paths the rebase onto %s (%s) would replace or remove: %s; nothing was changed",
		core.Escape(w), core.Escape(into), core.Short(onto), listPaths(over))
}

func shortAll(oids []string) []string {
	out := make([]string, len(oids))
	for i, o := range oids {
		out[i] = core.Short(o)
	}
	return out
}
