package core

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Pure verdicts of claim, land and restore: each decides from values alone, and each case
// below fails when the rule it names is dropped.

func claimLock(session string) *string {
	r := FormatClaim(Claim{Session: session, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	return &r
}

func TestLockHolder(t *testing.T) {
	if held, human := ClaimHolder(nil); held != nil || human != nil {
		t.Errorf("unlocked: %v %v", held, human)
	}
	if held, human := ClaimHolder(claimLock("s1")); held == nil || held.Session != "s1" || human != nil {
		t.Errorf("claim: %v %v", held, human)
	}
	reason := "hands off"
	if held, human := ClaimHolder(&reason); held != nil || human == nil || *human != reason {
		t.Errorf("human: %v %v", held, human)
	}
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

func TestWorktreeOn(t *testing.T) {
	trees := []gitx.Worktree{{Path: "/r", Branch: "main"}, {Path: "/a", Branch: "feature"}, {Path: "/b", Branch: "twice"}, {Path: "/c", Branch: "twice"}}
	if w, err := worktreeOn(trees, BranchName{"feature"}); err != nil || w.Path != "/a" {
		t.Errorf("feature: %v %v", w, err)
	}
	if _, err := worktreeOn(trees, BranchName{"twice"}); codeOf(err) != CodeBranchCheckedOutTwice {
		t.Errorf("twice: %v", err)
	}
	_, err := worktreeOn(trees, BranchName{"featur"})
	if codeOf(err) != CodeNoSuchWorktree || !strings.Contains(AsError(err).Hint, "feature") {
		t.Errorf("typo: %v", err)
	}
	if w, err := worktreeAt(trees, AbsPath{"/a/"}); err != nil || w.Branch != "feature" {
		t.Errorf("path: %v %v", w, err)
	}
	if _, err := worktreeAt(trees, AbsPath{"/nope"}); codeOf(err) != CodeNoSuchWorktree {
		t.Errorf("no path: %v", err)
	}
}
