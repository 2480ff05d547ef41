package core

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// What keeps a worktree before prune reads anything about it, in the order that decides.
func TestPruneStays(t *testing.T) {
	human, claim, gone := "maintenance", FormatClaim(Claim{Session: "s1", Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}), "gitdir file points to non-existent location"
	cases := []struct {
		name          string
		first, cur    bool
		t             gitx.Worktree
		reason, inDet string
	}{
		{"main first", true, false, gitx.Worktree{Path: "/m"}, KeepMain, "main checkout"},
		{"bare", false, false, gitx.Worktree{Path: "/b", Bare: true}, KeepMain, "main checkout"},
		{"main even if current", true, true, gitx.Worktree{Path: "/m"}, KeepMain, ""},
		{"current", false, true, gitx.Worktree{Path: "/w", Locked: &human}, KeepCurrent, "running in it"},
		{"human lock", false, false, gitx.Worktree{Path: "/w", Locked: &human}, KeepLocked, "locked by a human: maintenance"},
		{"claim", false, false, gitx.Worktree{Path: "/w", Locked: &claim}, KeepClaimed, "session s1 since 2026-01-02T03:04:05Z"},
		{"lock before gone", false, false, gitx.Worktree{Path: "/w", Locked: &human, Prunable: &gone}, KeepLocked, ""},
		{"gone", false, false, gitx.Worktree{Path: "/w", Prunable: &gone}, PruneGone, "directory gone: gitdir"},
		{"nothing yet", false, false, gitx.Worktree{Path: "/w"}, "", ""},
	}
	for _, c := range cases {
		reason, detail := pruneStays(c.first, c.cur, false, c.t)
		if reason != c.reason || !strings.Contains(detail, c.inDet) {
			t.Errorf("%s: pruneStays = %q %q, want %q containing %q", c.name, reason, detail, c.reason, c.inDet)
		}
	}
}

func TestIdleKeep(t *testing.T) {
	cases := []struct {
		name   string
		idle   time.Duration
		known  bool
		older  time.Duration
		reason string
		detail string
	}{
		{"unknown", time.Hour, false, time.Minute, KeepNotIdle, "cannot tell how long it has been idle"},
		{"never", 1000 * time.Hour, true, Never, KeepNotIdle, "idle 1000h0m0s; the idle threshold is never"},
		{"too recent", 90 * time.Minute, true, 2 * time.Hour, KeepNotIdle, "idle 1h30m0s, less than 2h"},
		{"exactly the threshold", 2 * time.Hour, true, 2 * time.Hour, "", ""},
		{"idle long enough", 3 * time.Hour, true, 2 * time.Hour, "", ""},
	}
	for _, c := range cases {
		reason, detail := idleKeep(c.idle, c.known, c.older)
		if reason != c.reason || detail != c.detail {
			t.Errorf("%s: idleKeep = %q %q, want %q %q", c.name, reason, detail, c.reason, c.detail)
		}
	}
}

// The confirmation's reasons must not change while it is open: moving details are replaced.
func TestKeptWhy(t *testing.T) {
	cases := []struct {
		e     PruneEntry
		older time.Duration
		want  string
	}{
		{PruneEntry{Reason: KeepNotIdle, Detail: "idle 5m0s, less than 72h"}, 72 * time.Hour, "not idle for 72h yet"},
		{PruneEntry{Reason: KeepNotIdle, Detail: "idle 5m0s; the idle threshold is never"}, Never, "the idle threshold is never"},
		{PruneEntry{Reason: KeepLanding, Detail: "a land job is queued or running (job land-3, rebasing)"}, time.Hour, "a land job is queued or running"},
		{PruneEntry{Reason: KeepProcesses, Detail: "1 process working in it: vim (pid 7)"}, time.Hour, "processes work in it"},
		{PruneEntry{Reason: KeepDirty, Detail: "uncommitted changes: 1 modified"}, time.Hour, "uncommitted changes: 1 modified"},
	}
	for _, c := range cases {
		if got := keptWhy(c.e, c.older); got != c.want {
			t.Errorf("keptWhy(%s) = %q, want %q", c.e.Reason, got, c.want)
		}
	}
}

func TestLandKeep(t *testing.T) {
	if r, d := landKeep(landJob{blocked: true, detail: " (job land-1: conflict)"}); r != KeepBlocked || d != "its land is blocked (job land-1: conflict)" {
		t.Errorf("blocked: %q %q", r, d)
	}
	if r, d := landKeep(landJob{detail: " (job land-2, rebasing)"}); r != KeepLanding || d != "a land job is queued or running (job land-2, rebasing)" {
		t.Errorf("landing: %q %q", r, d)
	}
}

func TestIgnoredRaw(t *testing.T) {
	l := Losses{Ignored: 5, IgnoredSample: []string{"a\nb", "c", "d", "e"}}
	if got, want := ignoredRaw(l), "5 ignored files deleted with it: a\nb, c, d and 2 more"; got != want {
		t.Errorf("ignoredRaw = %q, want %q", got, want)
	}
	l = Losses{Ignored: 1, IgnoredSample: []string{"x"}}
	if got, want := ignoredRaw(l), "1 ignored file deleted with it: x"; got != want {
		t.Errorf("ignoredRaw = %q, want %q", got, want)
	}
}
