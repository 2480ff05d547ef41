package usercmd

import (
	"bytes"
	"context"
	"os"
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
