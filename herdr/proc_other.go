//go:build !unix

package herdr

import "os/exec"

// ownProcessGroup: without process groups, cancel kills herdr itself (os/exec's default).
func ownProcessGroup(*exec.Cmd) {}
