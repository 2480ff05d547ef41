package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/gitx"
)

// forceRemoved is a repository with one `copse restore` record: a worktree with an
// untracked file, force-removed.
func forceRemoved(t *testing.T) (*coretest.Repo, *Service, *Outcome) {
	t.Helper()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/old", "old")
	coretest.WriteFile(t, filepath.Join(wt, "f"), "x\n")
	svc, err := Open(context.Background(), Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Do(context.Background(), RemoveRequest{Path: Str(wt), Force: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	return r, svc, out
}

// dropExpiredRemoved is what prune calls: records older than copse.keepRemoved go, the
// others stay, and a bad setting drops nothing.
func TestDropExpiredRemoved(t *testing.T) {
	t.Parallel()
	r, svc, out := forceRemoved(t)
	ctx := context.Background()
	s := svc.impl
	refs := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/") }

	if got, err := s.dropExpiredRemoved(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a fresh record was dropped: %v, %v", got, err)
	}
	if got, err := s.DropRemovedBefore(ctx, time.Now().Add(13*24*time.Hour), false); err != nil || len(got) != 0 {
		t.Fatalf("dropped before 14 days: %v, %v", got, err)
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "soon")
	if _, err := s.DropRemovedBefore(ctx, time.Now().Add(30*24*time.Hour), false); AsError(err).Code != "bad_config" {
		t.Fatalf("bad copse.keepRemoved: %v", err)
	}
	if refs() == "" {
		t.Fatal("a bad setting dropped a record")
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "1d")
	got, err := s.DropRemovedBefore(ctx, time.Now().Add(25*time.Hour), false)
	if err != nil || !slices.Equal(got, []string{out.RestoreID}) {
		t.Fatalf("dropped %v, %v; want [%s]", got, err, out.RestoreID)
	}
	if refs() != "" {
		t.Fatalf("record still there: %s", refs())
	}
}

func TestParseKeep(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"14d": 14 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour} {
		if got, err := ParseSpan(in, keepRule); err != nil || got != want {
			t.Errorf("parseSpan(%q, keepRule) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-1h", "d", "1.5d", "forever"} {
		if _, err := ParseSpan(in, keepRule); err == nil {
			t.Errorf("parseSpan(%q, keepRule) accepted", in)
		}
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
	svc, err := Open(ctx, Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	s := svc.impl
	unlock, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.snapshotForRemoval(ctx, gitx.Worktree{Path: wt, Branch: "feat/r", Head: head}, true)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if e.BranchTip != tip || e.Head != head {
		t.Fatalf("record %+v, want tip %s head %s", e, tip, head)
	}
	r.Git(r.Root, "worktree", "remove", "--force", wt)
	r.Git(r.Root, "branch", "-D", "feat/r")
	back, err := svc.Do(ctx, RestoreRequest{ID: Str(e.ID)}, true)
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

func TestParseEntryRejectsForgedRecords(t *testing.T) {
	t.Parallel()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	const oid = "89abcdef0123456789abcdef0123456789abcdef"
	good := removedMeta{V: 1, Path: "/src/app.worktrees/x\nnewline", Branch: "feat/x", Head: oid,
		Time: time.Unix(1700000000, 0).UTC(), WorktreeTree: oid, IndexTree: oid, IndexCommit: oid}
	msg := func(m removedMeta) string {
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return "copse: removed worktree x\n\n" + metaKey + string(js) + "\n"
	}
	ref := func(id, message string) gitx.RemovedRef {
		return gitx.RemovedRef{Name: gitx.RemovedRefPrefix + id, Commit: commit, Message: message}
	}
	e, err := parseEntry(ref(commit[:idLen], msg(good)))
	if err != nil || e.Path != good.Path || e.Branch != "feat/x" || e.ID != commit[:idLen] || e.WorktreeTree != oid {
		t.Fatalf("good record: %+v, %v", e, err)
	}
	bad := map[string]gitx.RemovedRef{
		"no meta line":        ref(commit[:idLen], "just a message\n"),
		"id not of commit":    ref("fedcba987654", msg(good)),
		"id not hex":          ref("feat/x", msg(good)),
		"unknown field":       ref(commit[:idLen], metaKey+`{"v":1,"evil":true}`),
		"unclean path":        ref(commit[:idLen], msg(func() removedMeta { m := good; m.Path = "/a/../etc"; return m }())),
		"relative path":       ref(commit[:idLen], msg(func() removedMeta { m := good; m.Path = "rel"; return m }())),
		"branch with control": ref(commit[:idLen], msg(func() removedMeta { m := good; m.Branch = "a\x1bb"; return m }())),
		"tree not an oid":     ref(commit[:idLen], msg(func() removedMeta { m := good; m.WorktreeTree = "HEAD"; return m }())),
		"head option":         ref(commit[:idLen], msg(func() removedMeta { m := good; m.Head = "--output=x"; return m }())),
		"version 2":           ref(commit[:idLen], msg(func() removedMeta { m := good; m.V = 2; return m }())),
		"no time":             ref(commit[:idLen], msg(func() removedMeta { m := good; m.Time = time.Time{}; return m }())),
	}
	for name, r := range bad {
		if _, err := parseEntry(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
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
	for i, j := range []LandJob{
		{State: LandLanded, Finished: long},    // land-1 goes
		{State: LandFailed, Finished: long},    // land-2 goes
		{State: LandUncertain, Finished: long}, // stays: a person must look
		{State: LandBlocked, Finished: long},   // stays: it waits for --force-restart
		{State: LandLanded, Finished: recent},  // stays: recent
		{State: LandQueued},                    // stays: unfinished
	} {
		j.Ticket = int64(i + 1)
		j.Job = landjobs.Name(j.Ticket)
		if err := WriteJob(dir, &j); err != nil {
			t.Fatal(err)
		}
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "1ns")
	records := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/") }
	lands := func() []string {
		jobs, err := ReadJobs(dir)
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

	dry, err := svc.Do(ctx, PruneRequest{DryRun: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Prune.DroppedRestores, []string{removed.RestoreID}) || !slices.Equal(dry.Prune.DroppedLands, []string{"land-1", "land-2"}) {
		t.Fatalf("dry run would drop %v and %v", dry.Prune.DroppedRestores, dry.Prune.DroppedLands)
	}
	if records() == "" || !slices.Equal(lands(), all) {
		t.Fatalf("the dry run dropped something: records %q, lands %v", records(), lands())
	}

	out, err := svc.Do(ctx, PruneRequest{}, true)
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
	_, err = svc.Do(ctx, PruneRequest{}, true)
	if e := AsError(err); e == nil || e.Kind != KindUsage || e.Code != CodeBadConfig || !strings.Contains(e.Message, "copse.keepLands") {
		t.Fatalf("bad copse.keepLands: %v", err)
	}
	if !slices.Equal(lands(), before) {
		t.Fatalf("a refused prune dropped land records: %v, was %v", lands(), before)
	}
}
