package core_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
)

// The shared step with real git: a removal git refuses leaves the worktree and drops the
// record made for it; one git makes is judged done and keeps its record.
func TestRemoveOneRealGit(t *testing.T) {
	ctx := context.Background()
	r := coretest.New(t)
	path := r.AddWorktree("feat", "app.worktrees/feat")
	coretest.WriteFile(t, filepath.Join(path, "notes.txt"), "unsaved\n") // untracked: git refuses without --force
	svc, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	s := core.EnvOf(svc)
	remove := func(ctx context.Context) error {
		rm, err := gitx.WorktreeRemove(s.Root(), path, false, false)
		if err != nil {
			return err
		}
		_, err = s.Git.Run(ctx, rm)
		return err
	}
	step := func() removal.RemoveStep {
		snap, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wt, ok := core.Find(snap, path)
		if !ok {
			t.Fatalf("%s is not listed", path)
		}
		return removal.RemoveStep{Target: wt, Record: true, Before: &snap.Token, Run: remove}
	}
	records := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", gitx.RemovedRefPrefix) }

	got, err := removal.RemoveOne(s, ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != removal.RemovalNothing || got.RunErr == nil || !got.Listed || !got.OnDisk || got.Saved != nil {
		t.Fatalf("refused removal: %+v", got)
	}
	if refs := records(); refs != "" {
		t.Fatalf("the record of a removal that did not happen is kept: %s", refs)
	}

	if err := os.Remove(filepath.Join(path, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	got, err = removal.RemoveOne(s, ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != removal.RemovalDone || got.Listed || got.OnDisk || got.Saved == nil {
		t.Fatalf("removal: %+v", got)
	}
	if refs := records(); refs != gitx.RemovedRefPrefix+got.Saved.ID {
		t.Fatalf("records after the removal: %q, want the one made for it (%s)", refs, got.Saved.ID)
	}
}

// forceRemoved is a repository with one `copse restore` record: a worktree with an
// untracked file, force-removed.
func forceRemoved(t *testing.T) (*coretest.Repo, *core.Service, *core.Outcome) {
	t.Helper()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/old", "old")
	coretest.WriteFile(t, filepath.Join(wt, "f"), "x\n")
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Do(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	return r, svc, out
}

// DropRemovedBefore(now) is what prune calls: records older than copse.keepRemoved go, the
// others stay, and a bad setting drops nothing.
func TestDropExpiredRemoved(t *testing.T) {
	t.Parallel()
	r, svc, out := forceRemoved(t)
	ctx := context.Background()
	s := core.EnvOf(svc)
	refs := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/") }

	if got, err := removal.DropRemovedBefore(s, ctx, time.Now(), false); err != nil || len(got) != 0 {
		t.Fatalf("a fresh record was dropped: %v, %v", got, err)
	}
	if got, err := removal.DropRemovedBefore(s, ctx, time.Now().Add(13*24*time.Hour), false); err != nil || len(got) != 0 {
		t.Fatalf("dropped before 14 days: %v, %v", got, err)
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "soon")
	if _, err := removal.DropRemovedBefore(s, ctx, time.Now().Add(30*24*time.Hour), false); core.AsError(err).Code != "bad_config" {
		t.Fatalf("bad copse.keepRemoved: %v", err)
	}
	if refs() == "" {
		t.Fatal("a bad setting dropped a record")
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "1d")
	got, err := removal.DropRemovedBefore(s, ctx, time.Now().Add(25*time.Hour), false)
	if err != nil || !slices.Equal(got, []string{out.RestoreID}) {
		t.Fatalf("dropped %v, %v; want [%s]", got, err, out.RestoreID)
	}
	if refs() != "" {
		t.Fatalf("record still there: %s", refs())
	}
}

// A worktree listed under its branch while HEAD is elsewhere (mid-rebase): the record
// keeps both, and a restore recreates the deleted branch at its tip and the worktree
// detached at HEAD.
func TestRestoreRecreatesBranchAwayFromHead(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/r", "r")
	coretest.WriteFile(t, filepath.Join(wt, "one"), "1\n")
	r.Git(wt, "add", "one")
	r.Git(wt, "commit", "-q", "-m", "one")
	tip := r.Git(wt, "rev-parse", "HEAD")
	r.Git(wt, "checkout", "-q", "--detach", "HEAD~1")
	head := r.Git(wt, "rev-parse", "HEAD")
	coretest.WriteFile(t, filepath.Join(wt, "wip"), "in the middle\n")
	ctx := context.Background()
	svc, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	s := core.EnvOf(svc)
	unlock, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e, err := removal.SnapshotForRemoval(s, ctx, gitx.Worktree{Path: wt, Branch: "feat/r", Head: head}, true)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if e.BranchTip != tip || e.Head != head {
		t.Fatalf("record %+v, want tip %s head %s", e, tip, head)
	}
	r.Git(r.Root, "worktree", "remove", "--force", wt)
	r.Git(r.Root, "branch", "-D", "feat/r")
	back, err := svc.Do(ctx, core.RestoreRequest{ID: core.Str(e.ID)}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Worktree.Detached || back.Worktree.Head != head {
		t.Fatalf("restored %+v, want detached at %s", back.Worktree, head)
	}
	if got := r.Git(r.Root, "rev-parse", "refs/heads/feat/r"); got != tip {
		t.Fatalf("branch at %s, want %s", got, tip)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "wip")); string(got) != "in the middle\n" {
		t.Fatalf("wip = %q", got)
	}
	if !strings.Contains(strings.Join(back.Warnings, "\n"), "recreated") {
		t.Fatalf("warnings %q", back.Warnings)
	}
}

// Prune drops the records past their keep time: a dry run names them and keeps them, a
// prune drops them and says which. Land records go only when they landed or failed long
// enough ago; blocked, uncertain, unfinished and recent ones stay.
func TestPruneDropsExpiredRecords(t *testing.T) {
	t.Parallel()
	r, svc, removed := forceRemoved(t)
	ctx := context.Background()
	dir := landjobs.Dir(filepath.Join(r.Root, ".git"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-30 * 24 * time.Hour).UTC().Format(time.RFC3339Nano)
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	for i, j := range []core.LandJob{
		{State: core.LandLanded, Finished: long},    // land-1 goes
		{State: core.LandFailed, Finished: long},    // land-2 goes
		{State: core.LandUncertain, Finished: long}, // stays: a person must look
		{State: core.LandBlocked, Finished: long},   // stays: it waits for --force-restart
		{State: core.LandLanded, Finished: recent},  // stays: recent
		{State: core.LandQueued},                    // stays: unfinished
	} {
		j.Ticket = int64(i + 1)
		j.Job = landjobs.Name(j.Ticket)
		if err := core.WriteJob(dir, &j); err != nil {
			t.Fatal(err)
		}
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "1ns")
	records := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/") }
	lands := func() []string {
		jobs, err := core.ReadJobs(dir)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range jobs {
			ids = append(ids, j.Job)
		}
		return ids
	}
	all := []string{"land-1", "land-2", "land-3", "land-4", "land-5", "land-6"}

	dry, err := svc.Do(ctx, core.PruneRequest{DryRun: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Prune.DroppedRestores, []string{removed.RestoreID}) || !slices.Equal(dry.Prune.DroppedLands, []string{"land-1", "land-2"}) {
		t.Fatalf("dry run would drop %v and %v", dry.Prune.DroppedRestores, dry.Prune.DroppedLands)
	}
	if records() == "" || !slices.Equal(lands(), all) {
		t.Fatalf("the dry run dropped something: records %q, lands %v", records(), lands())
	}

	out, err := svc.Do(ctx, core.PruneRequest{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Prune.DroppedRestores, []string{removed.RestoreID}) || !slices.Equal(out.Prune.DroppedLands, []string{"land-1", "land-2"}) {
		t.Fatalf("prune dropped %v and %v", out.Prune.DroppedRestores, out.Prune.DroppedLands)
	}
	if records() != "" || !slices.Equal(lands(), all[2:]) {
		t.Fatalf("after prune: records %q, lands %v", records(), lands())
	}
	// The ticket counter still counts past the dropped jobs.
	if n, err := landjobs.NextTicket(dir); err != nil || n != 7 {
		t.Fatalf("next ticket %d, %v; want 7", n, err)
	}

	// A bad setting refuses the prune before it changes anything, naming the setting.
	r.Git(r.Root, "config", "copse.keepLands", "soon")
	before := lands()
	_, err = svc.Do(ctx, core.PruneRequest{}, true)
	if e := core.AsError(err); e == nil || e.Kind != core.KindUsage || e.Code != core.CodeBadConfig || !strings.Contains(e.Message, "copse.keepLands") {
		t.Fatalf("bad copse.keepLands: %v", err)
	}
	if !slices.Equal(lands(), before) {
		t.Fatalf("a refused prune dropped land records: %v, was %v", lands(), before)
	}
}

// copse.keepRemoved never keeps a record however old it gets, and the listing says so.
func TestKeepRemovedNever(t *testing.T) {
	t.Parallel()
	r, svc, _ := forceRemoved(t)
	ctx := context.Background()
	r.Git(r.Root, "config", "copse.keepRemoved", "never")
	got, err := removal.DropRemovedBefore(core.EnvOf(svc), ctx, time.Now().Add(200*365*24*time.Hour), false)
	if err != nil || len(got) != 0 {
		t.Fatalf("keepRemoved never dropped %v, %v", got, err)
	}
	out, err := svc.Do(ctx, core.RestoreRequest{List: true}, false)
	if err != nil || out.RemovedList.Keep != "never" || len(out.RemovedList.Removed) != 1 || !out.RemovedList.Removed[0].Expires.IsZero() {
		t.Fatalf("listing under never: %v %+v", err, out.RemovedList)
	}
}
