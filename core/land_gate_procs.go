package core

import (
	"strings"
	"syscall"

	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/copse-dev/copse/internal/textsafe"
)

// gateProcesses lists the live processes of gate g: every process carrying its marker,
// the gate's group and whatever left the group (setsid) but still came from the gate.
// Where copse cannot read other processes' environments it can only tell whether the
// gate's process group still has a member (kill with signal 0), not which processes, nor
// those that left the group.
func GateProcesses(g *LandGate) []GateProc {
	ps, err := liveproc.Marked(GateMarkerEnv, g.Marker)
	if err != nil {
		if g.PGID > 0 && syscall.Kill(-g.PGID, 0) == nil {
			return []GateProc{{PID: g.PGID, Cmd: "its process group"}}
		}
		return nil
	}
	out := make([]GateProc, 0, len(ps))
	for _, p := range ps {
		out = append(out, GateProc{PID: p.PID, Cmd: textsafe.Cut(Escape(strings.Join(p.Cmdline, " ")), 80)})
	}
	return out
}
