package core

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// The rules: every check that can refuse a request, one function each, with its refusal
// (code and message naming what is protected) and its hint (how to proceed). A rule reads
// only the values it is given, so each has its own test (rules_internal_test.go). The
// prepare functions say which rules an operation runs and in which order.

// ---- create

// RuleBranchFree: a branch is checked out in at most one worktree.
func RuleBranchFree(branch BranchName, snap Snapshot) *Error {
	for _, t := range snap.Trees {
		if t.Branch == branch.s {
			how := "checked out"
			switch {
			case t.Rebasing:
				how = "being rebased"
			case t.Bisecting:
				how = "being bisected"
			}
			return Refused(CodeBranchCheckedOut, "switch to it (`copse switch "+QuoteDisplay(branch.s)+"`), or pick another branch",
				"branch %s is already %s at %s", Escape(branch.s), how, Escape(t.Path))
		}
	}
	return nil
}

// RuleNoBaseForExisting: a base names where a new branch starts; an existing branch
// already has its commit, so asking for both is a mistake, not a choice.
func RuleNoBaseForExisting(branch BranchName, hasBase bool) *Error {
	if hasBase {
		return Usage(CodeBaseWithExistingBranch, "base", "drop the base to check out the existing branch, or pick a new branch name",
			"branch %s already exists; a base applies only to a new branch", Escape(branch.s))
	}
	return nil
}

// rulePathOutsideGitDir: a checkout inside the git directory (symlinks resolved) would
// be read by git as its own metadata.
func rulePathOutsideGitDir(p AbsPath, commonDir string) *Error {
	if Within(Canonical(p.s), Canonical(commonDir)) {
		return Usage(CodePathInsideGitDir, "path", "pick a path outside the repository's git directory",
			"%s lies inside the git directory %s", Escape(p.s), Escape(commonDir))
	}
	return nil
}

// rulePathOutsideWorktrees: the path is not a worktree and does not lie inside one.
func rulePathOutsideWorktrees(p AbsPath, snap Snapshot) *Error {
	cp := Canonical(p.s)
	for _, t := range snap.Trees {
		tp := Canonical(t.Path)
		if cp == tp {
			return Refused(CodePathIsWorktree, "pick another path", "%s is already the worktree of %s", Escape(p.s), Describe(t))
		}
		if Within(cp, tp) {
			// Bad input rather than a state to wait out: no request should ever nest
			// a checkout inside another (git would track one in the other).
			return Usage(CodePathInsideWorktree, "path", "pick a path outside every worktree (the default path is)",
				"%s lies inside the worktree %s (%s)", Escape(p.s), Escape(t.Path), Describe(t))
		}
	}
	return nil
}

// rulePathFree: the path does not exist, or is an empty directory; nothing already there
// is ever overwritten or mixed into a checkout.
func rulePathFree(p AbsPath) *Error {
	fi, err := os.Lstat(p.s)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return Failed(CodePathUnreadable, err, "check the path's permissions", "cannot inspect %s", Escape(p.s))
	case !fi.IsDir():
		return Refused(CodePathExists, "pick another path, or move it away first", "%s already exists and is not a directory", Escape(p.s))
	}
	entries, err := os.ReadDir(p.s)
	if err != nil {
		return Failed(CodePathUnreadable, err, "check the path's permissions", "cannot read %s", Escape(p.s))
	}
	if len(entries) > 0 {
		return Refused(CodePathExists, "pick another path, or empty it first", "%s already exists and is not empty (%s)", Escape(p.s), Plural(len(entries), "entry"))
	}
	return nil
}

// ---- open, switch, back (and claim)

// ruleNotBare: the bare repository has no checkout to go to.
func ruleNotBare(t gitx.Worktree) *Error {
	if t.Bare {
		return Refused(CodeBareRepository, "pick a worktree with a checkout", "%s is the bare repository, which has no checkout", Escape(t.Path))
	}
	return nil
}

// RuleNotPrunable: git still lists a worktree whose directory is gone; there is nothing
// to go to or to claim.
func RuleNotPrunable(t gitx.Worktree) *Error {
	if t.Prunable != nil {
		return Refused(CodePrunableWorktree, "run git worktree prune to forget it, or restore the directory",
			"the worktree at %s is gone from disk (%s)", Escape(t.Path), Escape(*t.Prunable))
	}
	return nil
}

// RuleNotAlreadyThere: without workspaces there is nothing to open or focus, so going where
// you are is a no-op the user should hear about. Under Herdr, opening the current worktree
// is fine (it opens or focuses its workspace); switching to it is not.
func RuleNotAlreadyThere(op Operation, workspaces bool, from string, t gitx.Worktree) *Error {
	if (op == OpSwitch || !workspaces) && from != "" && Canonical(from) == Canonical(t.Path) {
		return Refused(CodeAlreadyHere, "pick another worktree", "you are already in %s (%s)", Escape(t.Path), Describe(t))
	}
	return nil
}

// RuleHasPrevious: back needs a worktree this session left, still listed.
func RuleHasPrevious(found bool) *Error {
	if !found {
		return Refused(CodeNoPreviousWorktree, "switch to a worktree first; back returns to the one you left",
			"there is no previous worktree in this session")
	}
	return nil
}

// ---- remove (the Herdr rules are at the end)

// ruleNotMain: the main checkout holds the repository; copse never removes it.
func RuleNotMain(t gitx.Worktree, snap Snapshot) *Error {
	if len(snap.Trees) > 0 && t.Path == snap.Trees[0].Path {
		return Refused(CodeMainCheckout, "remove linked worktrees only; the main checkout holds the repository",
			"%s is the main checkout (%s); copse never removes it", Escape(t.Path), Describe(t))
	}
	return nil
}

// ruleNotHere: never remove the directory copse, its caller or its session is in, at
// the worktree's root or anywhere below it.
func (s *Env) RuleNotHere(t gitx.Worktree) *Error {
	if at, ok := s.hereWithin(t.Path); ok {
		where := ""
		if Canonical(at) != Canonical(t.Path) {
			where = " (from " + Escape(at) + ", inside it)"
		}
		// The main checkout is always there to switch to: the hint names it, so it runs as
		// written.
		other := "TARGET"
		if root := s.Root(); root != "" && Canonical(root) != Canonical(t.Path) {
			other = QuoteDisplay(root)
		}
		return Refused(CodeCurrentWorktree, "switch to another worktree first (`copse switch "+other+"`), then remove this one",
			"%s (%s) is the worktree copse is running in%s", Escape(t.Path), Describe(t), where)
	}
	return nil
}

// ruleHoldsNoWorktree: a worktree that contains another registered worktree would take
// it along. Not even --force gets past this: remove or move the inner one first.
func RuleHoldsNoWorktree(t gitx.Worktree, snap Snapshot) *Error {
	outer := Canonical(t.Path)
	for _, o := range snap.Trees {
		if o.Path == t.Path || o.Bare {
			continue
		}
		if inner := Canonical(o.Path); inner != outer && Within(inner, outer) {
			return Refused(CodeContainsWorktree, "remove or move the inner worktree first (git worktree move), then this one",
				"%s contains another worktree, %s (%s); removing it would delete that one too", Escape(t.Path), Escape(o.Path), Describe(o))
		}
	}
	return nil
}

func RuleDeleteHasBranch(t gitx.Worktree, deleteBranch bool) *Error {
	if deleteBranch && t.Branch == "" {
		return Usage(CodeNoBranch, "delete_branch", "drop --delete-branch", "%s is detached; there is no branch to delete", Escape(t.Path))
	}
	return nil
}

func ruleNotLocked(t gitx.Worktree) *Error {
	if t.Locked != nil {
		if c, ok := ParseClaim(*t.Locked); ok {
			// The release names the holder: without --session it would be refused
			// (session_required), or refused as another session's claim.
			return Refused(CodeClaimedWorktree, "ask session "+Escape(c.Session)+" to release it (`"+releaseCommand(t.Path, c.Session)+"`), or pass --force",
				"%s (%s) is claimed by session %s since %s", Escape(t.Path), Describe(t), Escape(c.Session), c.Since.Format(time.RFC3339))
		}
		return Refused(CodeLockedWorktree, "unlock it (git worktree unlock "+QuoteDisplay(t.Path)+") or pass --force",
			"%s (%s) is locked: %s", Escape(t.Path), Describe(t), Escape(LockReason(t)))
	}
	return nil
}

// ruleNotLockedByAgent: remove's lock rule for a lock an agent wrote (nil for any other
// lock, which ruleNotLocked judges): while the agent's session runs it holds the worktree
// as a claim; once it ended, the lock is stale, and --force removes it with the worktree.
func RuleNotLockedByAgent(t gitx.Worktree, l agentLock) *Error {
	if l.live {
		return Refused(CodeClaimedWorktree, "end that Claude Code session first (or let it finish), or pass --force to remove the worktree under it",
			"%s (%s) is claimed by %s", Escape(t.Path), Describe(t), l.holder())
	}
	return Refused(CodeLockedWorktree, "the lock is left over: pass --force to remove the worktree and its lock (or git worktree unlock "+QuoteDisplay(t.Path)+" first)",
		"%s (%s) is locked, %s: %s", Escape(t.Path), Describe(t), l.staleWhy(), Escape(*t.Locked))
}

// ruleNotLockedUnlessEnded is ruleNotLocked, except for a claim whose create --run command
// ended (ended): that claim binds nothing, and the remove unlocks the worktree first.
func RuleNotLockedUnlessEnded(t gitx.Worktree, ended bool) *Error {
	if ended {
		return nil
	}
	return ruleNotLocked(t)
}

func RuleStatusKnown(t gitx.Worktree, l Losses) *Error {
	if l.Status.Error != "" {
		return Refused(CodeStatusUnknown, "fix the worktree, or pass --force to remove it anyway",
			"cannot tell what removing %s would lose: %s", Escape(t.Path), l.Status.Error)
	}
	return nil
}

func RuleNoOperation(t gitx.Worktree, l Losses) *Error {
	if l.Operation != "" {
		return Refused(CodeOperationInProgress, "finish or abort it first (git -C "+QuoteDisplay(t.Path)+" status says how), or pass --force",
			"%s (%s) is in the middle of a %s", Escape(t.Path), Describe(t), l.Operation)
	}
	return nil
}

func RuleClean(t gitx.Worktree, l Losses) *Error {
	switch {
	case l.Status.Dirty() && t.Prunable != nil:
		return Refused(CodeDirtyWorktree, goneSubmoduleHint,
			"%s (%s) is gone, and its index holds %s no commit has", Escape(t.Path), Describe(t), Plural(l.Status.Staged, "staged change"))
	case l.Status.Dirty():
		return Refused(CodeDirtyWorktree, "commit or stash them first, or pass --force to discard them",
			"%s (%s) has uncommitted changes: %s", Escape(t.Path), Describe(t), l.Changes())
	case len(l.Hidden) > 0:
		return Refused(CodeDirtyWorktree, "commit them first (git update-index --no-assume-unchanged / --no-skip-worktree shows them to git status), or pass --force to discard them",
			"%s (%s) has %s that git status does not show (assume-unchanged or skip-worktree): %s",
			Escape(t.Path), Describe(t), Plural(len(l.Hidden), "changed file"), Sample(l.Hidden, len(l.Hidden)))
	}
	return nil
}

func RuleNoNested(t gitx.Worktree, l Losses) *Error {
	if len(l.Nested) > 0 {
		return Refused(CodeNestedRepository, "move them out of the worktree first, or pass --force to delete them (their commits are recorded for `copse restore`)",
			"%s (%s) holds %s that git does not track and a remove would delete: %s",
			Escape(t.Path), Describe(t), Plural(len(l.Nested), "nested repository"), l.nestedNames())
	}
	return nil
}

func RuleDetachedReachable(t gitx.Worktree, l Losses) *Error {
	if l.Detached > 0 {
		return Refused(CodeDetachedUniqueCommits, goneHint(t, "keep them on a branch first: git -C "+QuoteDisplay(t.Path)+" branch <name>; or pass --force to drop them"),
			"%s is detached at %s with %s on no branch, tag or remote", Escape(t.Path), Short(t.Head), Plural(l.Detached, "commit"))
	}
	return nil
}

func RuleNoWorktreeOnlyCommits(t gitx.Worktree, l Losses) *Error {
	switch {
	case l.Reflog > 0:
		return Refused(CodeWorktreeOnlyCommits, goneHint(t, "keep them on a branch first (git -C "+QuoteDisplay(t.Path)+" reflog shows them; git branch <name> <commit>), or pass --force to record them for `copse restore`"),
			"%s has %s only its HEAD reflog holds (on no branch, tag or remote, their change nowhere else); git deletes that reflog with the worktree",
			Escape(t.Path), Plural(l.Reflog, "commit"))
	case l.RefCommits > 0:
		return Refused(CodeWorktreeOnlyCommits, goneHint(t, "keep them on a branch first (git -C "+QuoteDisplay(t.Path)+" branch <name> <ref>), or pass --force to record them for `copse restore`"),
			"%s has %s only its per-worktree refs hold, which git deletes with the worktree: %s",
			Escape(t.Path), Plural(l.RefCommits, "commit"), Sample(l.WorktreeRefs, len(l.WorktreeRefs)))
	}
	return nil
}

// goneHint is hint, or for a worktree whose directory is gone (where no `git -C` can run)
// how to keep what its admin directory holds.
func goneHint(t gitx.Worktree, hint string) string {
	if t.Prunable == nil {
		return hint
	}
	return "its directory is gone: put it back (after moving it, git worktree repair) and keep them on a branch, or pass --force to record them for `copse restore`"
}

// goneSubmoduleHint: what a gone worktree's admin directory keeps beyond commits (its
// index's staged changes, its submodules' repositories) can be committed or pushed only
// from a checkout, and no record can keep it.
const goneSubmoduleHint = "its directory is gone: put it back (after moving it, git worktree repair), commit what it staged and push its submodules' commits (git -C <submodule> push), then remove again"

func RuleSubmodulesPushed(t gitx.Worktree, l Losses) *Error {
	if len(l.Submodules) > 0 {
		hint := "push them (git -C <submodule> push; a commit only its reflog holds needs a branch first: git -C <submodule> branch <name> <commit>), or pass --force to record them for `copse restore`"
		if t.Prunable != nil {
			hint = goneSubmoduleHint
		}
		return Refused(CodeSubmoduleUnpushed, hint,
			"%s holds %s whose git directory git deletes with the worktree: %s",
			Escape(t.Path), Plural(len(l.Submodules), "submodule"), HeldNames(l.Submodules))
	}
	return nil
}

// ruleRecordable: a forced path records what it deletes first, and what it cannot record
// it does not delete ("no record, no remove"). Nothing gets past this one.
func RuleRecordable(t gitx.Worktree, l Losses) *Error {
	if len(l.Unrecordable) > 0 {
		hint, why := "commit (or stash) the changes inside them, or move them out of the worktree; then remove again",
			"a record keeps the commits of a submodule or nested repository, not their uncommitted changes"
		if t.Prunable != nil {
			hint, why = goneSubmoduleHint, "a record of a worktree whose checkout is gone keeps its commits, not what it staged nor its submodules' repositories"
		}
		return Refused(CodeNotRecordable, hint, "cannot record what removing %s would delete, so nothing is removed: %s: %s",
			Escape(t.Path), why, Sample(l.Unrecordable, len(l.Unrecordable)))
	}
	return nil
}

func RuleBranchMerged(t gitx.Worktree, l Losses, deleteBranch bool) *Error {
	if deleteBranch && l.Unique > 0 {
		return Refused(CodeUnmergedBranch, "merge or push it first, or pass --force to delete it anyway",
			"branch %s has %s on no other branch or remote", Escape(t.Branch), Plural(l.Unique, "commit"))
	}
	return nil
}

func changeSummary(st Status) string {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{st.Staged, "staged"}, {st.Unstaged, "unstaged"}, {st.Untracked, "untracked"}, {st.Conflicted, "conflicted"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	return strings.Join(parts, ", ")
}

func ForceHelps(e *Error) *Error {
	e.ForceHelps = true
	return e
}

// ---- claim and release

// RuleClaimable: the main checkout (or the bare repository) holds the repository; only
// linked worktrees are claimed.
func RuleClaimable(t gitx.Worktree, snap Snapshot) *Error {
	if t.Bare || (len(snap.Trees) > 0 && t.Path == snap.Trees[0].Path) {
		return Refused(CodeMainCheckout, "claim linked worktrees only (`copse create BRANCH --claim` makes one)",
			"%s is the main checkout (%s); it cannot be claimed", Escape(t.Path), Describe(t))
	}
	return nil
}

// RuleNotClaimedByOther: a claim names one session; another takes it over only with
// --force (which asks first).
func RuleNotClaimedByOther(c *ClaimSpec) *Error {
	if !c.Release && c.Held != nil && c.Held.Session != c.Session.s && !c.Force {
		return ForceHelps(Refused(CodeClaimed, "pick another worktree, or pass --force to take it over (asks first)",
			"%s (%s) is claimed by session %s since %s", Escape(c.Target.Path), Describe(c.Target), c.Held.Session, c.Held.Since.Format(time.RFC3339)))
	}
	return nil
}

// RuleNotLockedByHuman: a lock copse did not write is a person's; claim and release
// leave it alone unless forced.
func RuleNotLockedByHuman(c *ClaimSpec, verb string) *Error {
	if c.Human != nil && !c.Force {
		return ForceHelps(Refused(CodeLockedByHuman, "leave it alone, or pass --force to "+verb+" it anyway (asks first)",
			"%s (%s) is locked, and not by copse: %s", Escape(c.Target.Path), Describe(c.Target), Escape(LockedReason(*c.Human))))
	}
	return nil
}

// releaseCommand is the command that releases session's claim on path, as a hint names it:
// one that runs as written.
func releaseCommand(path, session string) string {
	return "copse release " + QuoteDisplay(path) + " --session " + QuoteDisplay(session)
}

// RuleIsClaimed: release needs a claim to release.
func RuleIsClaimed(c *ClaimSpec) *Error {
	if c.Release && c.Target.Locked == nil {
		return Refused(CodeNotClaimed, "`copse list` shows the claims", "%s (%s) is not claimed", Escape(c.Target.Path), Describe(c.Target))
	}
	return nil
}

// RuleClaimIsOurs: a session releases its own claims; another's only with --force.
func RuleClaimIsOurs(c *ClaimSpec) *Error {
	if c.Release && c.Held != nil && c.Held.Session != c.Session.s && !c.Force {
		return ForceHelps(Refused(CodeClaimedByOther, "release it as that session (`"+releaseCommand(c.Target.Path, c.Held.Session)+"`), or pass --force (asks first)",
			"%s (%s) is claimed by session %s, not by %s", Escape(c.Target.Path), Describe(c.Target), c.Held.Session, c.Session.s))
	}
	return nil
}

// ---- restore

// ruleRecordedHead: a worktree recorded on an unborn branch has no commit to check out
// again; its files are still in the record.
func RuleRecordedHead(e RemovedEntry) *Error {
	if e.Head == "" {
		return Refused(CodeUnbornHead, "its files are in commit "+e.Commit+": `git -C DIR checkout "+Short(e.Commit)+" -- .`",
			"the worktree %s was recorded on an unborn branch, which copse cannot check out again", Escape(e.Path))
	}
	return nil
}

// ---- land

// ruleLandable: land moves a linked worktree's branch into the target; the main checkout
// holds the target, and a detached worktree has no branch to land.
func RuleLandable(t gitx.Worktree, snap Snapshot) *Error {
	if len(snap.Trees) > 0 && t.Path == snap.Trees[0].Path {
		return Refused(CodeMainCheckout, "land a linked worktree; the main checkout holds the target",
			"%s is the main checkout; copse lands linked worktrees into it", Escape(t.Path))
	}
	if t.Branch == "" {
		return Refused(CodeDetachedWorktree, "check out a branch in it first (git switch -c NAME)",
			"%s is detached at %s; land needs a branch", Escape(t.Path), Short(t.Head))
	}
	return nil
}

// ruleIntoOtherBranch: a branch cannot land onto itself.
func RuleIntoOtherBranch(t gitx.Worktree, into BranchName) *Error {
	if into.s == t.Branch {
		return Usage(CodeIntoIsBranch, "into", "pass the branch to land onto with --into",
			"%s cannot land onto its own branch %s", Escape(t.Path), Escape(t.Branch))
	}
	return nil
}

// ---- remove through Herdr

// ruleNotOwnWorkspace: Herdr closes the workspace it removes, and every pane in it;
// copse's own pane would go too. Not even --force gets past this.
func RuleNotOwnWorkspace(c *RemoveSpec, session string) *Error {
	if c.WsID != "" && c.WsID == session {
		return Refused(CodeCurrentWorkspace,
			"run the remove from another Herdr workspace, or close this workspace first",
			"%s is open in workspace %s, the workspace copse is running in; removing it would close this pane",
			Escape(c.Target.Path), Escape(c.WsID))
	}
	return nil
}

// ruleHerdrNotLocked: Herdr runs `git worktree remove [--force]` once; a locked worktree
// needs it twice, so Herdr would fail after --force had already ended the workspace's
// processes. Not even --force gets past this.
func RuleHerdrNotLocked(c *RemoveSpec) *Error {
	if c.WsID != "" && c.Target.Locked != nil {
		return Refused(CodeLockedWorktree,
			"unlock it first (git worktree unlock "+QuoteDisplay(c.Target.Path)+"), then remove it",
			"%s is locked and open in Herdr workspace %s; Herdr cannot remove a locked worktree", Escape(c.Target.Path), Escape(c.WsID))
	}
	return nil
}

func LockReason(t gitx.Worktree) string {
	if t.Locked == nil || *t.Locked == "" {
		return "no reason given"
	}
	return *t.Locked
}

// allReasons is one refusal for every rule of errs that refused (nil entries passed), in
// their order: the first one's code, a message that names each, and each as a Reason.
// wouldEnd, when not empty, says what --force would end; it ends the message. nil when
// no rule refused.
func AllReasons(errs []*Error, wouldEnd string) *Error {
	var got []*Error
	for _, e := range errs {
		if e != nil {
			got = append(got, e)
		}
	}
	if len(got) == 0 {
		return nil
	}
	out := *got[0]
	if len(got) > 1 {
		msgs := make([]string, len(got))
		hints := make([]string, len(got))
		for i, e := range got {
			msgs[i] = fmt.Sprintf("(%d) %s", i+1, e.Message)
			hints[i] = fmt.Sprintf("(%d) %s", i+1, e.Hint)
			out.Reasons = append(out.Reasons, Reason{Code: e.Code, Message: e.Message, Hint: e.Hint})
		}
		out.Message = fmt.Sprintf("%d reasons keep it: %s", len(got), strings.Join(msgs, "; "))
		out.Hint = strings.Join(hints, "; ")
	}
	if wouldEnd != "" {
		out.Message += "; " + wouldEnd
	}
	return &out
}

// forceWouldEnd says what a forced remove would end ("" when nothing): the workspace the
// backend closes, with the programs of its panes, and the processes that would lose their
// directory.
func ForceWouldEnd(l LiveSet, ws, closes string) string {
	var parts []string
	if ws != "" && closes != "" {
		parts = append(parts, closes)
	}
	if len(l.Procs) > 0 {
		parts = append(parts, Plural(len(l.Procs), "process")+" (pid "+PidList(l.Procs)+") would lose their directory")
	}
	if len(parts) == 0 {
		return ""
	}
	return "with --force, " + strings.Join(parts, ", and ")
}
