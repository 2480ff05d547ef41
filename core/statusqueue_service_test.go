package core_test

import (
	"context"
	"slices"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// With one worker, a path moved to the front while the pool runs is the next one computed
// (the picker does this for rows that scroll into view), and every path still gets exactly
// one real status.
func TestStatusesFromFollowsPrioritize(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	var paths []string
	paths = append(paths, r.Root)
	for _, b := range []string{"a", "b", "c", "d"} {
		paths = append(paths, r.AddWorktree("feat/"+b, b))
	}
	r.Write("dirty.txt", "x")
	s := open(t, r, r.Root)
	q := core.NewStatusQueue(paths)
	var order []string
	got := map[string]core.Status{}
	s.StatusesFrom(context.Background(), q, 1, func(res core.StatusResult) {
		if len(order) == 0 {
			q.Prioritize([]string{paths[4], paths[3]})
		}
		order = append(order, res.Path)
		got[res.Path] = res.Status
	})
	want := []string{paths[0], paths[4], paths[3], paths[1], paths[2]}
	if !slices.Equal(order, want) {
		t.Fatalf("order %q, want %q", order, want)
	}
	for _, p := range paths {
		if st := got[p]; st.Error != "" {
			t.Fatalf("%s: status error %q", p, st.Error)
		}
	}
	if got[r.Root].Untracked != 1 {
		t.Fatalf("main checkout: %+v, want one untracked file", got[r.Root])
	}
}
