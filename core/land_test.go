package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	landop "github.com/copse-dev/copse/core/op/land"
)

// feature makes a worktree on branch with one commit that writes file.
func feature(t *testing.T, r *coretest.Repo, branch, file, content string) string {
	t.Helper()
	w := r.AddWorktree(branch, filepath.Join(r.Base, "trees", coretestSlug(branch)))
	coretest.WriteFile(t, filepath.Join(w, file), content)
	r.Git(w, "add", "--", file)
	r.Git(w, "commit", "-q", "-m", "work on "+branch)
	return w
}

func coretestSlug(b string) string { return core.BranchSlug(b) }

// commitOn commits file on the branch checked out at dir.
func commitOn(t *testing.T, r *coretest.Repo, dir, file, content string) string {
	t.Helper()
	coretest.WriteFile(t, filepath.Join(dir, file), content)
	r.Git(dir, "add", "--", file)
	r.Git(dir, "commit", "-q", "-m", "change "+file)
	return r.Git(dir, "rev-parse", "HEAD")
}

func land(t *testing.T, s *core.Service, req core.LandRequest) (*core.Outcome, error) {
	t.Helper()
	req.Wait = true
	p, err := s.Prepare(context.Background(), req)
	if err != nil {
		return nil, err
	}
	return s.Execute(context.Background(), p)
}

func TestLandCleanTargetCheckedOutIsSynced(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/a", "a.txt", "a\n")
	// main moves on meanwhile: the land must rebase.
	mainTip := commitOn(t, r, r.Root, "m.txt", "m\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/a")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	j := out.Land
	if j.State != core.LandLanded || j.Phase != core.PhaseDone || j.Onto != mainTip {
		t.Fatalf("job %+v", j)
	}
	if got := r.Git(r.Root, "rev-parse", "main"); got != j.Commit {
		t.Fatalf("main at %s, want landed %s", got, j.Commit)
	}
	if parent := r.Git(r.Root, "rev-parse", "main^"); parent != mainTip {
		t.Fatalf("landed commit's parent %s, want %s (rebased)", parent, mainTip)
	}
	// The main checkout holds main: it was synced, so it is clean and has the file.
	if st := r.Git(r.Root, "status", "--porcelain"); st != "" {
		t.Fatalf("main checkout not in step: %q", st)
	}
	if b, err := os.ReadFile(filepath.Join(r.Root, "a.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("a.txt in main checkout: %q %v", b, err)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) || !j.Removed || !j.BranchGone {
		t.Fatalf("worktree not cleaned up: stat %v, job %+v", err, j)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/feat/a"); err == nil {
		t.Fatal("branch feat/a still exists")
	}
	if got := eventNames(events(t, r)); got != "land.queued worktree.removed land.landed" {
		t.Fatalf("events: %s", got)
	}
}

func TestLandKeepAndNotCheckedOutTarget(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "release")
	w := feature(t, r, "feat/k", "k.txt", "k\n")
	before := r.Git(r.Root, "rev-parse", "main")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Path: core.Str(w), Into: core.Str("release"), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git(r.Root, "rev-parse", "release"); got != out.Land.Commit {
		t.Fatalf("release at %s want %s", got, out.Land.Commit)
	}
	if r.Git(r.Root, "rev-parse", "main") != before {
		t.Fatal("main moved")
	}
	if _, err := os.Stat(w); err != nil || out.Land.Removed {
		t.Fatalf("--keep removed the worktree: %v", err)
	}
}

func TestLandRefusesDirtyWorktreeNothingQueued(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/d", "d.txt", "d\n")
	coretest.WriteFile(t, filepath.Join(w, "untracked file.txt"), "x")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/d")})
	wantCode(t, err, core.KindRefused, "worktree_dirty")
	if !strings.Contains(err.Error(), "untracked file.txt") {
		t.Fatalf("refusal does not name the file: %v", err)
	}
	r.Unchanged(before)
	if core.ExitCode(err) != 1 {
		t.Fatalf("exit %d", core.ExitCode(err))
	}
}

func TestLandConflictLeftOpenRerunRefusedForceRestart(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/c", "README.md", "feature version\n")
	commitOn(t, r, r.Root, "README.md", "main version\n")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	featBefore := r.Git(w, "rev-parse", "HEAD")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/c")})
	wantCode(t, err, core.KindRefused, "rebase_conflict")
	if out == nil || len(out.Land.Conflicts) != 1 || out.Land.Conflicts[0] != "README.md" {
		t.Fatalf("conflicts not recorded: %+v", out)
	}
	if _, err := os.Stat(r.Git(w, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge")); err != nil {
		t.Fatalf("rebase not left open: %v", err)
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
	// A rerun while the conflict is unresolved is refused, nothing queued.
	before := r.Snapshot()
	_, err = land(t, s, core.LandRequest{Path: core.Str(w)})
	wantCode(t, err, core.KindRefused, "rebase_in_progress")
	if !strings.Contains(err.Error(), "README.md") {
		t.Fatalf("rerun refusal does not list the conflict: %v", err)
	}
	r.Unchanged(before)
	// --force-restart aborts our own rebase and starts over (and conflicts again).
	_, err = land(t, s, core.LandRequest{Path: core.Str(w), ForceRestart: true})
	wantCode(t, err, core.KindRefused, "rebase_conflict")
	evs := events(t, r)
	if got := eventNames(evs); got != "land.queued land.blocked land.queued land.blocked" {
		t.Fatalf("events: %s", got)
	}
	if evs[1].Reason != "rebase_conflict" {
		t.Fatalf("blocked event reason %q", evs[1].Reason)
	}
	// Abort it ourselves; the branch is back where it was.
	r.Git(w, "rebase", "--abort")
	if r.Git(w, "rev-parse", "HEAD") != featBefore {
		t.Fatal("branch moved")
	}
}

func TestLandForceRestartLeavesUsersOwnRebase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/u", "README.md", "feature version\n")
	commitOn(t, r, r.Root, "README.md", "main version\n")
	// The user starts a rebase of their own (onto main~0 via a branch name, but copse did
	// not start it: no record).
	if _, err := r.TryGit(w, "rebase", "main"); err == nil {
		t.Fatal("expected the user's rebase to conflict")
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := land(t, s, core.LandRequest{Path: core.Str(w), ForceRestart: true})
	wantCode(t, err, core.KindRefused, "rebase_not_ours")
	r.Unchanged(before)
	if _, err := os.Stat(r.Git(w, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge")); err != nil {
		t.Fatalf("the user's rebase was touched: %v", err)
	}
}

func TestLandUnknownJobAndStatus(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	out, err := s.Do(context.Background(), core.LandStatusRequest{}, false)
	if err != nil || out.Land != nil || len(out.LandJobs) != 0 {
		t.Fatalf("empty status: %+v %v", out, err)
	}
	b, _ := json.Marshal(out.Result())
	if string(b) != `{"operation":"land_status","land_jobs":[]}` {
		t.Fatalf("empty status json %s", b)
	}
	_, err = s.Do(context.Background(), core.LandStatusRequest{Job: core.Str("land-9")}, false)
	wantCode(t, err, core.KindRefused, "no_such_job")
	_, err = s.Do(context.Background(), core.LandStatusRequest{Job: core.Str("land-x")}, false)
	wantCode(t, err, core.KindUsage, "bad_job")
}

var _ = time.Second

func TestLandDirtyTargetWithoutOverlapKeepsChanges(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/n", "new.txt", "new\n")
	// The main checkout has a staged change and an unstaged change elsewhere.
	r.Write("staged.txt", "staged\n")
	r.Git(r.Root, "add", "staged.txt")
	r.Write("README.md", "edited, not staged\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/n")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git(r.Root, "rev-parse", "main"); got != out.Land.Commit {
		t.Fatalf("main %s want %s", got, out.Land.Commit)
	}
	st := r.Git(r.Root, "status", "--porcelain")
	if st != "M README.md\nA  staged.txt" {
		t.Fatalf("local changes not carried (staged stays staged): %q", st)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Root, "new.txt")); string(b) != "new\n" {
		t.Fatalf("incoming file not checked out: %q", b)
	}
}

func TestLandDirtyTargetWithOverlapRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/o", "README.md", "from feature\n")
	r.Write("README.md", "local edit in main\n")
	s := open(t, r, r.Root)
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/o")})
	wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	if !strings.Contains(err.Error(), "README.md") || out.Land.State != core.LandBlocked {
		t.Fatalf("refusal: %v %+v", err, out.Land)
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
	if b, _ := os.ReadFile(filepath.Join(r.Root, "README.md")); string(b) != "local edit in main\n" {
		t.Fatalf("local edit lost: %q", b)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatal("worktree removed after a blocked land")
	}
}

func TestLandUntrackedAtIncomingPathRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/ut", "dir/new file.txt", "incoming\n")
	coretest.WriteFile(t, filepath.Join(r.Root, "dir", "new file.txt"), "mine, untracked\n")
	s := open(t, r, r.Root)
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/ut")})
	wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
}

func TestLandTargetMidRebaseRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/m", "m.txt", "m\n")
	// main is being rebased in the main checkout (onto a side branch that conflicts).
	r.Git(r.Root, "checkout", "-q", "-b", "side")
	commitOn(t, r, r.Root, "README.md", "side\n")
	r.Git(r.Root, "checkout", "-q", "main")
	commitOn(t, r, r.Root, "README.md", "main\n")
	if _, err := r.TryGit(r.Root, "rebase", "side"); err == nil {
		t.Fatal("expected a conflict")
	}
	mainBefore := r.Git(r.Root, "rev-parse", "refs/heads/main")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/m"), Into: core.Str("main")})
	wantCode(t, err, core.KindRefused, "target_busy")
	if r.Git(r.Root, "rev-parse", "refs/heads/main") != mainBefore {
		t.Fatal("main moved while being rebased")
	}
}

func TestLandTargetCheckedOutTwiceRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/t", "t.txt", "t\n")
	r.Git(r.Root, "worktree", "add", "-q", "-f", filepath.Join(r.Base, "second main"), "main")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/t")})
	wantCode(t, err, core.KindRefused, "target_checked_out_twice")
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
}

func TestLandTargetMovesDuringGateIsRebasedAndRetested(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/g", "g.txt", "g\n")
	count := filepath.Join(r.Base, "gate runs")
	// The first gate run moves main (as another agent landing would); later runs do not.
	gateCmd := `echo run >> "` + count + `"; if [ "$(wc -l < "` + count + `")" -eq 1 ]; then ` +
		`git -C "` + r.Root + `" -c user.name=x -c user.email=x@x commit -q --allow-empty -m moved; fi`
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/g"), Test: core.Str(gateCmd)})
	if err != nil {
		t.Fatal(err)
	}
	j := out.Land
	if j.Attempts != 2 {
		t.Fatalf("attempts %d, want 2 (re-rebased once)", j.Attempts)
	}
	runs, _ := os.ReadFile(count)
	if strings.Count(string(runs), "run") != 2 {
		t.Fatalf("gate ran %q, want twice", runs)
	}
	if msg := r.Git(r.Root, "log", "-1", "--format=%s", "main^"); msg != "moved" {
		t.Fatalf("landed commit not on top of the moved main: parent %q", msg)
	}
}

func TestLandTargetMovesTooOftenBlocked(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/tm", "x.txt", "x\n")
	r.Git(r.Root, "config", "copse.landRetries", "1")
	gateCmd := `git -C "` + r.Root + `" -c user.name=x -c user.email=x@x commit -q --allow-empty -m moved`
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/tm"), Test: core.Str(gateCmd)})
	wantCode(t, err, core.KindRefused, "target_moved")
	if out.Land.Attempts != 2 {
		t.Fatalf("attempts %d", out.Land.Attempts)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatal("worktree gone")
	}
}

func TestLandGateThatEditsFilesBlocked(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/e", "e.txt", "e\n")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/e"), Test: core.Str("echo generated > e.txt")})
	wantCode(t, err, core.KindRefused, "test_changed_worktree")
	if !strings.Contains(err.Error(), "e.txt") {
		t.Fatalf("does not name the file: %v", err)
	}
	_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/e"), Test: core.Str("true")})
	wantCode(t, err, core.KindRefused, "worktree_dirty") // the gate's edit is still there
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
}

func TestLandGateThatCommitsBlocked(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/gc", "e.txt", "e\n")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/gc"),
		Test: core.Str("git -c user.name=x -c user.email=x@x commit -q --allow-empty -m sneaky")})
	wantCode(t, err, core.KindRefused, "test_changed_worktree")
}

func TestLandGateFailsAndTimesOut(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/f", "f.txt", "f\n")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/f"), Test: core.Str("echo boom; exit 7")})
	wantCode(t, err, core.KindRefused, "test_failed")
	if log, _ := os.ReadFile(out.Land.Log); !strings.Contains(string(log), "boom") {
		t.Fatalf("log %s lacks the output: %q", out.Land.Log, log)
	}
	r.Git(r.Root, "config", "copse.testTimeout", "1s")
	marker := filepath.Join(r.Base, "child survived")
	start := time.Now()
	// The gate starts a background child that would write the marker after the timeout.
	_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/f"),
		Test: core.Str(`(sleep 3; touch "` + marker + `") & sleep 30`)})
	wantCode(t, err, core.KindRefused, "test_timeout")
	if time.Since(start) > 20*time.Second {
		t.Fatal("timeout not enforced")
	}
	time.Sleep(3500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a process of the gate's group outlived the timeout")
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
}

func TestLandConfigTestAndSpacesInPaths(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := r.AddWorktree("feat/sp", filepath.Join(r.Base, "dir with spaces", "my tree"))
	commitOn(t, r, w, "file with space.txt", "x\n")
	r.Git(r.Root, "config", "copse.test", `test -f "file with space.txt"`)
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Path: core.Str(w)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.Test != `test -f "file with space.txt"` || !out.Land.Removed {
		t.Fatalf("job %+v", out.Land)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Root, "file with space.txt")); string(b) != "x\n" {
		t.Fatal("not synced")
	}
}

func TestLandForceRestartOfOurOwnRebaseThenLands(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/fr", "README.md", "feature\n")
	commitOn(t, r, r.Root, "README.md", "main\n")
	s := open(t, r, r.Root)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/fr")})
	wantCode(t, err, core.KindRefused, "rebase_conflict")
	// The owner changes their mind about the conflict: fix the branch so it no longer
	// conflicts... by force-restarting after main reverted the change.
	r.Git(r.Root, "revert", "--no-edit", "HEAD")
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/fr"), ForceRestart: true})
	if err != nil {
		t.Fatalf("force restart: %v", err)
	}
	if out.Land.State != core.LandLanded {
		t.Fatalf("%+v", out.Land)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) {
		t.Fatal("worktree not removed")
	}
}

func TestLandReleasesCopseClaimButKeepsHumanLock(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	claimed := feature(t, r, "feat/claimed", "c.txt", "c\n")
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-1 since=2026-01-01T00:00:00Z", claimed)
	human := feature(t, r, "feat/human", "h.txt", "h\n")
	r.Git(r.Root, "worktree", "lock", "--reason", "on a USB drive", human)
	s := openAs(t, r, r.Root, "agent-1") // the claiming session lands its own worktree
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/claimed")})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Land.Released || !out.Land.Removed || !out.Land.BranchGone {
		t.Fatalf("claimed worktree not released and removed: %+v", out.Land)
	}
	out, err = land(t, s, core.LandRequest{Branch: core.Str("feat/human")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.Removed || out.Land.Released || len(out.Land.Warnings) == 0 || !strings.Contains(out.Land.Warnings[0], "on a USB drive") {
		t.Fatalf("a human's lock was not respected: %+v", out.Land)
	}
	if _, err := os.Stat(human); err != nil {
		t.Fatal("human-locked worktree removed")
	}
	if !strings.Contains(r.Git(r.Root, "log", "--format=%s", "main"), "work on feat/human") {
		t.Fatal("the land itself did not happen")
	}
	if got := eventNames(events(t, r)); !strings.Contains(got, "worktree.released@agent-1 worktree.removed@agent-1 land.landed@agent-1") {
		t.Fatalf("events: %s", got)
	}
}

func TestLandFromInsideTheWorktreeKeepsIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/in", "in.txt", "in\n")
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-1 since=2026-01-02T03:04:05Z", w)
	s := openAs(t, r, w, "agent-1") // copse runs inside the worktree it lands, as its claimant
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/in")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.Removed || len(out.Land.Warnings) == 0 || !strings.Contains(out.Land.Warnings[0], "copse runs inside it") {
		t.Fatalf("%+v", out.Land)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatal("removed the worktree copse runs in")
	}
	// The work is landed: the claim is released even though the worktree stays.
	if !out.Land.Released || strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "copse claim") {
		t.Fatalf("the claim was kept: released=%v", out.Land.Released)
	}
	// list reports the worktree's newest land job.
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range l.Worktrees {
		switch {
		case row.Path == w && (row.Land == nil || row.Land.Job != out.Land.Job || row.Land.State != core.LandLanded):
			t.Fatalf("list row %s: land %+v, want job %s landed", row.Path, row.Land, out.Land.Job)
		case row.Path != w && row.Land != nil:
			t.Fatalf("list row %s has another worktree's land %+v", row.Path, row.Land)
		}
	}
}

func TestLandNewlineInPath(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := r.AddWorktree("feat/nl", filepath.Join(r.Base, "odd\nname"))
	commitOn(t, r, w, "nl.txt", "x\n")
	s := open(t, r, r.Root)
	// The parser refuses a path with a control character as a value; the branch names it.
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/nl"), Test: core.Str(`test "$(basename "$PWD")" = "$(printf 'odd\nname')"`)})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Land.Removed || out.Land.Worktree.Path != w {
		t.Fatalf("%+v", out.Land)
	}
}

func TestLandCancelledWhileQueuedChangesNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/q1", "q1.txt", "1\n")
	feature(t, r, "feat/q2", "q2.txt", "2\n")
	s := open(t, r, r.Root)
	// q1 runs (its gate waits for a file), so q2 waits behind it; q2 is cancelled then.
	release := filepath.Join(r.Base, "release")
	p1, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/q1"), Wait: true,
		Test: core.Str(`while [ ! -f "` + release + `" ]; do sleep 0.05; done`)})
	if err != nil {
		t.Fatal(err)
	}
	done1 := make(chan error, 1)
	testing1 := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := s.Execute(landop.WithLandProgress(context.Background(), func(p landop.LandProgress) {
			if p.Job.Phase == core.PhaseTest {
				once.Do(func() { close(testing1) })
			}
		}), p1)
		done1 <- err
	}()
	<-testing1
	ctx, cancel := context.WithCancel(context.Background())
	p2, err := s.Prepare(context.Background(), core.LandRequest{Branch: core.Str("feat/q2"), Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	var sawQueued bool
	out, err := s.Execute(landop.WithLandProgress(ctx, func(p landop.LandProgress) {
		if p.Job.State == core.LandQueued && p.Head != nil && p.Job.Position == 2 && !sawQueued {
			sawQueued = true
			cancel()
		}
	}), p2)
	wantCode(t, err, core.KindCancelled, "cancelled")
	if !sawQueued || out.Land.Interrupted != core.PhaseQueued || out.Land.Remaining != "it was still queued; nothing changed" {
		t.Fatalf("%+v", out.Land)
	}
	coretest.WriteFile(t, release, "")
	if err := <-done1; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Git(r.Root, "log", "--format=%s", "main"), "feat/q2") {
		t.Fatal("the cancelled job landed")
	}
}
