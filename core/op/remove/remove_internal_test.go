package remove

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
)

func TestRestoreMismatch(t *testing.T) {
	e := core.RemovedEntry{ID: "abcd1234", Head: strings.Repeat("a", 40), Branch: "feat"}
	cases := []struct {
		name   string
		mode   int
		t      gitx.Worktree
		listed bool
		code   string
	}{
		{"as asked, on the branch", gitx.AddExistingRef, gitx.Worktree{Head: e.Head, Branch: "feat"}, true, ""},
		{"as asked, detached", gitx.AddDetached, gitx.Worktree{Head: e.Head, Detached: true}, true, ""},
		{"not listed", gitx.AddExistingRef, gitx.Worktree{}, false, core.CodeRestoreNotListed},
		{"another commit", gitx.AddExistingRef, gitx.Worktree{Head: strings.Repeat("b", 40), Branch: "feat"}, true, core.CodeRestoreWrongCommit},
		{"another branch", gitx.AddNewBranch, gitx.Worktree{Head: e.Head, Branch: "other"}, true, core.CodeRestoreWrongBranch},
		{"not detached as asked", gitx.AddDetached, gitx.Worktree{Head: e.Head, Branch: "feat"}, true, core.CodeRestoreWrongBranch},
	}
	for _, c := range cases {
		cmd := &restoreCmd{entry: e, path: core.GitsPath("/w"), mode: c.mode, branch: "feat"}
		if code := codeOf(restoreMismatch(cmd, c.t, c.listed)); code != c.code {
			t.Errorf("%s: code %q, want %q", c.name, code, c.code)
		}
	}
}

func TestRestoreAddFailure(t *testing.T) {
	other := &gitx.Error{Kind: gitx.ErrExit, Stderr: "fatal: no"}
	cases := []struct {
		name    string
		err     error
		nothing bool
		code    string
		kind    core.Kind
	}{
		{"failed, nothing changed", other, true, core.CodeRestoreFailed, core.KindFailed},
		{"cancelled, nothing changed", &gitx.Error{Kind: gitx.ErrCanceled}, true, core.CodeCancelled, core.KindCancelled},
		{"failed, list changed", other, false, core.CodeRestoreUncertain, core.KindUncertain},
	}
	for _, c := range cases {
		e := core.AsError(restoreAddFailure("abcd", "/w", c.err, c.nothing))
		if e.Code != c.code || e.Kind != c.kind {
			t.Errorf("%s: %s %d, want %s %d", c.name, e.Code, e.Kind, c.code, c.kind)
		}
	}
}

// What keeps a worktree before prune reads anything about it, in the order that decides.
func TestPruneStays(t *testing.T) {
	human, claim, gone := "maintenance", core.FormatClaim(core.Claim{Session: "s1", Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}), "gitdir file points to non-existent location"
	cases := []struct {
		name          string
		first, cur    bool
		t             gitx.Worktree
		reason, inDet string
	}{
		{"main first", true, false, gitx.Worktree{Path: "/m"}, core.KeepMain, "main checkout"},
		{"bare", false, false, gitx.Worktree{Path: "/b", Bare: true}, core.KeepMain, "main checkout"},
		{"main even if current", true, true, gitx.Worktree{Path: "/m"}, core.KeepMain, ""},
		{"current", false, true, gitx.Worktree{Path: "/w", Locked: &human}, core.KeepCurrent, "running in it"},
		{"human lock", false, false, gitx.Worktree{Path: "/w", Locked: &human}, core.KeepLocked, "locked by a human: maintenance"},
		{"claim", false, false, gitx.Worktree{Path: "/w", Locked: &claim}, core.KeepClaimed, "session s1 since 2026-01-02T03:04:05Z"},
		{"lock before gone", false, false, gitx.Worktree{Path: "/w", Locked: &human, Prunable: &gone}, core.KeepLocked, ""},
		{"gone", false, false, gitx.Worktree{Path: "/w", Prunable: &gone}, core.PruneGone, "directory gone: gitdir"},
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
		{"unknown", time.Hour, false, time.Minute, core.KeepNotIdle, "cannot tell how long it has been idle"},
		{"never", 1000 * time.Hour, true, core.Never, core.KeepNotIdle, "idle 1000h0m0s; the idle threshold is never"},
		{"too recent", 90 * time.Minute, true, 2 * time.Hour, core.KeepNotIdle, "idle 1h30m0s, less than 2h"},
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
		e     core.PruneEntry
		older time.Duration
		want  string
	}{
		{core.PruneEntry{Reason: core.KeepNotIdle, Detail: "idle 5m0s, less than 72h"}, 72 * time.Hour, "not idle for 72h yet"},
		{core.PruneEntry{Reason: core.KeepNotIdle, Detail: "idle 5m0s; the idle threshold is never"}, core.Never, "the idle threshold is never"},
		{core.PruneEntry{Reason: core.KeepLanding, Detail: "a land job is queued or running (job land-3, rebasing)"}, time.Hour, "a land job is queued or running"},
		{core.PruneEntry{Reason: core.KeepProcesses, Detail: "1 process working in it: vim (pid 7)"}, time.Hour, "processes work in it"},
		{core.PruneEntry{Reason: core.KeepDirty, Detail: "uncommitted changes: 1 modified"}, time.Hour, "uncommitted changes: 1 modified"},
	}
	for _, c := range cases {
		if got := keptWhy(c.e, c.older); got != c.want {
			t.Errorf("keptWhy(%s) = %q, want %q", c.e.Reason, got, c.want)
		}
	}
}

func TestLandKeep(t *testing.T) {
	if r, d := landKeep(landJob{blocked: true, detail: " (job land-1: conflict)"}); r != core.KeepBlocked || d != "its land is blocked (job land-1: conflict)" {
		t.Errorf("blocked: %q %q", r, d)
	}
	if r, d := landKeep(landJob{detail: " (job land-2, rebasing)"}); r != core.KeepLanding || d != "a land job is queued or running (job land-2, rebasing)" {
		t.Errorf("landing: %q %q", r, d)
	}
}

func TestIgnoredRaw(t *testing.T) {
	l := core.Losses{Ignored: 5, IgnoredSample: []string{"a\nb", "c", "d", "e"}}
	if got, want := ignoredRaw(l), "5 ignored files deleted with it: a\nb, c, d and 2 more"; got != want {
		t.Errorf("ignoredRaw = %q, want %q", got, want)
	}
	l = core.Losses{Ignored: 1, IgnoredSample: []string{"x"}}
	if got, want := ignoredRaw(l), "1 ignored file deleted with it: x"; got != want {
		t.Errorf("ignoredRaw = %q, want %q", got, want)
	}
}

// A backend's refusal (tmux refusing to close the window copse runs in) is kept in prune's
// report in its own words, not as git's.
func TestPruneRefusedDetailKeepsTheBackendsOwnWords(t *testing.T) {
	t.Parallel()
	own := core.Refused(core.CodeCurrentWorkspace, "", "tmux window @3 is the one copse runs in")
	if got := pruneRefusedDetail(own); got != "not removed: tmux window @3 is the one copse runs in" {
		t.Errorf("backend refusal: %q", got)
	}
	if got := pruneRefusedDetail(fmt.Errorf("exit status 128")); got != "git refused to remove it: exit status 128" {
		t.Errorf("git failure: %q", got)
	}
}

// Remove names each verdict with its code, as it did before the step was shared.
func TestRemoveFailureCodes(t *testing.T) {
	dirty := &gitx.Error{Kind: gitx.ErrExit, Stderr: "fatal: '/x' contains modified or untracked files, use --force to delete it"}
	other := &gitx.Error{Kind: gitx.ErrExit, Stderr: "fatal: something else"}
	own := core.Refused(core.CodeLockedWorktree, "unlock it", "locked")
	cases := []struct {
		name string
		r    removal.Removal
		code string
		kind core.Kind
	}{
		{"done", removal.Removal{Verdict: removal.RemovalDone}, "", 0},
		{"incomplete", removal.Removal{Verdict: removal.RemovalIncomplete, Listed: true}, core.CodeRemoveIncomplete, core.KindUncertain},
		{"refused dirty", removal.Removal{Verdict: removal.RemovalNothing, RunErr: dirty, Listed: true, OnDisk: true}, core.CodeDirtyWorktree, core.KindRefused},
		{"refused other", removal.Removal{Verdict: removal.RemovalNothing, RunErr: other, Listed: true, OnDisk: true}, core.CodeRemoveFailed, core.KindFailed},
		{"refused by copse", removal.Removal{Verdict: removal.RemovalNothing, RunErr: own, Listed: true, OnDisk: true}, core.CodeLockedWorktree, core.KindRefused},
		{"cancelled, nothing removed", removal.Removal{Verdict: removal.RemovalNothing, RunErr: context.Canceled, Listed: true, OnDisk: true}, core.CodeCancelled, core.KindCancelled},
		{"cancelled half way", removal.Removal{Verdict: removal.RemovalPartial, RunErr: context.Canceled, Listed: true}, core.CodeRemoveInterrupted, core.KindCancelled},
		{"failed half way", removal.Removal{Verdict: removal.RemovalPartial, RunErr: other, OnDisk: true}, core.CodeRemoveInterrupted, core.KindUncertain},
		{"gone though failed", removal.Removal{Verdict: removal.RemovalGoneAnyway, RunErr: other}, core.CodeRemoveInterrupted, core.KindUncertain},
		{"uncertain backend", removal.Removal{Verdict: removal.RemovalNothing, RunErr: core.Uncertain(core.CodeRemoveUnverified, nil, "h", "m"), Listed: true, OnDisk: true}, core.CodeRemoveUnverified, core.KindUncertain},
	}
	for _, c := range cases {
		err := removeFailure("/x", c.r)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: removeFailure = %v, want nil", c.name, err)
			}
			continue
		}
		var e *core.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: removeFailure = %v, want a *Error", c.name, err)
		}
		if e.Code != c.code || e.Kind != c.kind {
			t.Errorf("%s: code %s kind %d, want %s %d (%s)", c.name, e.Code, e.Kind, c.code, c.kind, e.Message)
		}
	}
}

// A claim whose --run command ended keeps nothing in prune: it goes on to the other checks.
func TestPruneStaysPastAnEndedClaim(t *testing.T) {
	claim := core.FormatClaim(core.Claim{Session: "agent:x", Since: time.Now()})
	w := gitx.Worktree{Path: "/w", Locked: &claim}
	if reason, _ := pruneStays(false, false, true, w); reason != "" {
		t.Errorf("pruneStays(ended) = %q, want nothing keeping it yet", reason)
	}
	if reason, detail := pruneStays(false, false, false, w); reason != core.KeepClaimed || !strings.Contains(detail, "agent:x") {
		t.Errorf("pruneStays(live claim) = %q %q, want %q", reason, detail, core.KeepClaimed)
	}
}

// The confirmation of a forced remove under Herdr says Herdr closes the idle shell of the
// worktree's workspace with it (the shell itself does not keep the worktree).
func TestRemoveConfirmationNamesTheIdleShellHerdrCloses(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "stdin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	idle := coretest.StartLiveEnv(t, wt, []string{core.HerdrWorkspaceEnv + "=wT"}, "sh", "-c", `read x <> "$0"`, fifo)
	coretest.WaitOpen(t, idle, fifo)
	w := gitx.Worktree{Path: wt, Branch: "feat"}
	closes := "Herdr closes workspace wT and ends the processes running in it" // what the Herdr backend says of wT
	conf := removeConfirmation(core.RemoveRequest{Branch: core.Str("feat"), Force: true}, w, "wT", core.Losses{}, core.LiveIn(wt, "wT"), closes)
	if want := fmt.Sprintf("Herdr closes workspace wT and ends the processes running in it, among them 1 idle shell of its panes (pid %d)", idle); !strings.Contains(conf.Line(), want) {
		t.Fatalf("confirmation %q does not say %q", conf.Line(), want)
	}
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return core.AsError(err).Code
}
