package core

import (
	"context"
	"errors"
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
		{"gone, run ok", false, false, false, false, true, removalDone},
		{"gone, run ok, list moved", false, false, false, false, false, removalDone},
		{"gone though the run failed", true, false, false, false, true, removalGoneAnyway},
		{"refused: all still there", true, true, true, false, true, removalNothing},
		{"refused: prunable entry still listed", true, true, false, true, true, removalNothing},
		{"failed and the list moved", true, true, true, false, false, removalPartial},
		{"failed, directory gone, still listed", true, true, false, false, true, removalPartial},
		{"failed, unlisted, directory left", true, false, true, false, true, removalPartial},
		{"ok but all still there", false, true, true, false, true, removalIncomplete},
		{"ok but still listed", false, true, false, false, true, removalIncomplete},
		{"ok but directory left", false, false, true, false, true, removalIncomplete},
		{"ok, list moved, still there", false, true, true, false, false, removalIncomplete},
	}
	for _, c := range cases {
		if got := judgeRemoval(c.failed, c.listed, c.onDisk, c.prunable, c.sameList); got != c.want {
			t.Errorf("%s: judgeRemoval = %d, want %d", c.name, got, c.want)
		}
	}
}

// Remove names each verdict with its code, as it did before the step was shared.
func TestRemoveFailureCodes(t *testing.T) {
	dirty := &gitx.Error{Kind: gitx.ErrExit, Stderr: "fatal: '/x' contains modified or untracked files, use --force to delete it"}
	other := &gitx.Error{Kind: gitx.ErrExit, Stderr: "fatal: something else"}
	own := Refused(CodeLockedWorktree, "unlock it", "locked")
	cases := []struct {
		name string
		r    removal
		code string
		kind Kind
	}{
		{"done", removal{verdict: removalDone}, "", 0},
		{"incomplete", removal{verdict: removalIncomplete, listed: true}, CodeRemoveIncomplete, KindUncertain},
		{"refused dirty", removal{verdict: removalNothing, runErr: dirty, listed: true, onDisk: true}, CodeDirtyWorktree, KindRefused},
		{"refused other", removal{verdict: removalNothing, runErr: other, listed: true, onDisk: true}, CodeRemoveFailed, KindFailed},
		{"refused by copse", removal{verdict: removalNothing, runErr: own, listed: true, onDisk: true}, CodeLockedWorktree, KindRefused},
		{"cancelled, nothing removed", removal{verdict: removalNothing, runErr: context.Canceled, listed: true, onDisk: true}, CodeCancelled, KindCancelled},
		{"cancelled half way", removal{verdict: removalPartial, runErr: context.Canceled, listed: true}, CodeRemoveInterrupted, KindCancelled},
		{"failed half way", removal{verdict: removalPartial, runErr: other, onDisk: true}, CodeRemoveInterrupted, KindUncertain},
		{"gone though failed", removal{verdict: removalGoneAnyway, runErr: other}, CodeRemoveInterrupted, KindUncertain},
		{"uncertain backend", removal{verdict: removalNothing, runErr: Uncertain(CodeRemoveUnverified, nil, "h", "m"), listed: true, onDisk: true}, CodeRemoveUnverified, KindUncertain},
	}
	for _, c := range cases {
		err := removeFailure("/x", c.r)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: removeFailure = %v, want nil", c.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: removeFailure = %v, want a *Error", c.name, err)
		}
		if e.Code != c.code || e.Kind != c.kind {
			t.Errorf("%s: code %s kind %d, want %s %d (%s)", c.name, e.Code, e.Kind, c.code, c.kind, e.Message)
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
	step := func() removeStep {
		snap, err := s.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wt, ok := Find(snap, path)
		if !ok {
			t.Fatalf("%s is not listed", path)
		}
		return removeStep{target: wt, record: true, before: &snap.Token, run: remove}
	}
	records := func() string { return r.Git(r.Root, "for-each-ref", "--format=%(refname)", gitx.RemovedRefPrefix) }

	got, err := s.removeOne(ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.verdict != removalNothing || got.runErr == nil || !got.listed || !got.onDisk || got.saved != nil {
		t.Fatalf("refused removal: %+v", got)
	}
	if refs := records(); refs != "" {
		t.Fatalf("the record of a removal that did not happen is kept: %s", refs)
	}

	if err := os.Remove(filepath.Join(path, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	got, err = s.removeOne(ctx, step())
	if err != nil {
		t.Fatal(err)
	}
	if got.verdict != removalDone || got.listed || got.onDisk || got.saved == nil {
		t.Fatalf("removal: %+v", got)
	}
	if refs := records(); refs != gitx.RemovedRefPrefix+got.saved.ID {
		t.Fatalf("records after the removal: %q, want the one made for it (%s)", refs, got.saved.ID)
	}
}
