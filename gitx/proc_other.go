//go:build !linux

package gitx

import "syscall"

// procAttr puts git in its own process group, so a cancel kills git with its hooks.
// Only Linux has a parent-death signal.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// gentleDeath: no parent-death signal here.
func gentleDeath(*syscall.SysProcAttr) {}

// pinThread: without a parent-death signal the starting thread does not matter.
func pinThread() (unpin func()) { return func() {} }
