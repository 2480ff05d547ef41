package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// fxCommits gives some rows of fxMixed a last commit, hours to weeks before fxClock.
func fxCommits() map[string]core.Commit {
	at := func(d time.Duration, subj, author string) core.Commit {
		return core.Commit{When: fxClock.Add(-d), Subject: subj, Author: author}
	}
	cs := map[string]core.Commit{
		oid('m'): at(30*24*time.Hour, "Release 1.9", "Ann Lee"),
		oid('f'): at(2*time.Hour, "login: remember the user between visits", "Bo Park"),
		oid('r'): at(3*24*time.Hour, "release notes for 2.0", "Ann Lee"),
		oid('a'): at(5*time.Minute, "search: first cut", "claude"),
		oid('d'): at(400*24*time.Hour, "docs: old theme", "Cy Dee"),
	}
	for o, c := range cs {
		c.OID = o
		cs[o] = c
	}
	return cs
}

func withCommits(t *testing.T, m Model) Model {
	m, _ = send(t, m, commitsMsg{seq: m.loadSeq, commits: fxCommits()})
	return m
}

func visibleBranches(m Model) string {
	var bs []string
	for _, i := range m.visible {
		bs = append(bs, m.rows[i].label)
	}
	return strings.Join(bs, " ")
}

func TestSortCyclesKeepsSelectionAndMainFirst(t *testing.T) {
	t.Parallel()
	m := withCommits(t, mixed(t, 120, 35))
	if got := visibleBranches(m); !strings.HasPrefix(got, "main agent/claude-1 docs/site feat/login") || !strings.HasSuffix(got, "(detached abc1234)") {
		t.Fatalf("by name: %s", got)
	}
	sel := m.selectedPath()
	m, cmd := send(t, m, press("s"))
	if m.sortOrder() != core.SortRecent || cmd != nil { // no Service: nothing to remember it in
		t.Fatalf("s → %q", m.sortOrder())
	}
	// main first whatever its age, then newest first; rows without a known commit last.
	if got := visibleBranches(m); !strings.HasPrefix(got, "main agent/claude-1 feat/login fix/lock-file feat/rebase release/2.0 merge/upstream docs/site ") {
		t.Errorf("by recent: %s", got)
	}
	if m.selectedPath() != sel {
		t.Errorf("selection moved to %s", m.selectedPath())
	}
	if v := plain(m); !strings.Contains(strings.Split(v, "\n")[0], "by recent") || !strings.Contains(v, "sorted by recent") {
		t.Errorf("header does not show the order:\n%s", v)
	}
	m, _ = send(t, m, press("s"))
	if got := visibleBranches(m); m.sortOrder() != core.SortPath || !strings.HasPrefix(got, "main agent/claude-1 (detached abc1234) docs/site") {
		t.Errorf("by path: %s", got)
	}
	m, _ = send(t, m, press("s"))
	if m.sortOrder() != core.SortNeedsYou {
		t.Errorf("after path comes needs-you: %s", m.sortOrder())
	}
	m, _ = send(t, m, press("s"))
	if m.sortOrder() != core.SortName {
		t.Errorf("the cycle does not come back to name: %s", m.sortOrder())
	}
}

func TestAge(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Second: "now", 5 * time.Minute: "5m", 2 * time.Hour: "2h", 47 * time.Hour: "47h",
		3 * 24 * time.Hour: "3d", 70 * 24 * time.Hour: "10w", 800 * 24 * time.Hour: "2y",
	} {
		if got := age(fxClock, fxClock.Add(-d)); got != want {
			t.Errorf("age(%s) = %s, want %s", d, got, want)
		}
	}
}

// Rows show the last commit's age and subject where there is room.
func TestGoldenCommits120x35(t *testing.T) { goldenPlain(t, withCommits(t, mixed(t, 120, 35))) }
func TestGoldenCommits80x24(t *testing.T)  { goldenPlain(t, withCommits(t, mixed(t, 80, 24))) }

func TestGoldenSortRecent120x35(t *testing.T) {
	t.Parallel()
	m, _ := send(t, withCommits(t, mixed(t, 120, 35)), press("s"))
	goldenPlain(t, m)
}

// s remembers the order in the user's global git config copse.sort (never the
// repository's), and the next picker starts with it.
func TestFlowSortRemembered(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/b", "app.worktrees/b")
	r.AddWorktree("feat/a", "app.worktrees/z")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("s", "s") // name → recent → path
	f.wait("sorted by path", func(fr frame) bool { return strings.Contains(fr.view, "by path") })
	deadline := time.Now().Add(flowTimeout)
	for {
		if v, _ := r.TryGit(r.Root, "config", "--global", "copse.sort"); v == "path" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("git config --global copse.sort was not written")
		}
		time.Sleep(10 * time.Millisecond) // poll interval
	}
	if v, err := r.TryGit(r.Root, "config", "--local", "copse.sort"); err == nil {
		t.Fatalf("the sort was written into the repository's config: %q", v)
	}
	f.keys("q")
	f.result()
	g := startFlow(t, openService(t, r, r.Root), Options{})
	fr := g.wait("the remembered order", func(fr frame) bool { return strings.Contains(fr.view, "by path") })
	if i, j := strings.Index(fr.view, "feat/b"), strings.Index(fr.view, "feat/a"); i < 0 || j < 0 || i > j {
		t.Errorf("not sorted by path (b's path sorts before a's):\n%s", fr.view)
	}
	g.keys("q")
	g.result()
}

// A worktree added by another process appears without r, and the cursor stays put.
func TestFlowWatchSeesNewWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	keep := r.AddWorktree("feat/keep", "app.worktrees/keep")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(keep)
	added := r.AddWorktree("feat/added", "app.worktrees/added")
	fr := f.wait("the new row appears", func(fr frame) bool { return contains(fr.paths, added) })
	if fr.selected != keep {
		t.Errorf("cursor moved to %s", fr.selected)
	}
	f.keys("q")
	f.result()
}

// Focus regained: the list is read again.
func TestFocusReloads(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	seq := m.loadSeq
	m, _ = send(t, m, tea.FocusMsg{})
	if m.loadSeq != seq+1 {
		t.Errorf("focus did not reload (seq %d → %d)", seq, m.loadSeq)
	}
	if !m.View().ReportFocus {
		t.Error("the view does not ask for focus reports")
	}
}

// selectBranch moves the cursor to the row labelled branch, whatever the sort order.
func selectBranch(t *testing.T, m Model, branch string) Model {
	t.Helper()
	m, _ = send(t, m, press("g"))
	for r, _ := m.selected(); r.label != branch; r, _ = m.selected() {
		if m.cursor == len(m.visible)-1 {
			t.Fatalf("%s is not listed", branch)
		}
		m, _ = send(t, m, press("j"))
	}
	return m
}

func TestGoldenSortRecent80x24(t *testing.T) {
	t.Parallel()
	m, _ := send(t, withCommits(t, mixed(t, 80, 24)), press("s"))
	goldenPlain(t, m)
}

// Numbers in names sort as numbers, as people count: task-2 before task-10, by name and
// by path alike.
func TestSortIsNatural(t *testing.T) {
	t.Parallel()
	l := &core.Listing{Worktrees: []core.Worktree{
		{Branch: "main", Path: "/src/app", Main: true, Head: oid('m')},
		{Branch: "task-10", Path: "/src/app.worktrees/task-10", Head: oid('a')},
		{Branch: "task-2", Path: "/src/app.worktrees/task-2", Head: oid('b')},
		{Branch: "Task-3", Path: "/src/app.worktrees/task-3", Head: oid('c')},
		{Branch: "task-1", Path: "/src/app.worktrees/task-1", Head: oid('d')},
	}}
	m := loaded(t, newTestModel(100, 20, Options{}), l, nil)
	if got := visibleBranches(m); got != "main task-1 task-2 Task-3 task-10" {
		t.Errorf("by name: %s", got)
	}
	m, _ = send(t, m, press("s"), press("s")) // name → recent → path
	if got := visibleBranches(m); m.sortOrder() != core.SortPath || got != "main task-1 task-2 Task-3 task-10" {
		t.Errorf("by path (%s): %s", m.sortOrder(), got)
	}
}
