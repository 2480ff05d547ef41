// Package quiet keeps terminal and clipboard probing off copse's start-up: blank-import it
// from main. Package hold hides the environment the probes read while lipgloss and the
// clipboard package initialise; this package, initialised after both because it imports
// them, puts it back before any of copse's own code runs. See package hold for why the
// order holds. It holds nothing callable and must never read the environment otherwise.
package quiet

import (
	"os"

	_ "charm.land/lipgloss/v2"      // its package-level Writer detects the colour profile
	_ "github.com/atotto/clipboard" // its init scans PATH for clipboard tools
	"github.com/copse-dev/copse/internal/quiet/hold"
)

func init() {
	for k, v := range hold.Held {
		if v != nil {
			os.Setenv(k, *v)
		}
	}
	hold.Held = nil
}
