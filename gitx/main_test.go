package gitx

import (
	"os"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// TestMain makes the process's git config unreadable (coretest.Main): the tests run in
// parallel and hand git its environment through Runner.Env, and a git that inherited the
// process's instead fails.
func TestMain(m *testing.M) { os.Exit(coretest.Main(m)) }
