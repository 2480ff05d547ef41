package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Each rule, alone: one input it refuses (with its code, a hint saying how to proceed and
// a message naming what it protects) and one it lets through. The operations' own tests
// show each rule is run, against real git.
func TestRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	str := func(s string) *string { return &s }
	wt := func(path, branch string) gitx.Worktree {
		return gitx.Worktree{Path: path, Branch: branch, Head: "0123456789abcdef"}
	}
	main, feat := wt(filepath.Join(dir, "main"), "main"), wt(filepath.Join(dir, "feat"), "feat")
	snap := Snapshot{Trees: []gitx.Worktree{main, feat}}
	abs := func(p string) AbsPath { return AbsPath{s: p} }
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	locked, bare, gone := feat, main, feat
	locked.Locked = str("on a usb disk")
	bare.Bare = true
	gone.Prunable = str("gitdir file points to non-existent location")
	claimed := feat
	claimed.Locked = str(FormatClaim(Claim{Session: "other", Since: time.Unix(0, 0).UTC()}))
	agentLocked := feat
	agentLocked.Locked = str("claude session fox (pid 4242)")
	dirty := Losses{Status: Status{Unstaged: 2}}
	me := SessionID{s: "me"}
	other := &Claim{Session: "other", Since: time.Unix(0, 0).UTC()}
	here := &Env{Dir: filepath.Join(feat.Path, "sub")}
	elsewhere := &Env{Dir: filepath.Join(dir, "elsewhere")}

	cases := []struct {
		name     string
		refuses  *Error
		allows   *Error
		code     string
		mentions string
	}{
		{"branch free", RuleBranchFree(BranchName{"feat"}, snap), RuleBranchFree(BranchName{"new"}, snap), "branch_checked_out", feat.Path},
		{"no base for existing", RuleNoBaseForExisting(BranchName{"feat"}, true), RuleNoBaseForExisting(BranchName{"feat"}, false), "base_with_existing_branch", "feat"},
		{"path outside git dir", rulePathOutsideGitDir(abs(filepath.Join(dir, ".git", "x")), filepath.Join(dir, ".git")), rulePathOutsideGitDir(abs(filepath.Join(dir, "x")), filepath.Join(dir, ".git")), "path_inside_git_dir", ".git"},
		{"path is no worktree", rulePathOutsideWorktrees(abs(feat.Path), snap), rulePathOutsideWorktrees(abs(filepath.Join(dir, "new")), snap), "path_is_worktree", feat.Path},
		{"path inside no worktree", rulePathOutsideWorktrees(abs(filepath.Join(feat.Path, "in")), snap), nil, "path_inside_worktree", feat.Path},
		{"path free (not empty)", rulePathFree(abs(full)), rulePathFree(abs(empty)), "path_exists", full},
		{"path free (a file)", rulePathFree(abs(file)), rulePathFree(abs(filepath.Join(dir, "absent"))), "path_exists", file},
		{"not bare", ruleNotBare(bare), ruleNotBare(main), "bare_repository", main.Path},
		{"not prunable", RuleNotPrunable(gone), RuleNotPrunable(feat), "prunable_worktree", feat.Path},
		{"switch not where you are", RuleNotAlreadyThere(OpSwitch, true, feat.Path, feat), RuleNotAlreadyThere(OpSwitch, true, main.Path, feat), "already_here", feat.Path},
		{"open not where you are without workspaces", RuleNotAlreadyThere(OpOpen, false, feat.Path, feat), RuleNotAlreadyThere(OpOpen, true, feat.Path, feat), "already_here", feat.Path},
		{"back has previous", RuleHasPrevious(false), RuleHasPrevious(true), "no_previous_worktree", "previous"},
		{"remove not main", RuleNotMain(main, snap), RuleNotMain(feat, snap), "main_checkout", main.Path},
		{"remove not here", here.RuleNotHere(feat), elsewhere.RuleNotHere(feat), "current_worktree", feat.Path},
		{"remove holds no worktree", RuleHoldsNoWorktree(wt(dir, "outer"), Snapshot{Trees: []gitx.Worktree{wt(dir, "outer"), feat}}), RuleHoldsNoWorktree(feat, snap), "contains_worktree", feat.Path},
		{"delete has branch", RuleDeleteHasBranch(wt(feat.Path, ""), true), RuleDeleteHasBranch(wt(feat.Path, ""), false), "no_branch", feat.Path},
		{"not locked", ruleNotLocked(locked), ruleNotLocked(feat), "locked_worktree", "on a usb disk"},
		{"not claimed", ruleNotLocked(claimed), nil, "claimed_worktree", "other"},
		{"not claimed by a running agent", RuleNotLockedByAgent(agentLocked, agentLock{claim: Claim{Session: "claude:fox", PID: 4242, Agent: "claude"}, live: true}), nil, "claimed_worktree", "claude:fox"},
		{"not locked by an ended agent", RuleNotLockedByAgent(agentLocked, agentLock{claim: Claim{Session: "claude:fox", PID: 4242, Agent: "claude"}}), nil, "locked_worktree", "stale"},
		{"status known", RuleStatusKnown(feat, Losses{Status: Status{Error: "index unreadable"}}), RuleStatusKnown(feat, Losses{}), "status_unknown", "index unreadable"},
		{"no operation", RuleNoOperation(feat, Losses{Operation: "rebase"}), RuleNoOperation(feat, Losses{}), "operation_in_progress", "rebase"},
		{"clean", RuleClean(feat, dirty), RuleClean(feat, Losses{}), "dirty_worktree", "2 unstaged"},
		{"clean (hidden)", RuleClean(feat, Losses{Hidden: []string{"secret.txt"}}), nil, "dirty_worktree", "secret.txt"},
		{"no nested", RuleNoNested(feat, Losses{Nested: []string{"vendor/lib"}}), RuleNoNested(feat, Losses{}), "nested_repository", "vendor/lib"},
		{"detached reachable", RuleDetachedReachable(feat, Losses{Detached: 3}), RuleDetachedReachable(feat, Losses{}), "detached_unique_commits", "3 commits"},
		{"branch merged", RuleBranchMerged(feat, Losses{Unique: 1}, true), RuleBranchMerged(feat, Losses{Unique: 1}, false), "unmerged_branch", "feat"},
		{"restore has a head", RuleRecordedHead(RemovedEntry{Path: feat.Path, Commit: "abc1234"}), RuleRecordedHead(RemovedEntry{Path: feat.Path, Head: "abc1234"}), "unborn_head", feat.Path},
		{"land: not main", RuleLandable(main, snap), RuleLandable(feat, snap), "main_checkout", main.Path},
		{"land: on a branch", RuleLandable(wt(feat.Path, ""), snap), nil, "detached_worktree", feat.Path},
		{"land: into another branch", RuleIntoOtherBranch(feat, BranchName{"feat"}), RuleIntoOtherBranch(feat, BranchName{"main"}), "into_is_branch", "feat"},
		{"herdr: not own workspace", RuleNotOwnWorkspace(&RemoveSpec{Target: feat, WsID: "w1"}, "w1"), RuleNotOwnWorkspace(&RemoveSpec{Target: feat, WsID: "w1"}, "w2"), "current_workspace", "w1"},
		{"herdr: not locked", RuleHerdrNotLocked(&RemoveSpec{Target: locked, WsID: "w1"}), RuleHerdrNotLocked(&RemoveSpec{Target: locked}), "locked_worktree", "w1"},
		{"claimable", RuleClaimable(main, snap), RuleClaimable(feat, snap), "main_checkout", main.Path},
		{"not claimed by other", RuleNotClaimedByOther(&ClaimSpec{Target: feat, Session: me, Held: other}), RuleNotClaimedByOther(&ClaimSpec{Target: feat, Session: me, Held: other, Force: true}), "claimed", "other"},
		{"not locked by human", RuleNotLockedByHuman(&ClaimSpec{Target: feat, Human: str("mine")}, "claim"), RuleNotLockedByHuman(&ClaimSpec{Target: feat}, "claim"), "locked_by_human", "mine"},
		{"is claimed", RuleIsClaimed(&ClaimSpec{Release: true, Target: feat}), RuleIsClaimed(&ClaimSpec{Release: true, Target: claimed}), "not_claimed", feat.Path},
		{"claim is ours", RuleClaimIsOurs(&ClaimSpec{Release: true, Target: claimed, Session: me, Held: other}), RuleClaimIsOurs(&ClaimSpec{Release: true, Target: claimed, Session: SessionID{s: "other"}, Held: other}), "claimed_by_other", "other"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.refuses
			if e == nil {
				t.Fatalf("refusing input passed; want %s", c.code)
			}
			if e.Code != c.code || e.Hint == "" || !strings.Contains(e.Message, c.mentions) {
				t.Errorf("got code %q hint %q message %q; want code %s, a hint, a message naming %q", e.Code, e.Hint, e.Message, c.code, c.mentions)
			}
			if c.allows != nil {
				t.Errorf("allowed input refused: %s: %s", c.allows.Code, c.allows.Message)
			}
		})
	}
}
