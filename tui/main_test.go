package tui

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrtest"
)

// TestMain deletes the Herdr double the Herdr flow builds.
func TestMain(m *testing.M) {
	code := m.Run()
	herdrtest.Cleanup()
	os.Exit(code)
}
