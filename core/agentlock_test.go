package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Claude Code's own worktrees: under .claude/worktrees/, locked "claude session <name> (pid
// N)". While that pid runs (and started before the lock was written) the lock is a claim of
// that session: list shows it, remove refuses without --force, prune keeps it claimed.
// Once the pid is gone, or is a process that started after the lock (a reused pid), the lock
// is stale: no claim, and remove says so.

func claudeWorktree(t *testing.T, r *coretest.Repo, name string, pid int) string {
	t.Helper()
	wt := r.AddWorktree("claude-"+name, ".claude/worktrees/"+name)
	r.Git(r.Root, "worktree", "lock", "--reason", fmt.Sprintf("claude session %s (pid %d)", name, pid), wt)
	return wt
}

func rowAt(t *testing.T, s *core.Service, path string) core.Worktree {
	t.Helper()
	l, err := s.List(bg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range l.Worktrees {
		if w.Path == path {
			return w
		}
	}
	t.Fatalf("%s is not listed", path)
	return core.Worktree{}
}

func TestClaudeLockIsAClaimWhileItsSessionRuns(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pid := coretest.StartLive(t, t.TempDir(), "sleep", "600")
	time.Sleep(20 * time.Millisecond) // the lock is written after the session started
	wt := claudeWorktree(t, r, "bold-fox", pid)
	s := open(t, r, r.Root)

	w := rowAt(t, s, wt)
	if c := w.Claim; c == nil || c.Session != "claude:bold-fox" || c.PID != pid || c.Agent != "claude" || c.Since.IsZero() || w.LockStale {
		t.Fatalf("row %+v claim %+v; want claude:bold-fox, pid %d", w, w.Claim, pid)
	}
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, core.CodeClaimedWorktree)
	if msg := err.Error(); !strings.Contains(msg, "claude:bold-fox") || !strings.Contains(msg, fmt.Sprint(pid)) {
		t.Errorf("refusal %q does not name the session and its pid", msg)
	}
	age(t, r, filepath.Base(wt), 100*time.Hour)
	res, err := do(t, s, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(res.Prune)[filepath.Base(wt)]; got != "kept:"+core.KeepClaimed {
		t.Errorf("prune: %s is %q; want kept claimed", wt, got)
	}
	r.Unchanged(before)

	// The session ends: the lock is stale, no claim; remove says so and needs --force for
	// the lock, which it then removes with the worktree.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var row core.Worktree
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if row = rowAt(t, s, wt); row.Claim == nil || time.Now().After(deadline) {
			break
		}
	}
	if row.Claim != nil || !row.LockStale {
		t.Fatalf("after the session ended: claim %+v, stale %v", row.Claim, row.LockStale)
	}
	res, err = do(t, s, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(res.Prune)[filepath.Base(wt)]; got != "kept:"+core.KeepLocked {
		t.Errorf("prune after the session ended: %s is %q; want kept locked (prune never unlocks)", wt, got)
	}
	for _, k := range res.Prune.Kept {
		if k.Path == wt && !strings.Contains(k.Detail, "stale") {
			t.Errorf("prune's reason %q does not say the lock is stale", k.Detail)
		}
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, core.CodeLockedWorktree)
	if msg := err.Error(); !strings.Contains(msg, "stale") || !strings.Contains(msg, "--force") {
		t.Errorf("refusal %q does not say the lock is stale and --force removes it", msg)
	}
	r.Unchanged(before)
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true}); err != nil {
		t.Fatalf("forced remove of a worktree with a stale lock: %v", err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", wt, err)
	}
}

// A pid that runs, but started after the lock was written, is another program that got the
// number: the lock is stale.
func TestClaudeLockWithAReusedPidIsStale(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pid := coretest.StartLive(t, t.TempDir(), "sleep", "600")
	wt := claudeWorktree(t, r, "calm-owl", pid)
	id := filepath.Base(wt)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", id, "locked"), old, old); err != nil {
		t.Fatal(err)
	}
	w := rowAt(t, open(t, r, r.Root), wt)
	if w.Claim != nil || !w.LockStale {
		t.Fatalf("a lock written before its pid started: claim %+v, stale %v", w.Claim, w.LockStale)
	}
}
