//go:build !unix

package childproc

import "os/exec"

// ownProcessGroup: without process groups, cancel kills the child itself (os/exec's default).
func ownProcessGroup(*exec.Cmd) {}
