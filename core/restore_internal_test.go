package core

import (
	"testing"
	"time"
)

func TestParseKeep(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"14d": 14 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour} {
		if got, err := ParseSpan(in, keepRule); err != nil || got != want {
			t.Errorf("parseSpan(%q, keepRule) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-1h", "d", "1.5d", "forever"} {
		if _, err := ParseSpan(in, keepRule); err == nil {
			t.Errorf("parseSpan(%q, keepRule) accepted", in)
		}
	}
}
