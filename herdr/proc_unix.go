//go:build unix

package herdr

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts herdr as the leader of a new process group, and makes a cancel
// kill the whole group, not just herdr. On Linux herdr also dies with copse.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeath(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
