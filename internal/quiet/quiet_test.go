package quiet_test

import (
	"os"
	"os/exec"
	"testing"

	_ "github.com/copse-dev/copse/internal/quiet"
	"github.com/copse-dev/copse/internal/quiet/hold"
)

// After init the environment is whole again: PATH finds programs (go test always runs with
// PATH set), and nothing is held any more.
func TestEnvironmentIsRestoredAfterInit(t *testing.T) {
	if os.Getenv("PATH") == "" {
		t.Fatal("PATH is still hidden after package init")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("PATH was not restored as it was: %v", err)
	}
	if hold.Held != nil {
		t.Fatalf("package quiet did not release what hold hid: %v", hold.Held)
	}
}
