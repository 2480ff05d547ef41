package tui

import (
	"context"
	"fmt"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The picker asks how far each row is from the main branch with the rows on screen first,
// the selected one leading, in a message of their own; the rest follow once that answer is
// in. Every answer is git's.
func TestDivergenceAsksTheRowsOnScreenFirst(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	want := map[string]core.Divergence{}
	for i := range 14 {
		wt := r.AddWorktree(fmt.Sprintf("feat/d%02d", i), fmt.Sprintf("app.worktrees/d%02d", i))
		for range i % 3 {
			r.Git(wt, "commit", "-q", "--allow-empty", "-m", "ahead")
		}
		want[wt] = core.Divergence{Ahead: i % 3}
	}
	svc := openService(t, r, r.Root)
	l, err := svc.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(context.Background(), svc, Options{Listing: l, Width: 100, Height: 12})
	m, _ = send(t, m, press("j"), press("j"))
	onScreen := map[string]bool{}
	for vi := m.offset; vi < min(len(m.visible), m.offset+m.listHeight()); vi++ {
		if row := m.rows[m.visible[vi]]; !row.wt.Main {
			onScreen[row.wt.Path] = true
		}
	}
	if len(onScreen) == 0 || len(onScreen) >= len(want) {
		t.Fatalf("%d of %d rows on screen: the case needs some off it", len(onScreen), len(want))
	}
	cmd := m.divergenceOf()
	if cmd == nil {
		t.Fatal("no divergence asked")
	}
	first := cmd().(divergenceMsg)
	for p := range first.div {
		if !onScreen[p] && p != r.Root {
			t.Fatalf("the first answer has %s, which is off screen", p)
		}
	}
	for p := range onScreen {
		if _, ok := first.div[p]; !ok {
			t.Fatalf("the first answer lacks %s, on screen", p)
		}
	}
	if len(first.rest) == 0 {
		t.Fatal("nothing left for after the first answer")
	}
	m, cmd = m.onDivergence(first)
	if cmd == nil {
		t.Fatal("the rest was not asked after the first answer")
	}
	m, _ = m.onDivergence(cmd().(divergenceMsg))
	for _, row := range m.rows {
		if row.wt.Main {
			if row.vsMain != nil {
				t.Fatalf("the main checkout shows a divergence %+v", *row.vsMain)
			}
			continue
		}
		if row.vsMain == nil || row.vsMain.Divergence != want[row.wt.Path] {
			t.Fatalf("%s: %+v, want %+v", row.wt.Path, row.vsMain, want[row.wt.Path])
		}
	}
}
