package tui

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// TestMain makes the process's git config unreadable (coretest.Main), so a git that missed
// Options.Env fails; it deletes the Herdr double the Herdr flow builds afterwards.
func TestMain(m *testing.M) {
	code := coretest.Main(m)
	herdrdouble.Cleanup()
	os.Exit(code)
}
