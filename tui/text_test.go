package tui

import (
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/copse-dev/copse/internal/textsafe"
)

// The picker measures plain text with textsafe (shared with core and copse list) and lays
// out styled text with lipgloss: the two must agree on everything a row can hold, or
// columns drift.
func TestWidthAgreesWithLipgloss(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"feat/login", "~/src/app.worktrees/feat-login", "(detached abc1234)",
		"✚3", "✖1", "↑2", "↓5", "✓", "…", "?", "⚑ agent-1", "[wG]", "›", "●",
		"漢字/ブランチ", "한글", "ｆｕｌｌ", "café", "e\u0301", "🌲 tree", `\x1b[2J\u202e`,
	} {
		if got, want := textsafe.Width(s), lipgloss.Width(s); got != want {
			t.Errorf("textsafe.Width(%q) = %d, lipgloss says %d", s, got, want)
		}
	}
}
