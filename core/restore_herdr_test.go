package core_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// Under Herdr a forced remove records the worktree first too. When Herdr then fails and
// nothing was removed, the record is dropped again; a restore registers the worktree
// with git (Herdr opens no workspace for it).
func TestHerdrForcedRemoveRecords(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	path, _ := w.create(t, "rec")
	coretest.WriteFile(t, filepath.Join(path, "wip.txt"), "wip\n")

	s := w.open(t, w.Root, herdrdouble.Knobs{Error: "worktree_remove_failed"}, "remove")
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(path), Force: true})
	wantCode(t, err, core.KindFailed, "herdr_remove_failed")
	if !gitLists(t, w.Repo, path) {
		t.Fatal("the failed remove removed the worktree")
	}
	if got := removedRefs(w.Repo); got != "" {
		t.Fatalf("a remove that did not happen left a record: %q", got)
	}

	out, err := do(t, w.plain(t), core.RemoveRequest{Path: core.Str(path), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.RestoreID == "" || gitLists(t, w.Repo, path) {
		t.Fatalf("remove: %+v", out)
	}
	back, err := do(t, w.plain(t), core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	if back.Worktree.Branch != "rec" || !gitLists(t, w.Repo, path) {
		t.Fatalf("restored %+v", back.Worktree)
	}
	if got, _ := os.ReadFile(filepath.Join(path, "wip.txt")); string(got) != "wip\n" {
		t.Fatalf("wip.txt = %q", got)
	}
}
