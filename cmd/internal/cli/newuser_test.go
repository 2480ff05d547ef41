package cli_test

import (
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse land --help names every source of the gate in the order the land looks, the
// committed .copse.conf included, not only --test and git config copse.test.
func TestLandHelpNamesEveryGateSource(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "land", "--help")
	want(t, res, 0, "--test; git config copse.test; the committed .copse.conf's", "copse approve",
		"else .copse.conf's approved copse.test")
}
