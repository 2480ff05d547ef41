package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
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
	return s.Land(context.Background(), p, nil)
}

func events(t *testing.T, r *coretest.Repo) []core.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "events.jsonl"))
	if err != nil {
		return nil
	}
	var out []core.Event
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e core.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("event line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func eventNames(evs []core.Event) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.Event)
	}
	return strings.Join(n, " ")
}

func TestLandCleanTargetCheckedOutIsSynced(t *testing.T) {
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
