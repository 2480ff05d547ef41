//go:build linux

package usercmd

import (
	"runtime"
	"syscall"
)

// procAttr puts the shell in its own process group (a cancel kills it with everything it
// started) and asks the kernel to SIGKILL it if copse dies, even of SIGKILL, which no
// handler sees. The rest of the group is the watcher's to end (startWatcher).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pinThread keeps the calling goroutine on its OS thread until the returned func runs.
// The parent-death signal fires when the *thread* that started the child ends, not the
// process (prctl(2); golang/go#27505), and Go ends a thread when a goroutine locked to it
// exits. Pinned from before Start until after Wait, the starting thread serves only this
// goroutine, which unpins it before returning, so the thread outlives the command.
func pinThread() (unpin func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
