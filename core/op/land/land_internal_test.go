package land

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The sync of the target's checkout fails after the swap (another git holds its index):
// the ref is swapped back and the land is blocked; if the swap back fails too, the outcome
// is uncertain (exit 3). Failures are injected between the swap and the sync.
func TestLandSyncFailureRollsBackOrIsUncertain(t *testing.T) {
	// Not parallel: testHookAfterSwap is one package variable that every land running
	// beside this test would call.
	for _, rollbackFails := range []bool{false, true} {
		r := coretest.New(t)
		w := r.AddWorktree("feat/s", filepath.Join(r.Base, "trees", "s"))
		coretest.WriteFile(t, filepath.Join(w, "s.txt"), "s\n")
		r.Git(w, "add", "s.txt")
		r.Git(w, "commit", "-q", "-m", "s")
		mainBefore := r.Git(r.Root, "rev-parse", "main")
		lockMain := filepath.Join(r.Root, ".git", "refs", "heads", "main.lock")
		testHookAfterSwap = func() {
			coretest.WriteFile(t, filepath.Join(r.Root, ".git", "index.lock"), "")
			if rollbackFails {
				coretest.WriteFile(t, lockMain, "")
			}
		}
		svc, err := core.Open(context.Background(), core.Options{Registry: landOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := svc.Prepare(context.Background(), core.LandRequest{Path: core.Str(w), Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		out, err := svc.Execute(context.Background(), p)
		testHookAfterSwap = nil
		os.Remove(filepath.Join(r.Root, ".git", "index.lock"))
		os.Remove(lockMain)
		e := core.AsError(err)
		if !rollbackFails {
			if e == nil || e.Code != "target_sync_failed" || core.ExitCode(err) != 1 {
				t.Fatalf("want target_sync_failed, got %v", err)
			}
			if got := r.Git(r.Root, "rev-parse", "main"); got != mainBefore {
				t.Fatalf("main %s, want rolled back to %s", got, mainBefore)
			}
			if st := r.Git(r.Root, "status", "--porcelain"); st != "" {
				t.Fatalf("main checkout out of step after rollback: %q", st)
			}
			continue
		}
		if e == nil || e.Code != "rollback_failed" || core.ExitCode(err) != 3 || out.Land.State != core.LandUncertain {
			t.Fatalf("want rollback_failed (exit 3), got %v", err)
		}
	}
}

// The swap succeeds but reading the target back does not show the landed commit (someone
// moved it in between): the land is uncertain (exit 3), never reported landed, and the
// worktree and its branch stay.
func TestLandAdvanceUnverified(t *testing.T) {
	// Not parallel: testHookAfterSwap is one package variable that every land running
	// beside this test would call.
	r := coretest.New(t)
	r.Git(r.Root, "branch", "target")
	w := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(w, "f.txt"), "f\n")
	r.Git(w, "add", "f.txt")
	r.Git(w, "commit", "-q", "-m", "f")
	old := r.Git(r.Root, "rev-parse", "target")
	testHookAfterSwap = func() { r.Git(r.Root, "update-ref", "refs/heads/target", old) }
	defer func() { testHookAfterSwap = nil }()
	svc, err := core.Open(context.Background(), core.Options{Registry: landOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Prepare(context.Background(), core.LandRequest{Path: core.Str(w), Into: core.Str("target"), Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Execute(context.Background(), p)
	e := core.AsError(err)
	if e == nil || e.Code != "advance_unverified" || core.ExitCode(err) != 3 || out == nil || out.Land == nil || out.Land.State != core.LandUncertain {
		t.Fatalf("want an uncertain advance_unverified (exit 3), got %v (%+v)", err, out)
	}
	if _, err := os.Stat(w); err != nil {
		t.Errorf("the worktree of an unverified land was removed: %v", err)
	}
	if got := r.Git(r.Root, "branch", "--list", "feat"); got == "" {
		t.Error("the branch of an unverified land was deleted")
	}
}
