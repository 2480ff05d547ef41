package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/gitx"
)

// The verdict on one removal, which remove, prune and land's clean-up share: every
// combination of "the run failed", "git lists it", "it is on disk", "git knew it was gone"
// and "the list is unchanged".
func TestJudgeRemoval(t *testing.T) {
	cases := []struct {
		name                                       string
		failed, listed, onDisk, prunable, sameList bool
		want                                       removalVerdict
	}{
		{"gone, run ok", false, false, false, false, true, RemovalDone},
		{"gone, run ok, list moved", false, false, false, false, false, RemovalDone},
		{"gone though the run failed", true, false, false, false, true, RemovalGoneAnyway},
		{"refused: all still there", true, true, true, false, true, RemovalNothing},
		{"refused: prunable entry still listed", true, true, false, true, true, RemovalNothing},
		{"failed and the list moved", true, true, true, false, false, RemovalPartial},
		{"failed, directory gone, still listed", true, true, false, false, true, RemovalPartial},
		{"failed, unlisted, directory left", true, false, true, false, true, RemovalPartial},
		{"ok but all still there", false, true, true, false, true, RemovalIncomplete},
		{"ok but still listed", false, true, false, false, true, RemovalIncomplete},
		{"ok but directory left", false, false, true, false, true, RemovalIncomplete},
		{"ok, list moved, still there", false, true, true, false, false, RemovalIncomplete},
	}
	for _, c := range cases {
		if got := judgeRemoval(c.failed, c.listed, c.onDisk, c.prunable, c.sameList); got != c.want {
			t.Errorf("%s: judgeRemoval = %d, want %d", c.name, got, c.want)
		}
	}
}

// The shared step with real git: a removal git refuses leaves the worktree and drops the
// record made for it; one git makes is judged done and keeps its record.
func TestRemoveOneRealGit(t *testing.T) {
	ctx := context.Background()
	r := coretest.New(t)
	path := r.AddWorktree("feat", "app.worktrees/feat")
	coretest.WriteFile(t, filepath.Join(path, "notes.txt"), "unsaved\n") // untracked: git refuses without --force
	svc, err := Open(ctx, Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	s := svc.impl
	remove := func(ctx context.Context) error {
		rm, err := gitx.WorktreeRemove(s.Root(), path, false, false)
		if err != nil {
			return err
		}
		_, err = s.Git.Run(ctx, rm)
		return err
	}
	step := func() RemoveStep {
		snap, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wt, ok := Find(snap, path)
		if !ok {
			t.Fatalf("%s is not listed", path)
		}
		return RemoveStep{Target: wt, Record: true, Before: &snap.Token, Run: remove}
	}
	records := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", gitx.RemovedRefPrefix) }

	got, err := s.RemoveOne(ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != RemovalNothing || got.RunErr == nil || !got.Listed || !got.OnDisk || got.Saved != nil {
		t.Fatalf("refused removal: %+v", got)
	}
	if refs := records(); refs != "" {
		t.Fatalf("the record of a removal that did not happen is kept: %s", refs)
	}

	if err := os.Remove(filepath.Join(path, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	got, err = s.RemoveOne(ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != RemovalDone || got.Listed || got.OnDisk || got.Saved == nil {
		t.Fatalf("removal: %+v", got)
	}
	if refs := records(); refs != gitx.RemovedRefPrefix+got.Saved.ID {
		t.Fatalf("records after the removal: %q, want the one made for it (%s)", refs, got.Saved.ID)
	}
}
