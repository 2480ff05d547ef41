package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// dryRuns makes one dry run of each changing verb that has one (remove, prune, land,
// create, and restore when a record exists), as the command line makes them.
func dryRuns(t *testing.T, s *core.Service, restore bool) {
	t.Helper()
	ctx := context.Background()
	reqs := []core.Request{core.RemoveRequest{Branch: core.Str("plain")}, core.CreateRequest{Branch: "feat/new"}}
	if restore {
		reqs = append(reqs, core.RestoreRequest{})
	}
	for _, req := range reqs {
		p, err := s.PrepareDryRun(ctx, req)
		if err != nil {
			t.Fatalf("%s --dry-run: %v", req.Op(), err)
		}
		if out := s.DryRun(p); !out.DryRun || len(out.Commands) == 0 {
			t.Fatalf("%s --dry-run: %+v", req.Op(), out)
		}
	}
	if out, err := s.Do(ctx, core.PruneRequest{DryRun: true}, false); err != nil || !out.DryRun {
		t.Fatalf("prune --dry-run: %+v %v", out, err)
	}
	if out, err := s.Do(ctx, core.LandRequest{Branch: core.Str("feat/a"), DryRun: true}, false); err != nil || !out.DryRun {
		t.Fatalf("land --dry-run: %+v %v", out, err)
	}
}

// Dry runs take no lock and make no lock file: on a repository copse never changed they
// leave no copse.lock behind and change nothing, and while another copse holds the lock
// they answer at once instead of waiting for it (here until copse.lockTimeout, 1s, would
// give up with lock_timeout).
func TestDryRunsTakeNoLockAndMakeNoLockFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("plain", "app.worktrees/plain")
	feature(t, r, "feat/a", "a.txt", "a\n")
	r.AddWorktree("gone", "app.worktrees/gone")
	lockFile := filepath.Join(r.Root, ".git", "copse.lock")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	dryRuns(t, s, false)
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Fatalf("a dry run made %s: %v", lockFile, err)
	}
	r.Unchanged(before)

	// With a restore record (the forced remove makes the lock file) and the lock held by
	// someone else.
	if _, err := do(t, s, core.RemoveRequest{Branch: core.Str("gone"), Force: true}); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "config", "copse.lockTimeout", "1s")
	f, err := os.OpenFile(lockFile, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	dryRuns(t, open(t, r, r.Root), true)
}

// A land's dry run reads the queue and writes nothing to it: a job whose owner is gone is
// not marked abandoned by it (a real land does that, under the lock), nor is its liveness
// lock taken or made; the dry run answers as the land would once that job is swept.
func TestLandDryRunLeavesTheQueueAsItIs(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/q", "q.txt", "q\n")
	s := open(t, r, r.Root)
	if _, err := s.Do(context.Background(), core.LandRequest{Branch: core.Str("feat/q")}, false); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.Root, ".git", "copse", "land")
	rec := filepath.Join(dir, "land-1.json")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	// Its owner took the job and died (a pid no process has; its liveness lock is free).
	var job map[string]any
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	job["owned"], job["pid"] = true, 1<<22+7
	if b, err = json.Marshal(job); err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, rec, string(b))
	before := r.Snapshot()
	out, err := s.Do(context.Background(), core.LandRequest{Branch: core.Str("feat/q"), DryRun: true}, false)
	if err != nil || !out.DryRun {
		t.Fatalf("dry run behind a job whose owner is gone: %+v %v", out, err)
	}
	r.Unchanged(before)
	if _, err := os.Stat(filepath.Join(dir, "land-1.lock")); !os.IsNotExist(err) {
		t.Errorf("the dry run made or took the job's liveness lock: %v", err)
	}
}
