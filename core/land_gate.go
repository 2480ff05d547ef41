package core

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/landjobs"
)

// LandGate is what a land's record keeps of its test gate's processes: the process group
// the gate ran in, and the marker every process it started carries in its environment
// (COPSE_LAND_GATE). With them a later copse can tell whether the gate still runs, also
// after the copse that ran it died, and name what runs.
type LandGate struct {
	PGID   int    `json:"pgid,omitempty"`
	Marker string `json:"marker"`
}

// gateMarkerEnv is the environment variable that marks a gate's processes.
const gateMarkerEnv = "COPSE_LAND_GATE"

func newGate(job string) *LandGate {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &LandGate{Marker: job + "-" + hex.EncodeToString(b)}
}

// gateProc is one live process of a gate.
type gateProc struct {
	PID int
	Cmd string // its command line, escaped and cut
}

// gateLeft describes the processes of gate g that still run ("" when none). Right after
// the group was killed the kernel may still be ending them, so it looks again for a
// moment before it says any are left.
func gateLeft(g *LandGate) string {
	if g == nil {
		return ""
	}
	procs := gateProcesses(g)
	for i := 0; i < 40 && len(procs) > 0; i++ {
		time.Sleep(25 * time.Millisecond)
		procs = gateProcesses(g)
	}
	return describeGateProcs(procs)
}

func describeGateProcs(procs []gateProc) string {
	const show = 5
	var parts []string
	for i, p := range procs {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(procs)-show))
			break
		}
		if p.Cmd == "" {
			parts = append(parts, fmt.Sprintf("pid %d", p.PID))
		} else {
			parts = append(parts, fmt.Sprintf("pid %d (%s)", p.PID, p.Cmd))
		}
	}
	return strings.Join(parts, ", ")
}

func procPIDs(procs []gateProc) string {
	var pids []string
	for _, p := range procs {
		pids = append(pids, fmt.Sprint(p.PID))
	}
	return strings.Join(pids, " ")
}

// noGateLeft refuses a land of a worktree while processes of an earlier land's test gate
// still run there: they may still change the tree this land would test and land.
func (s *Env) noGateLeft(commonDir, path string) error {
	jobs, err := readJobs(landjobs.Dir(commonDir))
	if err != nil {
		return failed(CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	cp := Canonical(path)
	for _, j := range jobs {
		if j.Gate == nil || !j.State.Finished() || Canonical(j.Worktree.Path) != cp {
			continue
		}
		if procs := gateProcesses(j.Gate); len(procs) > 0 {
			return Refused(CodeGateStillRunning, "wait for them to end, or end them (kill "+procPIDs(procs)+"), then land again",
				"the test gate of %s (%s) still runs in %s: %s", j.Job, j.State, Escape(path), describeGateProcs(procs))
		}
	}
	return nil
}
