package core

import "testing"

func TestPlural(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "commit", "0 commits"}, {1, "commit", "1 commit"}, {2, "commit", "2 commits"},
		{1, "nested repository", "1 nested repository"}, {3, "nested repository", "3 nested repositories"},
		{2, "entry", "2 entries"}, {1, "uncommitted change", "1 uncommitted change"}, {4, "ignored file", "4 ignored files"},
	} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
