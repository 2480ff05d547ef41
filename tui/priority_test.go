package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
)

// runCmds runs cmd and every command a batch holds (not the messages they return).
func runCmds(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if b, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range b {
			runCmds(c)
		}
	}
}

func manyWorktrees(n int) (*core.Listing, []string) {
	l := &core.Listing{RepoRoot: "/src/app", Backend: "git"}
	var paths []string
	for i := range n {
		p := fmt.Sprintf("/src/app.worktrees/w%03d", i)
		l.Worktrees = append(l.Worktrees, core.Worktree{Branch: fmt.Sprintf("w%03d", i), Path: p, Head: oid('a')})
		paths = append(paths, p)
	}
	return l, paths
}

// A jump to the end while statuses are computed puts the rows now on screen at the front
// of the pool's queue, top down; moving within the screen changes nothing.
func TestRowsScrolledIntoViewAreComputedNext(t *testing.T) {
	t.Parallel()
	l, paths := manyWorktrees(60)
	m := loaded(t, newTestModel(100, 14, Options{}), l, nil)
	q := core.NewStatusQueue(paths)
	m.statusQueue = q

	m, cmd := send(t, m, press("down"))
	runCmds(cmd)
	if got := q.Waiting(); !slices.Equal(got, paths) {
		t.Fatalf("a move within the screen reordered the queue: %q…", got[:3])
	}

	m, cmd = send(t, m, press("G"))
	runCmds(cmd)
	h := m.listHeight()
	if h < 2 || h >= 60 {
		t.Fatalf("list height %d", h)
	}
	got := q.Waiting()
	if want := paths[60-h:]; !slices.Equal(got[:h], want) {
		t.Fatalf("after G the queue starts %q, want the %d rows on screen %q", got[:h], h, want)
	}
	if len(got) != 60 {
		t.Fatalf("the queue has %d paths, want 60", len(got))
	}

	// Rows that already have a status are not asked for again.
	m, _ = send(t, m, statusBatchMsg{seq: m.loadSeq, results: []core.StatusResult{{Path: paths[0]}}})
	_, cmd = send(t, m, press("g"))
	runCmds(cmd)
	if got := q.Waiting(); got[0] != paths[1] {
		t.Fatalf("after g the queue starts with %q, want %q (the first row has its status)", got[0], paths[1])
	}
}

// A listing handed in by the caller is on the very first frame: no "loading" frame, and
// Init starts the statuses instead of listing again.
func TestListingGivenIsOnTheFirstFrame(t *testing.T) {
	t.Parallel()
	l, _ := manyWorktrees(5)
	m := newModel(context.Background(), nil, Options{Width: 100, Height: 14, Listing: l})
	if got := plain(m); !strings.Contains(got, "w004") || strings.Contains(got, "loading") {
		t.Fatalf("first frame:\n%s", got)
	}
	m.svc = &core.Service{} // Init only looks at whether there is one
	msgs := map[string]bool{}
	cmd := m.Init()
	b, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("Init returned %T", cmd())
	}
	for _, c := range b {
		if _, ok := c().(startStatusesMsg); ok {
			msgs["start"] = true
		}
	}
	if !msgs["start"] {
		t.Fatal("Init did not start the statuses for the given listing")
	}
}
