package core_test

import (
	"testing"

	"github.com/copse-dev/copse/core"
)

// Has answers what back would find without forgetting anything: an entry whose worktree is
// gone is skipped, not popped, and an empty history has nothing.
func TestHistoryHasForgetsNothing(t *testing.T) {
	t.Parallel()
	h := core.NewHistory()
	live := map[string]bool{"/a": true}
	exists := func(p string) bool { return live[p] }
	if h.Has("s", exists) {
		t.Error("an empty history has a previous worktree")
	}
	h.Visit("s", "/a")
	h.Visit("s", "/gone")
	if !h.Has("s", exists) {
		t.Error("Has missed /a under a removed entry")
	}
	if p, ok := h.Peek("s"); !ok || p != "/gone" {
		t.Errorf("Has changed the history: top = %q, %v", p, ok)
	}
	if h.Has("other", exists) {
		t.Error("another session's history counted")
	}
}
