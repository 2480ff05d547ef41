//go:build linux

package liveproc

import (
	"fmt"
	"os"
	"testing"
)

// BenchmarkRead is one scan for ten worktrees: what list --status and the picker pay
// once per listing (go test ./internal/liveproc -bench Read -run '^$').
func BenchmarkRead(b *testing.B) {
	var roots []string
	for i := range 10 {
		roots = append(roots, fmt.Sprintf("%s/wt-%d", b.TempDir(), i))
	}
	n, _ := os.ReadDir("/proc")
	b.ReportMetric(float64(len(n)), "proc-entries")
	for b.Loop() {
		if _, err := Read(roots); err != nil {
			b.Fatal(err)
		}
	}
}
