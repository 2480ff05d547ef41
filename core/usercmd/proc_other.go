//go:build !linux

package usercmd

import "syscall"

// procAttr puts the shell in its own process group, so a cancel kills it with everything
// it started. Only Linux has a parent-death signal; the watcher (startWatcher) ends the
// group when copse dies on every system.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// pinThread: without a parent-death signal the starting thread does not matter.
func pinThread() (unpin func()) { return func() {} }
