//go:build linux

package tmux

import (
	"runtime"
	"syscall"
)

// setParentDeath asks the kernel to SIGKILL tmux if copse dies, even of SIGKILL.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// pinThread keeps the calling goroutine on its OS thread until the returned func runs:
// the parent-death signal fires when the thread that started the child ends (prctl(2);
// golang/go#27505), and Go ends a thread when a goroutine locked to it exits. Pinned from
// Start until after Wait, that thread outlives tmux.
func pinThread() (unpin func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
