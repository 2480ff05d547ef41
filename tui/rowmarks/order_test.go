package rowmarks

import (
	"slices"
	"testing"

	"github.com/copse-dev/copse/core"
)

func TestNaturalCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"task-2", "task-10", -1},
		{"task-10", "task-9", 1},
		{"v1.10.0", "v1.9.3", 1},
		{"a", "a1", -1},
		{"x007", "x7", 1},   // the same number: more zeros after
		{"x007b", "x7a", 1}, // ... but only when nothing else differs: b > a decides
		{"x7a", "x007b", -1},
		{"abc", "abd", -1},
		{"same-1", "same-1", 0},
		{"99999999999999999999", "100000000000000000000", -1}, // longer than any integer type
	} {
		if got := NaturalCompare(tc.a, tc.b); got != tc.want {
			t.Errorf("NaturalCompare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// By name: the main checkout, then branches as people count them, then rows without one.
func TestCompareByName(t *testing.T) {
	rows := []core.Worktree{
		{Path: "/d", Detached: true, Head: "abcdef1234"},
		{Branch: "task-10", Path: "/t10"},
		{Branch: "main", Path: "/m", Main: true},
		{Branch: "Task-2", Path: "/t2"},
		{Branch: "task-1", Path: "/t1"},
	}
	want := []string{"/m", "/t1", "/t2", "/t10", "/d"}
	slices.SortStableFunc(rows, CompareByName)
	for i, w := range rows {
		if w.Path != want[i] {
			t.Fatalf("order %v, want %v", rows, want)
		}
	}
}
