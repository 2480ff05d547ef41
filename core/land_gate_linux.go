//go:build linux

package core

import (
	"bytes"
	"os"
	"strconv"

	"github.com/copse-dev/copse/internal/textsafe"
)

// gateProcesses lists the live processes that carry gate g's marker in their environment:
// the gate's group, and whatever left the group (setsid) but still came from the gate.
// Zombies have no environment left and are not listed. Only processes of this user are
// readable, which are the only ones a gate can have started.
func gateProcesses(g *LandGate) []gateProc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	mark := []byte(gateMarkerEnv + "=" + g.Marker + "\x00")
	self := os.Getpid()
	var procs []gateProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !(bytes.HasPrefix(env, mark) || bytes.Contains(env, append([]byte{0}, mark...))) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		line := string(bytes.TrimRight(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), " "))
		procs = append(procs, gateProc{PID: pid, Cmd: textsafe.Cut(Escape(line), 80)})
	}
	return procs
}
