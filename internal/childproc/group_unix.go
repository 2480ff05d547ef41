//go:build unix

package childproc

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the child as the leader of a new process group, and makes a
// cancel kill the whole group, not just the child. On Linux the child also dies with copse.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeath(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
