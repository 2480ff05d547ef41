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

func TestLandClaimVerdict(t *testing.T) {
	human := "hands off"
	cases := []struct {
		name     string
		locked   *string
		force    bool
		takeOver string
		code     string
	}{
		{"unclaimed", nil, false, "", ""},
		{"a human's lock is not a claim", &human, false, "", ""},
		{"own claim", claimLock("me"), false, "", ""},
		{"another's claim", claimLock("them"), false, "", CodeClaimedByOther},
		{"another's claim, forced", claimLock("them"), true, "them", ""},
	}
	for _, c := range cases {
		held, err := landClaimVerdict(gitx.Worktree{Path: "/w", Branch: "b", Locked: c.locked}, "me", c.force)
		got := ""
		if held != nil {
			got = held.Session
		}
		if code := codeOf(err); code != c.code || got != c.takeOver {
			t.Errorf("%s: take over %q code %q, want %q %q", c.name, got, code, c.takeOver, c.code)
		}
	}
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

func TestDefaultInto(t *testing.T) {
	cases := []struct {
		name     string
		recorded string
		main     gitx.Worktree
		want     string
		code     string
	}{
		{"recorded base wins", "dev", gitx.Worktree{Branch: "main"}, "dev", ""},
		{"the main checkout's branch", "", gitx.Worktree{Branch: "main"}, "main", ""},
		{"detached main checkout", "", gitx.Worktree{Detached: true}, "", CodeNoDefaultTarget},
		{"bare main", "", gitx.Worktree{Bare: true, Branch: "main"}, "", CodeNoDefaultTarget},
	}
	for _, c := range cases {
		b, err := defaultInto(c.recorded, c.main)
		if b.s != c.want || codeOf(err) != c.code {
			t.Errorf("%s: %q %q, want %q %q", c.name, b.s, codeOf(err), c.want, c.code)
		}
	}
}

func TestTargetHolder(t *testing.T) {
	gone := "gone"
	busy := func(path string) func(gitx.Worktree) string {
		return func(t gitx.Worktree) string {
			if t.Path == path {
				return "refs/heads/main"
			}
			return ""
		}
	}
	none := busy("")
	main := gitx.Worktree{Path: "/r", Branch: "main"}
	feat := gitx.Worktree{Path: "/f", Branch: "feat"}
	cases := []struct {
		name   string
		trees  []gitx.Worktree
		busy   func(gitx.Worktree) string
		holder string
		code   string
	}{
		{"one checkout", []gitx.Worktree{main, feat}, none, "/r", ""},
		{"no checkout", []gitx.Worktree{{Path: "/r", Branch: "dev"}, feat}, none, "", ""},
		{"bare main is no checkout", []gitx.Worktree{{Path: "/r", Bare: true, Branch: "main"}, feat}, none, "", ""},
		{"checkout gone from disk", []gitx.Worktree{{Path: "/g", Branch: "main", Prunable: &gone}, feat}, none, "", ""},
		{"checked out twice", []gitx.Worktree{main, {Path: "/m2", Branch: "main"}}, none, "", CodeTargetCheckedOutTwice},
		{"rebased elsewhere", []gitx.Worktree{main, feat}, busy("/f"), "", CodeTargetBusy},
		{"busy but gone from disk", []gitx.Worktree{main, {Path: "/f", Prunable: &gone}}, busy("/f"), "/r", ""},
	}
	for _, c := range cases {
		h, e := targetHolder(c.trees, "main", c.busy)
		got := ""
		if h != nil {
			got = h.Path
		}
		code := ""
		if e != nil {
			code = e.Code
		}
		if got != c.holder || code != c.code {
			t.Errorf("%s: holder %q code %q, want %q %q", c.name, got, code, c.holder, c.code)
		}
	}
}

func TestQueueView(t *testing.T) {
	jobs := []LandJob{
		{Job: "land-1", State: LandLanded, Owned: true},
		{Job: "land-2", State: LandQueued, Owned: true},
		{Job: "land-3", State: LandQueued},
	}
	me, head, unowned := queueView(jobs, "land-3")
	if me == nil || me.Job != "land-3" || head == nil || head.Job != "land-2" || !unowned {
		t.Errorf("queue: me %v head %v unowned %v", me, head, unowned)
	}
	me, head, unowned = queueView(jobs[:2], "land-9")
	if me != nil || head == nil || head.Job != "land-2" || unowned {
		t.Errorf("mine missing: me %v head %v unowned %v", me, head, unowned)
	}
	if _, head, _ := queueView(jobs[:1], ""); head != nil {
		t.Errorf("all finished: head %v", head)
	}
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
