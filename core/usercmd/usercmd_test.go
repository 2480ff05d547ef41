package usercmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone waits (a SIGKILL is delivered asynchronously) until the process in pidFile has
// ended, and reports whether it did within a few seconds.
func gone(t *testing.T, pidFile string) bool {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(t, pidFile) {
			return true
		}
	}
	return false
}

func alive(t *testing.T, pidFile string) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A killed process whose parent is gone may stay a zombie until init reaps it.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestRunStreamsAndReportsExit(t *testing.T) {
	var out bytes.Buffer
	t.Setenv("GIT_DIR", "/elsewhere")
	res, err := Run(context.Background(), t.TempDir(), `echo "out $PWD"; echo err >&2; echo "gitdir=${GIT_DIR-unset} x=$X"; exit 3`, []string{"X=1"}, time.Minute, &out)
	if err != nil || res.ExitCode != 3 || res.OK() || res.TimedOut || res.Canceled {
		t.Fatalf("res %+v, %v", res, err)
	}
	if !strings.Contains(out.String(), "err\n") || !strings.Contains(out.String(), "gitdir=unset x=1") {
		t.Fatalf("output %q", out.String())
	}
}

// A timeout kills the whole group, and so does the end of the command: nothing it
// started in the background outlives it.
func TestRunKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	res, err := Run(context.Background(), dir, "sleep 60 & echo $! > pid; wait", nil, 300*time.Millisecond, &bytes.Buffer{})
	if err != nil || !res.TimedOut || res.OK() {
		t.Fatalf("res %+v, %v", res, err)
	}
	if !gone(t, pid) {
		t.Error("the background sleep survived the timeout")
	}
	res, err = Run(context.Background(), dir, "sleep 60 & echo $! > pid", nil, time.Minute, &bytes.Buffer{})
	if err != nil || !res.OK() {
		t.Fatalf("res %+v, %v", res, err)
	}
	if !gone(t, pid) {
		t.Error("the background sleep outlived the command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ = Run(ctx, dir, "sleep 60", nil, time.Minute, &bytes.Buffer{})
	if !res.Canceled || res.OK() {
		t.Errorf("cancelled: %+v", res)
	}
}

// groupMembers lists the live (not zombie) processes in process group pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
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
		// After the command name in parentheses: state, ppid, pgrp.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestMain doubles as the runner that TestCommandDiesWithItsParent starts and kills: with
// COPSE_USERCMD_HELPER_DIR set, the test binary runs one command through Run and blocks
// until it is killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("COPSE_USERCMD_HELPER_DIR"); dir != "" {
		_, _ = Run(context.Background(), dir, `echo $$ > pgid; sh -c 'sleep 300 & sleep 300' & sleep 300`, nil, time.Hour, &bytes.Buffer{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A SIGKILL of copse, which no handler sees, still ends the command's whole process
// group: the shell, its background job and that job's own children.
func TestCommandDiesWithItsParent(t *testing.T) {
	dir := t.TempDir()
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), "COPSE_USERCMD_HELPER_DIR="+dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pgid int
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "pgid")); err == nil {
			if pgid, _ = strconv.Atoi(strings.TrimSpace(string(b))); pgid > 0 && len(groupMembers(t, pgid)) >= 5 {
				break // sh, sh -c and three sleeps (and the watcher)
			}
		}
		if time.Now().After(deadline) {
			helper.Process.Kill()
			t.Fatal("the command did not start")
		}
	}
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		left := groupMembers(t, pgid)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the command's group outlived its parent: %v", left)
		}
	}
}
