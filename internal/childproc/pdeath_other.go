//go:build !linux

package childproc

import "syscall"

// setParentDeath: only Linux has a parent-death signal.
func setParentDeath(*syscall.SysProcAttr) {}

// pinThread: without a parent-death signal the starting thread does not matter.
func pinThread() (unpin func()) { return func() {} }
