package tui

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

func fxRanking() *core.Listing {
	wt := func(branch, leaf string) core.Worktree {
		return core.Worktree{Branch: branch, Path: "/home/dev/src/app.worktrees/" + leaf, Head: oid('a')}
	}
	main := core.Worktree{Branch: "main", Path: "/home/dev/src/app", Head: oid('a'), Main: true}
	// "log" is scattered in the first two branches and a substring of the last two.
	return &core.Listing{RepoRoot: "/home/dev/src/app", Backend: "git", Worktrees: []core.Worktree{
		main, wt("fix/lazy-o-gate", "a"), wt("lo-g", "b"), wt("feat/login", "c"), wt("log", "d"),
	}}
}

func branches(wts []core.Worktree) string {
	var bs []string
	for _, w := range wts {
		bs = append(bs, w.Branch)
	}
	return strings.Join(bs, " ")
}

// Exact substrings of the branch rank above scattered matches; among substrings the
// earlier match comes first.
func TestFilterRanksSubstringsFirst(t *testing.T) {
	t.Parallel()
	got := branches(Filter(fxRanking(), "log"))
	if !strings.HasPrefix(got, "log feat/login ") {
		t.Fatalf("order = %q, want the substring matches (log, feat/login) first", got)
	}
	if got := branches(Filter(fxRanking(), "LOG")); !strings.HasPrefix(got, "log feat/login") {
		t.Errorf("case-insensitive order = %q", got)
	}
	if got := Filter(fxRanking(), "zzz"); len(got) != 0 {
		t.Errorf("no match expected: %v", got)
	}
	if got := Filter(fxRanking(), ""); len(got) != 5 {
		t.Errorf("empty query keeps every row: %d", len(got))
	}
}

// The picker shows the same order Filter returns, and highlights the matched characters.
func TestPickerFilterMatchesFilterAndHighlights(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(100, 12, Options{Pick: true, Query: "log"}), fxRanking(), nil)
	var order []core.Worktree
	for _, i := range m.visible {
		order = append(order, m.rows[i].wt)
	}
	if branches(order) != branches(Filter(fxRanking(), "log")) {
		t.Errorf("picker %q, Filter %q", branches(order), branches(Filter(fxRanking(), "log")))
	}
	if r, _ := m.selected(); r.wt.Branch != "log" {
		t.Errorf("best match not selected: %s", r.wt.Branch)
	}
	login := m.rows[3]
	if login.wt.Branch != "feat/login" || len(login.hl) != 3 || login.hl[0] != 5 {
		t.Errorf("feat/login highlights %v, want bytes 5-7", login.hl)
	}
	// The match ink is drawn on exactly those characters.
	st := NewStyles(true, false)
	line := renderRow(login, false, m.columns(), &st)
	if !strings.Contains(line, st.Match.Render("log")) {
		t.Errorf("row does not highlight the match: %q", line)
	}
}

// Pick mode types into the filter from the first key, esc clears then quits, and tab
// leaves the typing so the list keys work.
func TestPickTypesAsYouGo(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(80, 12, Options{Pick: true}), fxMixed(), fxMixedStatus())
	m = typeText(t, m, "rel")
	if m.mode != modeFilter || m.filter.Value() != "rel" {
		t.Fatalf("mode=%v filter=%q", m.mode, m.filter.Value())
	}
	if r, _ := m.selected(); r.wt.Branch != "release/2.0" {
		t.Errorf("selected %s", r.wt.Branch)
	}
	m, cmd := send(t, m, press("esc"))
	if m.filter.Value() != "" || isQuit(cmd) || m.mode != modeFilter {
		t.Fatalf("first esc: filter=%q quit=%v", m.filter.Value(), isQuit(cmd))
	}
	m = typeText(t, m, "x")
	m, _ = send(t, m, press("tab"), press("j"))
	if m.mode != modeList || m.filter.Value() != "x" {
		t.Errorf("tab then j: mode=%v filter=%q", m.mode, m.filter.Value())
	}
	m, _ = send(t, m, press("z")) // unbound in the list: typing again
	if m.mode != modeFilter || m.filter.Value() != "xz" {
		t.Errorf("z: mode=%v filter=%q", m.mode, m.filter.Value())
	}
	m, _ = send(t, m, press("esc"))
	if _, cmd = send(t, m, press("esc")); !isQuit(cmd) {
		t.Error("esc on an empty filter does not quit")
	}
}

func TestGoldenPickQuery80x24(t *testing.T) {
	t.Parallel()
	goldenPlain(t, loaded(t, newTestModel(80, 24, Options{Pick: true, Query: "log"}), fxMixed(), fxMixedStatus()))
}

func TestGoldenPickQuery120x35(t *testing.T) {
	t.Parallel()
	goldenPlain(t, loaded(t, newTestModel(120, 35, Options{Pick: true, Query: "log"}), fxRanking(), nil))
}

// The main picker types into the filter too, from a key the list does not bind, as fzf
// does; a bound letter keeps its action.
func TestPickerTypesAnUnboundKey(t *testing.T) {
	t.Parallel()
	m := loaded(t, newTestModel(80, 12, Options{}), fxMixed(), fxMixedStatus())
	m, _ = send(t, m, press("z"))
	if m.mode != modeFilter || m.filter.Value() != "z" {
		t.Fatalf("z: mode=%v filter=%q", m.mode, m.filter.Value())
	}
	m, _ = send(t, m, press("esc"), press("esc"))
	m, _ = send(t, m, press("n")) // bound: the new-worktree form, not a filter
	if m.mode != modeForm || m.filter.Value() != "" {
		t.Fatalf("n: mode=%v filter=%q", m.mode, m.filter.Value())
	}
}
