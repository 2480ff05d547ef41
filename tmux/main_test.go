package tmux

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv(pdeathHelperEnv) != "" {
		os.Exit(pdeathHelper())
	}
	os.Exit(m.Run())
}
