//go:build unix

package statefile

import (
	"os"
	"syscall"
)

// lock takes an exclusive flock on path; the kernel drops it if the process dies, so a
// double killed by a test's timeout never leaves the state locked.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
