//go:build linux

package gitx

import (
	"runtime"
	"syscall"
)

// procAttr puts git in its own process group (a cancel kills git with its hooks) and
// asks the kernel to SIGKILL git if copse dies, even of SIGKILL, which no handler sees.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// gentleDeath makes the parent-death signal SIGTERM (Cmd.gentle).
func gentleDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }

// pinThread keeps the calling goroutine on its OS thread until the returned func runs.
// The parent-death signal fires when the *thread* that started the child ends, not the
// process (prctl(2); golang/go#27505), and Go ends a thread when a goroutine locked to it
// exits. Pinned from before Start until after Wait, the starting thread serves only this
// goroutine, which unpins it before returning, so the thread outlives git.
func pinThread() (unpin func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
