package land

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/landjobs"
)

func newGate(job string) *core.LandGate {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &core.LandGate{Marker: job + "-" + hex.EncodeToString(b)}
}

func procPIDs(procs []core.GateProc) string {
	var pids []string
	for _, p := range procs {
		pids = append(pids, fmt.Sprint(p.PID))
	}
	return strings.Join(pids, " ")
}

// noGateLeft refuses a land of a worktree while processes of an earlier land's test gate
// still run there: they may still change the tree this land would test and land.
func noGateLeft(s *core.Env, commonDir, path string) error {
	jobs, err := core.ReadJobs(landjobs.Dir(commonDir))
	if err != nil {
		return core.Failed(core.CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	cp := core.Canonical(path)
	for _, j := range jobs {
		if j.Gate == nil || !j.State.Finished() || core.Canonical(j.Worktree.Path) != cp {
			continue
		}
		if procs := core.GateProcesses(j.Gate); len(procs) > 0 {
			return core.Refused(core.CodeGateStillRunning, "wait for them to end, or end them (kill "+procPIDs(procs)+"), then land again",
				"the test gate of %s (%s) still runs in %s: %s", j.Job, j.State, core.Escape(path), core.DescribeGateProcs(procs))
		}
	}
	return nil
}
