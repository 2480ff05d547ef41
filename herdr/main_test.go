package herdr

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

func TestMain(m *testing.M) {
	if os.Getenv(pdeathHelperEnv) != "" {
		os.Exit(pdeathHelper())
	}
	code := m.Run()
	herdrdouble.Cleanup()
	os.Exit(code)
}
