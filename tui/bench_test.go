package tui

import (
	"fmt"
	"testing"

	"github.com/copse-dev/copse/core"
)

// BenchmarkView1000 draws the picker over 1000 worktrees with status, at 120x40. View
// only lays out the rows on screen (column widths are measured in Update), so the cost
// should not grow with the number of worktrees. The figure is quoted in BENCH.md.
func BenchmarkView1000(b *testing.B) { benchView(b, 1000) }

// BenchmarkView20 is the same screen over 20 worktrees: the baseline View1000 is compared with.
func BenchmarkView20(b *testing.B) { benchView(b, 20) }

func benchView(b *testing.B, n int) {
	l := &core.Listing{RepoRoot: "/home/dev/src/app", Backend: "git"}
	var st []core.StatusResult
	for i := range n {
		wt := core.Worktree{
			Branch: fmt.Sprintf("feat/task-%04d", i),
			Path:   fmt.Sprintf("/home/dev/src/app.worktrees/feat-task-%04d", i),
			Head:   "0123456789abcdef0123456789abcdef01234567",
		}
		if i == 0 {
			wt.Branch, wt.Path, wt.Main, wt.Current = "main", "/home/dev/src/app", true, true
		}
		l.Worktrees = append(l.Worktrees, wt)
		st = append(st, core.StatusResult{Path: wt.Path, Status: core.Status{Unstaged: i % 3, Ahead: i % 5, Behind: i % 2}})
	}
	m := newTestModel(120, 40, Options{})
	tm, _ := m.Update(listingMsg{seq: m.loadSeq, listing: l})
	m = tm.(Model)
	tm, _ = m.Update(statusBatchMsg{seq: m.loadSeq, results: st, done: true})
	m = tm.(Model)
	m.cursor = n / 2
	m.clampCursor()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}
