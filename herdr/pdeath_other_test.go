//go:build !linux

package herdr

// Only Linux has a parent-death signal (pdeath_linux_test.go tests it); TestMain still
// names the helper variable, which nothing sets on other systems.
const pdeathHelperEnv = "COPSE_HERDR_PDEATH_HELPER"

func pdeathHelper() int { return 2 }
