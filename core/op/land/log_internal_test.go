package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/textsafe"
)

// The tail is bounded by bytes as well as lines: ten 1000-byte lines give the last four
// whole ones (the fifth from the end begins before the last 4 KB), never a partial one,
// each cut to a readable width.
func TestGateTailBoundedByBytes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "land-1.log")
	var b strings.Builder
	for i := 0; i < 10; i++ {
		b.WriteString(string(rune('a'+i)) + strings.Repeat("x", 998) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tail := gateTail(path)
	if len(tail) != 4 {
		t.Fatalf("tail has %d lines, want 4", len(tail))
	}
	for i, l := range tail {
		if want := string(rune('g' + i)); !strings.HasPrefix(l, want) {
			t.Errorf("line %d starts %q, want %q (a whole line)", i, l[:1], want)
		}
		if w := textsafe.Width(l); w > gateTailCells || w < gateTailCells-1 {
			t.Errorf("line %d is %d cells, want it cut to %d", i, w, gateTailCells)
		}
	}
	if gateTail(filepath.Join(t.TempDir(), "none.log")) != nil {
		t.Error("a missing log has a tail")
	}
}
