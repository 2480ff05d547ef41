package claim

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

func TestClaimVerdict(t *testing.T) {
	human := "hands off"
	gone := "gitdir gone"
	cases := []struct {
		name    string
		release bool
		locked  *string
		prune   *string
		session string
		force   bool
		code    string // "" = allowed
		already bool
	}{
		{"claim a free worktree", false, nil, nil, "me", false, "", false},
		{"claim again: nothing to do", false, claimLock("me"), nil, "me", false, "", true},
		{"claim another's", false, claimLock("them"), nil, "me", false, core.CodeClaimed, false},
		{"claim another's, forced", false, claimLock("them"), nil, "me", true, "", false},
		{"claim a human's lock", false, &human, nil, "me", false, core.CodeLockedByHuman, false},
		{"claim a human's lock, forced", false, &human, nil, "me", true, "", false},
		{"claim a worktree gone from disk", false, nil, &gone, "me", false, core.CodePrunableWorktree, false},
		{"release own", true, claimLock("me"), nil, "me", false, "", false},
		{"release own, gone from disk", true, claimLock("me"), &gone, "me", false, "", false},
		{"release unclaimed", true, nil, nil, "me", false, core.CodeNotClaimed, false},
		{"release another's", true, claimLock("them"), nil, "me", false, core.CodeClaimedByOther, false},
		{"release another's, forced", true, claimLock("them"), nil, "me", true, "", false},
		{"release a human's lock", true, &human, nil, "me", false, core.CodeLockedByHuman, false},
	}
	for _, c := range cases {
		cmd := &core.ClaimSpec{Release: c.release, Target: gitx.Worktree{Path: "/w", Branch: "b", Locked: c.locked, Prunable: c.prune},
			Session: mustSession(t, c.session), Force: c.force}
		cmd.Held, cmd.Human = core.ClaimHolder(c.locked)
		verb := "claim"
		if c.release {
			verb = "release"
		}
		warnings, e := claimVerdict(cmd, verb)
		switch {
		case c.code == "" && e != nil:
			t.Errorf("%s: refused %s: %s", c.name, e.Code, e.Message)
		case c.code != "" && (e == nil || e.Code != c.code):
			t.Errorf("%s: got %v, want code %s", c.name, e, c.code)
		case cmd.Already != c.already || (len(warnings) > 0) != c.already:
			t.Errorf("%s: already %v, warnings %q, want already %v", c.name, cmd.Already, warnings, c.already)
		}
	}
}

func TestClaimEvent(t *testing.T) {
	human := "hands off"
	cases := []struct {
		name                       string
		release                    bool
		locked                     *string
		session                    string
		event, evSession, previous string
		evPrevious, reason         string
	}{
		{"claim free", false, nil, "me", core.EventClaimed, "me", "", "", ""},
		{"claim taken over", false, claimLock("them"), "me", core.EventClaimed, "me", "them", "them", ""},
		{"claim over a human's lock", false, &human, "me", core.EventClaimed, "me", "", "", "took over a lock copse did not write"},
		{"release own", true, claimLock("me"), "me", core.EventReleased, "me", "", "", ""},
		{"release another's (forced)", true, claimLock("them"), "me", core.EventReleased, "them", "them", "", "forced"},
		{"release a human's lock (forced)", true, &human, "me", core.EventReleased, "me", "", "", "forced: a lock copse did not write"},
	}
	for _, c := range cases {
		cmd := &core.ClaimSpec{Release: c.release, Target: gitx.Worktree{Path: "/w", Locked: c.locked}, Session: mustSession(t, c.session)}
		cmd.Held, cmd.Human = core.ClaimHolder(c.locked)
		ev, previous := claimEvent(cmd)
		if ev.Event != c.event || ev.Session != c.evSession || previous != c.previous || ev.Previous != c.evPrevious || ev.Reason != c.reason {
			t.Errorf("%s: event %s session %q previous %q (event's %q) reason %q", c.name, ev.Event, ev.Session, previous, ev.Previous, ev.Reason)
		}
	}
}

func TestClaimConfirmationLosses(t *testing.T) {
	human := "hands off"
	cmd := &core.ClaimSpec{Target: gitx.Worktree{Path: "/w", Locked: claimLock("them")}, Session: mustSession(t, "me"), Force: true}
	cmd.Held, cmd.Human = core.ClaimHolder(cmd.Target.Locked)
	if conf := claimConfirmation(cmd); len(conf.Losses) != 1 || !strings.Contains(conf.Losses[0], "session them holds it") {
		t.Errorf("taking over: losses %q", conf.Losses)
	}
	cmd = &core.ClaimSpec{Release: true, Target: gitx.Worktree{Path: "/w", Locked: &human}, Force: true}
	cmd.Held, cmd.Human = core.ClaimHolder(cmd.Target.Locked)
	conf := claimConfirmation(cmd)
	if conf.Title != "Release this worktree (forced)?" || len(conf.Losses) != 1 || !strings.Contains(conf.Losses[0], "hands off") {
		t.Errorf("human lock: %q losses %q", conf.Title, conf.Losses)
	}
}

func mustSession(t *testing.T, raw string) core.SessionID {
	t.Helper()
	id, err := core.ParseSession("session", raw)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func claimLock(session string) *string {
	r := core.FormatClaim(core.Claim{Session: session, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	return &r
}
