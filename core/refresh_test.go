package core_test

import (
	"context"
	"slices"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// A worktree copse creates is left with no racily clean index entry: once the second of
// the checkout has passed, its index is refreshed, so git status need not re-read every
// file of it forever. Without the refresh git's checkout leaves them all racy (the files
// and the index are written in the same second), which the first check shows.
func TestCreateLeavesNoRacyIndex(t *testing.T) {
	r := coretest.New(t)
	for _, f := range []string{"a.txt", "b.txt", "sub/c.txt"} {
		r.Write(f, f+"\n")
	}
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "files")
	out := createRefreshed(t, r)
	if racy := r.RacyEntries(out.Path); len(racy) > 0 {
		t.Fatalf("racily clean entries left in %s: %v", out.Path, racy)
	}
	if st := r.Git(out.Path, "status", "--porcelain"); st != "" {
		t.Fatalf("the refresh changed the worktree's status: %q", st)
	}
}

// A land's sync of the checked-out target (read-tree writes the landed files and the
// index in one second) is followed by the same refresh: the target's checkout is left
// with no racily clean entry.
func TestLandSyncLeavesNoRacyIndex(t *testing.T) {
	r := coretest.New(t)
	feature(t, r, "feat/a", "a.txt", "a\n")
	commitOn(t, r, r.Root, "m.txt", "m\n")
	refreshes := core.NewRefreshes()
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), Refreshes: refreshes})
	if err != nil {
		t.Fatal(err)
	}
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/a")})
	if err != nil || out.Land.State != core.LandLanded {
		t.Fatalf("land: %v %+v", err, out)
	}
	refreshes.Wait()
	if racy := r.RacyEntries(r.Root); len(racy) > 0 {
		t.Fatalf("racily clean entries left in the synced checkout: %v", racy)
	}
}

// The refresh after a create also writes git's untracked cache where the repository
// allows it, so a listing's status of the new worktree skips its untracked scan: unset, copse
// turns it on; a setting is git's to follow (true writes it, "keep" adds none to a new
// index, false gets a stat refresh only). Either way the worktree's status is what git's
// checkout left, and no entry is left racily clean.
func TestCreateWritesUntrackedCacheUnlessTurnedOff(t *testing.T) {
	for _, tc := range []struct {
		config string // "" = unset
		cache  bool
	}{{"", true}, {"true", true}, {"keep", false}, {"false", false}} {
		t.Run("config="+tc.config, func(t *testing.T) {
			r := coretest.New(t)
			r.Write("sub/a.txt", "a\n")
			r.Git(r.Root, "add", ".")
			r.Git(r.Root, "commit", "-q", "-m", "files")
			if tc.config != "" {
				r.Git(r.Root, "config", "core.untrackedCache", tc.config)
			}
			out := createRefreshed(t, r)
			index := r.Git(out.Path, "rev-parse", "--path-format=absolute", "--git-path", "index")
			if ext := coretest.IndexExtensions(t, index); slices.Contains(ext, "UNTR") != tc.cache {
				t.Fatalf("index extensions %q; want the untracked cache: %v", ext, tc.cache)
			}
			if racy := r.RacyEntries(out.Path); len(racy) > 0 {
				t.Fatalf("racily clean entries left: %v", racy)
			}
			if st := r.Git(out.Path, "status", "--porcelain"); st != "" {
				t.Fatalf("the refresh changed the worktree's status: %q", st)
			}
		})
	}
}

// createRefreshed creates feat/x in r through a Service and waits for the refresh of its
// index that the create leaves running.
func createRefreshed(t *testing.T, r *coretest.Repo) *core.Outcome {
	t.Helper()
	refreshes := core.NewRefreshes()
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), Refreshes: refreshes})
	if err != nil {
		t.Fatal(err)
	}
	out, err := do(t, s, core.CreateRequest{Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	refreshes.Wait()
	return out
}
