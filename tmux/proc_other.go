//go:build !unix

package tmux

import "os/exec"

// ownProcessGroup: without process groups, cancel kills tmux itself (os/exec's default).
func ownProcessGroup(*exec.Cmd) {}
