//go:build linux

package childproc

import (
	"runtime"
	"syscall"
)

// setParentDeath asks the kernel to SIGKILL the child if copse dies, even of SIGKILL.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// pinThread keeps the calling goroutine on its OS thread until the returned func runs:
// the parent-death signal fires when the thread that started the child ends (prctl(2);
// golang/go#27505), and Go ends a thread when a goroutine locked to it exits. Pinned from
// Start until after Wait, that thread outlives the child.
func pinThread() (unpin func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
