package core_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/liveproc"
)

// wrapperRecord writes a --run wrapper's record of session in the worktree at path.
func wrapperRecord(t *testing.T, r *coretest.Repo, session, path, state string, pid int, start uint64) {
	t.Helper()
	rec := agentstate.Record{Agent: "run", Session: session, Cwd: path, State: state, Source: agentstate.SourceWrapper, PID: pid, Start: start}
	if state == agentstate.Done {
		code := 0
		rec.ExitCode = &code
	}
	if err := agentstate.Write(agentstate.Dir(r.Getenv), rec); err != nil {
		t.Fatal(err)
	}
}

// A claim whose --run command ended (its wrapper said done, or its process is gone) is
// shown ended and binds nothing: remove goes ahead without --force. A claim whose wrapper
// still runs binds as before.
func TestEndedRunClaimBindsNothingForRemove(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	done := r.AddWorktree("done", "app.worktrees/done")
	gone := r.AddWorktree("gone", "app.worktrees/gone")
	live := r.AddWorktree("live", "app.worktrees/live")
	since := time.Now().Add(-time.Minute)
	for path, sess := range map[string]string{done: "agent:done", gone: "agent:gone", live: "agent:live"} {
		r.Git(r.Root, "worktree", "lock", "--reason", core.FormatClaim(core.Claim{Session: sess, Since: since}), path)
	}
	wrapperRecord(t, r, "agent:done", done, agentstate.Done, 0, 0)
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	wrapperRecord(t, r, "agent:gone", gone, agentstate.Working, ended.Process.Pid, 1)
	self, _ := liveproc.StartTicks(os.Getpid())
	wrapperRecord(t, r, "agent:live", live, agentstate.Working, os.Getpid(), self)

	s := open(t, r, r.Root)
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{done: true, gone: true, live: false}
	for _, w := range l.Worktrees {
		if exp, ok := want[w.Path]; ok && (w.Claim == nil || w.Claim.Ended != exp) {
			t.Errorf("%s: claim %+v, want ended=%v", w.Path, w.Claim, exp)
		}
	}

	before := r.Snapshot()
	if _, err := do(t, s, core.RemoveRequest{Path: &live}); core.AsError(err).Code != core.CodeClaimedWorktree {
		t.Fatalf("remove of a worktree whose agent runs: %v, want %s", err, core.CodeClaimedWorktree)
	}
	r.Unchanged(before)
	for _, p := range []string{done, gone} {
		if _, err := do(t, s, core.RemoveRequest{Path: &p}); err != nil {
			t.Fatalf("remove of %s, whose agent ended: %v", p, err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists: %v", p, err)
		}
	}
}

// A claim the same session takes again well after its command ended is a new claim.
func TestClaimTakenAfterTheRunEndedStillBinds(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	p := r.AddWorktree("again", "app.worktrees/again")
	wrapperRecord(t, r, "agent:again", p, agentstate.Done, 0, 0)
	r.Git(r.Root, "worktree", "lock", "--reason", core.FormatClaim(core.Claim{Session: "agent:again", Since: time.Now().Add(time.Minute)}), p)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	if _, err := do(t, s, core.RemoveRequest{Path: &p}); core.AsError(err).Code != core.CodeClaimedWorktree {
		t.Fatalf("remove: %v, want %s", err, core.CodeClaimedWorktree)
	}
	r.Unchanged(before)
}

// Switching to a worktree marks its done agents read (they stay unread until then); the
// done agents of other worktrees stay unread.
func TestSwitchMarksTheWorktreesDoneAgentsRead(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("a", "app.worktrees/a")
	b := r.AddWorktree("b", "app.worktrees/b")
	wrapperRecord(t, r, "agent:a", a, agentstate.Done, 0, 0)
	wrapperRecord(t, r, "agent:b", b, agentstate.Done, 0, 0)
	s := open(t, r, r.Root)
	if _, err := do(t, s, core.SwitchRequest{Path: &a}); err != nil {
		t.Fatal(err)
	}
	recs, err := agentstate.ReadAll(agentstate.Dir(r.Getenv))
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %v, %v", recs, err)
	}
	for _, rec := range recs {
		if read := !rec.Read.IsZero(); read != (rec.Cwd == a) {
			t.Errorf("record of %s: read=%v after switching to %s", rec.Cwd, read, a)
		}
	}
}

// Prune removes an idle worktree whose claim's --run command ended (unlocking it), and
// keeps one whose agent still runs.
func TestPruneRemovesAnIdleWorktreeWhoseRunEnded(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	done := r.AddWorktree("done", "app.worktrees/done")
	live := r.AddWorktree("live", "app.worktrees/live")
	since := time.Now().Add(-3 * time.Hour)
	for path, sess := range map[string]string{done: "agent:done", live: "agent:live"} {
		r.Git(r.Root, "worktree", "lock", "--reason", core.FormatClaim(core.Claim{Session: sess, Since: since}), path)
	}
	age(t, r, "done", 2*time.Hour)
	age(t, r, "live", 2*time.Hour)
	wrapperRecord(t, r, "agent:done", done, agentstate.Done, 0, 0)
	self, _ := liveproc.StartTicks(os.Getpid())
	wrapperRecord(t, r, "agent:live", live, agentstate.Working, os.Getpid(), self)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.PruneRequest{OlderThan: core.Str("1h")})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(out.Prune); got["done"] != "removed:idle" || got["live"] != "kept:claimed" {
		t.Fatalf("prune: %v", got)
	}
	if _, err := os.Stat(done); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", done, err)
	}
}

// A land of a worktree whose claim's --run command ended needs no --force-claim: it lands,
// and its clean-up removes the worktree (unlocking it).
func TestLandOfAWorktreeWhoseRunEndedNeedsNoForce(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/ran", "ran.txt", "ran\n")
	r.Git(r.Root, "worktree", "lock", "--reason", core.FormatClaim(core.Claim{Session: "agent:feat-ran", Since: time.Now().Add(-time.Minute)}), w)
	wrapperRecord(t, r, "agent:feat-ran", w, agentstate.Done, 0, 0)
	out, err := land(t, openAs(t, r, r.Root, "agent-2"), core.LandRequest{Branch: core.Str("feat/ran")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	if out.Land == nil || out.Land.State != core.LandLanded {
		t.Fatalf("land outcome %+v", out.Land)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) {
		t.Errorf("the clean-up kept %s: %v (warnings %v)", w, err, out.Land.Warnings)
	}
}
