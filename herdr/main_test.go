package herdr

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(pdeathHelperEnv) != "" {
		os.Exit(pdeathHelper())
	}
	code := m.Run()
	herdrtest.Cleanup()
	os.Exit(code)
}
