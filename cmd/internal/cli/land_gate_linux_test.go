//go:build linux

package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// procsWhere lists the live (not zombie) processes for which match holds, given the
// process's pgrp and environment.
func procsWhere(match func(pgrp int, env []byte) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		pgrp, _ := strconv.Atoi(f[2])
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if match(pgrp, env) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A SIGKILL of the copse running a land ends its test gate's whole process group: the
// shell, its background job and that job's children. Nothing carrying the gate's marker
// survives, and the record the next copse writes is true.
func TestLandSIGKILLEndsTheGateGroup(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/k")
	pidFile := filepath.Join(t.TempDir(), "gate.pid")
	gate := fmt.Sprintf(`echo $$ > %q; sh -c 'sleep 300 & sleep 300' & sleep 300`, pidFile)
	p := start(t, r, "land", "feat/k", "--test", gate)
	var pgid int
	waitFor(t, "the gate to write its pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pgid > 0
	})
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	inGroup := func() []int { return procsWhere(func(pgrp int, _ []byte) bool { return pgrp == pgid }) }
	waitFor(t, "the gate's five processes", func() bool { return len(inGroup()) >= 5 })
	var j core.LandJob
	waitFor(t, "the record to keep the gate's group", func() bool {
		j = landJob(t, r, "land-1")
		return j.Gate != nil && j.Gate.PGID == pgid
	})
	mark := []byte("COPSE_LAND_GATE=" + j.Gate.Marker + "\x00")
	marked := func() []int {
		return procsWhere(func(_ int, env []byte) bool { return bytes.Contains(env, mark) })
	}
	// A process counted in the group may still be in its exec, whose new environment the
	// kernel shows only once the program is loaded (an empty environ until then): under
	// load that takes a while, so wait for the marker, bounded, rather than read it once.
	n := 0
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if n = len(marked()); n >= 5 || time.Now().After(deadline) {
			break
		}
	}
	if n < 5 {
		t.Fatalf("%d processes carry the gate's marker, want its five", n)
	}

	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	waitFor(t, "every process of the gate to end with copse", func() bool { return len(inGroup()) == 0 && len(marked()) == 0 })

	// The next copse marks the job abandoned, and may say the gate was stopped: it was.
	want(t, run(t, r, r.Root, "land", "status", "land-1"), 0, "abandoned", "interrupted: test", "the test gate was stopped")
}
