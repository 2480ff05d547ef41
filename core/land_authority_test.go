package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Who may land what: claims bind land, and a command from a request needs a person.

const claimAgent1 = "copse claim: session=agent-1 since=2026-01-01T00:00:00Z"

func TestLandRefusesWorktreeClaimedByOtherSession(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/c", "c.txt", "c\n")
	r.Git(r.Root, "worktree", "lock", "--reason", claimAgent1, w)
	before := r.Snapshot()
	for name, s := range map[string]*core.Service{"another session": openAs(t, r, r.Root, "agent-2"), "no session": open(t, r, r.Root)} {
		_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/c")})
		wantCode(t, err, core.KindRefused, core.CodeClaimedByOther)
		if e := core.AsError(err); !strings.Contains(e.Message, "agent-1") || !strings.Contains(e.Hint, "--force-claim") {
			t.Fatalf("%s: the refusal must name the holder and the way out: %v (%s)", name, e, e.Hint)
		}
		if core.ExitCode(err) != 1 {
			t.Fatalf("%s: exit %d, want 1", name, core.ExitCode(err))
		}
	}
	r.Unchanged(before)
	if _, err := os.Stat(filepath.Join(r.Root, ".git", "copse", "land")); err == nil {
		t.Fatal("a refused land queued a job")
	}
}

func TestLandForceClaimNeedsApprovalThenTakesOver(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/f", "f.txt", "f\n")
	r.Git(r.Root, "worktree", "lock", "--reason", claimAgent1, w)
	s := openAs(t, r, r.Root, "agent-2")
	req := core.LandRequest{Branch: core.Str("feat/f"), ForceClaim: true, Wait: true}
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil || !strings.Contains(p.Confirm.Line(), "session agent-1") || !strings.Contains(p.Confirm.Line(), "loses its claim") {
		t.Fatalf("a forced land must ask first, naming the claim it takes: %+v", p.Confirm)
	}
	// Not approved: needs_approval, nothing runs.
	_, err = s.Do(context.Background(), req, false)
	wantCode(t, err, core.KindRefused, core.CodeNeedsApproval)
	r.Unchanged(before)
	// Approved with the token of what was shown: it lands, releases the claim it took
	// over and cleans up.
	req.ExpectedStateToken = core.Str(string(p.Token))
	out, err := s.Do(context.Background(), req, true)
	if err != nil {
		t.Fatal(err)
	}
	if j := out.Land; j.State != core.LandLanded || !j.Released || !j.Removed || j.TakeOver == nil || j.TakeOver.Session != "agent-1" {
		t.Fatalf("forced land: %+v", j)
	}
}

// A claim another session takes while the land runs (here: its test gate) keeps the
// worktree and the claim; the land itself stands.
func TestLandCleanupKeepsWorktreeClaimedByOther(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/k", "k.txt", "k\n")
	r.Git(r.Root, "config", "copse.test", `git worktree lock --reason "copse claim: session=agent-2 since=2026-01-01T00:00:00Z" "$PWD"`)
	s := openAs(t, r, r.Root, "agent-1")
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/k")})
	if err != nil {
		t.Fatal(err)
	}
	j := out.Land
	if j.State != core.LandLanded || j.Removed || j.Released || j.BranchGone {
		t.Fatalf("clean-up touched a worktree another session claimed: %+v", j)
	}
	if len(j.Warnings) == 0 || !strings.Contains(j.Warnings[0], "claimed by session agent-2") {
		t.Fatalf("warnings %q", j.Warnings)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatal("the claimed worktree was removed")
	}
	if !strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "session=agent-2") {
		t.Fatal("agent-2's claim was released")
	}
}

// A claim taken while the job waited in the queue blocks it at the head.
func TestLandQueuedThenClaimedByOtherIsBlocked(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/q", "q.txt", "q\n")
	s := openAs(t, r, r.Root, "agent-1")
	p, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/q")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(context.Background(), p); err != nil { // queued, not run
		t.Fatal(err)
	}
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-2 since=2026-01-01T00:00:00Z", w)
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	drained, err := s.Do(context.Background(), core.LandDrainRequest{}, false)
	if err != nil {
		t.Fatal(err)
	}
	ran := drained.LandJobs
	if len(ran) != 1 || ran[0].State != core.LandBlocked || ran[0].Code != core.CodeClaimedByOther || !strings.Contains(ran[0].Message, "agent-2") {
		t.Fatalf("ran %+v", ran)
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
}

func TestLandRequestTestNeedsApproval(t *testing.T) {
	r := coretest.New(t)
	feature(t, r, "feat/t", "t.txt", "t\n")
	marker := filepath.Join(r.Base, "gate-ran")
	cmd := `touch "` + marker + `" && echo 'a;b' $HOME`
	s := open(t, r, r.Root)
	req := core.LandRequest{Branch: core.Str("feat/t"), Test: core.Str(cmd), Keep: true, Wait: true}
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil {
		t.Fatal("a test command from a request must need approval")
	}
	line := p.Confirm.Line()
	if !strings.Contains(line, "test (sh -c): "+cmd) {
		t.Fatalf("the confirmation must show the command verbatim: %q", line)
	}
	_, err = s.Do(context.Background(), req, false)
	wantCode(t, err, core.KindRefused, core.CodeNeedsApproval)
	r.Unchanged(before)

	// A long command is cut on the one line shown, but the approval covers all of it: the
	// same command with another tail has another token.
	long := "echo " + strings.Repeat("x", 1000)
	pl, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/t"), Test: core.Str(long + "1")})
	if err != nil {
		t.Fatal(err)
	}
	pl2, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/t"), Test: core.Str(long + "2")})
	if err != nil {
		t.Fatal(err)
	}
	if l := pl.Confirm.Line(); len(l) > 600 || !strings.Contains(l, "…") {
		t.Fatalf("a long command is not cut: %d bytes", len(l))
	}
	if pl.Token == pl2.Token {
		t.Fatal("two commands that differ past the cut share a token")
	}

	// An approval for another command is stale: its token does not match.
	other, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/t"), Test: core.Str("true"), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	req.ExpectedStateToken = core.Str(string(other.Token))
	_, err = s.Do(context.Background(), req, true)
	wantCode(t, err, core.KindRefused, core.CodeStaleState)
	r.Unchanged(before)

	req.ExpectedStateToken = core.Str(string(p.Token))
	p2, err := s.Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := p2.CheckApproval(); err != nil {
		t.Fatal(err)
	}
	out, err := s.Execute(context.Background(), p2)
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.State != core.LandLanded {
		t.Fatalf("%+v", out.Land)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the approved test command did not run")
	}
}

func TestLandTestFromConfigOrTypedNeedsNoApproval(t *testing.T) {
	r := coretest.New(t)
	feature(t, r, "feat/g", "g.txt", "g\n")
	s := open(t, r, r.Root)
	r.Git(r.Root, "config", "copse.test", "true")
	p, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/g")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm != nil {
		t.Fatalf("copse.test from git config asked for approval: %s", p.Confirm.Line())
	}
	p, err = s.Prepare(core.WithTypedByPerson(context.Background()), core.LandRequest{Branch: core.Str("feat/g"), Test: core.Str("true")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm != nil {
		t.Fatalf("a test a person typed asked again: %s", p.Confirm.Line())
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.Test != "true" {
		t.Fatalf("%+v", out.Land)
	}
}

// readPIDFile waits for a gate to write its pid file and returns the pid.
func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
	}
}

// escapee is a gate that starts a sleep outside its own process group (setsid), which
// neither the group kill nor the watcher reaches, and writes its pid to pidFile once the
// sleep has left the group: a cancel or group kill that came first (a loaded machine)
// would end it with the gate, and nothing would be left to test. The pid file appears
// whole (written aside, then renamed).
func escapee(pidFile string) string {
	return `setsid sleep 300 </dev/null >/dev/null 2>&1 & p=$!; while [ "$(cut -d' ' -f5 /proc/$p/stat)" = "$(cut -d' ' -f5 /proc/$$/stat)" ]; do sleep 0.02; done; echo $p > "` + pidFile + `.tmp" && mv "` + pidFile + `.tmp" "` + pidFile + `"`
}

func TestLandGateLeftRunningBlocksAndLaterLandRefuses(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/e", "e.txt", "e\n")
	pidFile := filepath.Join(r.Base, "escaped.pid")
	r.Git(r.Root, "config", "copse.test", escapee(pidFile))
	s := open(t, r, r.Root)
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/e")})
	pid := readPIDFile(t, pidFile)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	wantCode(t, err, core.KindRefused, core.CodeGateStillRunning)
	j := out.Land
	if j.Gate == nil || j.Gate.PGID <= 0 || j.Gate.Marker == "" || !strings.Contains(j.Message, "pid "+strconv.Itoa(pid)+" (sleep 300)") {
		t.Fatalf("the record must keep the gate and name what runs on: %+v", j)
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("a gate whose processes run on was landed")
	}

	// A later land of the same worktree refuses while that process runs; nothing changes.
	r.Git(r.Root, "config", "copse.test", "true")
	before := r.Snapshot()
	_, err = land(t, s, core.LandRequest{Path: core.Str(w)})
	wantCode(t, err, core.KindRefused, core.CodeGateStillRunning)
	if e := core.AsError(err); !strings.Contains(e.Message, "pid "+strconv.Itoa(pid)) || !strings.Contains(e.Hint, "kill "+strconv.Itoa(pid)) {
		t.Fatalf("the refusal must name the pid: %v (%s)", e, e.Hint)
	}
	r.Unchanged(before)

	// Once it ended, the land goes ahead.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		out, err = land(t, s, core.LandRequest{Path: core.Str(w)})
		if core.AsError(err) == nil || core.AsError(err).Code != core.CodeGateStillRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the land still refuses after the process ended")
		}
	}
	if err != nil || out.Land.State != core.LandLanded {
		t.Fatalf("land after the process ended: %v", err)
	}
}

// A cancelled gate whose processes ran on is not called stopped.
func TestLandCancelledGateRecordSaysWhatRunsOn(t *testing.T) {
	r := coretest.New(t)
	feature(t, r, "feat/x", "x.txt", "x\n")
	pidFile := filepath.Join(r.Base, "escaped.pid")
	r.Git(r.Root, "config", "copse.test", escapee(pidFile)+"; sleep 300")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/x"), Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pid int
	go func() { // cancels once the gate has started its escapee (t.Fatal is not for this goroutine)
		defer cancel()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
					pid = n
					return
				}
			}
		}
	}()
	out, err := s.Execute(ctx, p)
	wantCode(t, err, core.KindCancelled, core.CodeCancelled)
	if pid == 0 {
		t.Fatal("the gate never started its escapee")
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	j := out.Land
	if j.State != core.LandCancelled || strings.Contains(j.Remaining, "was stopped") || !strings.Contains(j.Remaining, "pid "+strconv.Itoa(pid)) {
		t.Fatalf("record: %q", j.Remaining)
	}
}

// A confirmed land runs only against what the person saw: a claim that changed between
// the confirmation and the run stops it before anything is queued.
func TestLandConfirmedThenClaimChangedIsStale(t *testing.T) {
	r := coretest.New(t)
	w := feature(t, r, "feat/s", "s.txt", "s\n")
	r.Git(r.Root, "worktree", "lock", "--reason", claimAgent1, w)
	s := openAs(t, r, r.Root, "agent-2")
	p, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/s"), ForceClaim: true, Wait: true})
	if err != nil || p.Confirm == nil {
		t.Fatalf("prepare: %v %+v", err, p)
	}
	r.Git(r.Root, "worktree", "unlock", w)
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-3 since=2026-01-01T00:00:00Z", w)
	before := r.Snapshot()
	_, err = s.Execute(context.Background(), p)
	wantCode(t, err, core.KindRefused, core.CodeStaleState)
	r.Unchanged(before)
}
