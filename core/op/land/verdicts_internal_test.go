package land

import (
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/backend"
	"github.com/copse-dev/copse/gitx"
)

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
		{"own claim", landClaimLock("me"), false, "", ""},
		{"another's claim", landClaimLock("them"), false, "", core.CodeClaimedByOther},
		{"another's claim, forced", landClaimLock("them"), true, "them", ""},
	}
	for _, c := range cases {
		held, err := landClaimVerdict(gitx.Worktree{Path: "/w", Branch: "b", Locked: c.locked}, "me", c.force)
		got := ""
		if held != nil {
			got = held.Session
		}
		if code := landCodeOf(err); code != c.code || got != c.takeOver {
			t.Errorf("%s: take over %q code %q, want %q %q", c.name, got, code, c.takeOver, c.code)
		}
	}
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
		{"detached main checkout", "", gitx.Worktree{Detached: true}, "", core.CodeNoDefaultTarget},
		{"bare main", "", gitx.Worktree{Bare: true, Branch: "main"}, "", core.CodeNoDefaultTarget},
	}
	for _, c := range cases {
		b, err := defaultInto(c.recorded, c.main)
		if b.String() != c.want || landCodeOf(err) != c.code {
			t.Errorf("%s: %q %q, want %q %q", c.name, b.String(), landCodeOf(err), c.want, c.code)
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
		{"checked out twice", []gitx.Worktree{main, {Path: "/m2", Branch: "main"}}, none, "", core.CodeTargetCheckedOutTwice},
		{"rebased elsewhere", []gitx.Worktree{main, feat}, busy("/f"), "", core.CodeTargetBusy},
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
	jobs := []core.LandJob{
		{Job: "land-1", State: core.LandLanded, Owned: true},
		{Job: "land-2", State: core.LandQueued, Owned: true},
		{Job: "land-3", State: core.LandQueued},
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

// landOps are the operations these tests open services with: the land family's own.
var landOps = core.NewRegistry(LandOp, LandStatusOp, LandDrainOp).WithBackends(backend.Picker{})

func landClaimLock(session string) *string {
	r := core.FormatClaim(core.Claim{Session: session, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	return &r
}

func landCodeOf(err error) string {
	if err == nil {
		return ""
	}
	return core.AsError(err).Code
}
