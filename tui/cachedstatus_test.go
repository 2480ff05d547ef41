package tui

import (
	"testing"

	"github.com/copse-dev/copse/core"
)

// The rows on screen whose statuses the cache proves fresh come in one message and are
// all drawn by the next frame; a row the pool has already read keeps git's answer, and a
// message from a replaced load is dropped.
func TestCachedStatusesFillPendingRowsAtOnce(t *testing.T) {
	m := loaded(t, newTestModel(100, 30, Options{}), fxMixed(), nil)
	read := fxMixedStatus()[0] // the pool has read the main checkout already
	m, _ = send(t, m, statusBatchMsg{seq: m.loadSeq, results: []core.StatusResult{read}})
	cached := []core.StatusResult{
		{Path: read.Path, Status: core.Status{Untracked: 42}},
		{Path: "/home/dev/src/app.worktrees/feat-login", Status: core.Status{Staged: 1}},
		{Path: "/home/dev/src/app.worktrees/release-2.0", Status: core.Status{Ahead: 3}},
	}
	before := map[string]bool{}
	for _, r := range m.rows {
		before[r.wt.Path] = r.pending
	}
	stale, _ := send(t, m, cachedStatusesMsg{seq: m.loadSeq - 1, results: cached})
	for _, r := range stale.rows {
		if r.pending != before[r.wt.Path] {
			t.Fatalf("a replaced load's cached statuses were applied to %s", r.wt.Path)
		}
	}
	m, _ = send(t, m, cachedStatusesMsg{seq: m.loadSeq, results: cached})
	want := map[string]core.Status{read.Path: read.Status, cached[1].Path: cached[1].Status, cached[2].Path: cached[2].Status}
	for _, r := range m.rows {
		st, ok := want[r.wt.Path]
		switch {
		case ok && (r.pending || r.wt.Status == nil || *r.wt.Status != st):
			t.Fatalf("%s: pending %v status %+v, want %+v", r.wt.Path, r.pending, r.wt.Status, st)
		case !ok && r.pending != before[r.wt.Path]:
			t.Fatalf("%s: filled though the cache had nothing for it", r.wt.Path)
		}
	}
}
