package core_test

import (
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// The internal tests open services with every operation; they cannot import core/ops
// themselves, so this file of the external test package, compiled into the same test
// binary, hands it to them before any test runs.
func init() { core.SetTestOps(ops.All) }
