package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/copse-dev/copse/internal/liveproc"
)

// Where copse cannot tell which processes run (no /proc), it says so and never "none":
// the confirmation has an "unknown" line; the remove is not refused for it.
func TestUnknownProcessesAreSaidNotCountedAsNone(t *testing.T) {
	t.Parallel()
	l := LiveSet{Unknown: LiveUnknown(errors.Join(liveproc.ErrUnknown, errors.New("no /proc")))}
	lines := l.Lines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "processes working in it: unknown (cannot tell which processes run there") {
		t.Fatalf("lines %q", lines)
	}
	if e := RuleNoProcesses("/w", "branch feat", l); e != nil {
		t.Fatalf("an unknown count refused: %v", e)
	}
	if got := (LiveSet{}).Lines(); len(got) != 0 {
		t.Fatalf("no process, known: lines %q", got)
	}
}
