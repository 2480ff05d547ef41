package tui

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// TestMain deletes the Herdr double the Herdr flow builds.
func TestMain(m *testing.M) {
	code := m.Run()
	herdrdouble.Cleanup()
	os.Exit(code)
}
