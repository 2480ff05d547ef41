//go:build !linux

package core

import "syscall"

// gateProcesses: without /proc, copse can only tell whether the gate's process group still
// has a member (kill with signal 0), not which processes, nor those that left the group.
func gateProcesses(g *LandGate) []gateProc {
	if g.PGID > 0 && syscall.Kill(-g.PGID, 0) == nil {
		return []gateProc{{PID: g.PGID, Cmd: "its process group"}}
	}
	return nil
}
