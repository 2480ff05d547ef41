package core_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
)

// Prune removes a worktree that has a Herdr workspace as remove does: through Herdr, never
// forced, which closes the workspace with it (git alone would leave the workspace open on
// a deleted checkout).
func TestHerdrPruneClosesTheWorkspaceOfAWorktreeItRemoves(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "old")
	if ws == "" {
		t.Fatal("create opened no workspace")
	}
	age(t, w.Repo, filepath.Base(path), 100*time.Hour)
	s := w.plain(t)
	p, err := s.Prepare(bg, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "herdr worktree remove --workspace " + ws; !slices.Contains(p.Commands, want) {
		t.Fatalf("commands %q do not hold %q", p.Commands, want)
	}
	out, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Removed) != 1 || out.Prune.Removed[0].Path != path {
		t.Fatalf("report %+v", out.Prune)
	}
	if gitLists(t, w.Repo, path) || w.wsOf(t, path) != "" {
		t.Fatalf("after prune: listed by git %v, workspace %q", gitLists(t, w.Repo, path), w.wsOf(t, path))
	}
	calls := w.calls(t, "remove")
	if len(calls) == 0 || flag(calls[len(calls)-1], "workspace") != ws || has(calls[len(calls)-1], "force") {
		t.Fatalf("herdr remove calls %q", calls)
	}
}

// Land's clean-up of a worktree with a Herdr workspace goes through Herdr too (never
// forced) and closes the workspace, also when it first released the landing session's claim.
func TestHerdrLandCleanUpReleasesTheClaimAndClosesTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, ws := w.create(t, "feat/h")
	commitOn(t, w.Repo, path, "h.txt", "h\n")
	w.Git(w.Root, "worktree", "lock", "--reason", "copse claim: session=agent-1 since=2026-01-01T00:00:00Z", path)
	out, err := land(t, w.plain(t), core.LandRequest{Branch: core.Str("feat/h"), Session: core.Str("agent-1")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.State != core.LandLanded || !out.Land.Released || !out.Land.Removed {
		t.Fatalf("job %+v (warnings %q)", out.Land, out.Land.Warnings)
	}
	if gitLists(t, w.Repo, path) || w.wsOf(t, path) != "" {
		t.Fatalf("after the clean-up: listed by git %v, workspace %q", gitLists(t, w.Repo, path), w.wsOf(t, path))
	}
	calls := w.calls(t, "remove")
	if len(calls) == 0 || flag(calls[len(calls)-1], "workspace") != ws || has(calls[len(calls)-1], "force") {
		t.Fatalf("herdr remove calls %q", calls)
	}
}
