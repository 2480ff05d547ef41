package liveproc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A process is alive with its own start time, and not with another one (a reused pid), nor
// once it has exited.
func TestAliveTellsAReusedPidAndAnEndedProcess(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	start, ok := StartTicks(pid)
	if !ok || start == 0 {
		t.Fatalf("StartTicks(%d) = %d, %v", pid, start, ok)
	}
	if own, _ := StartTicks(os.Getpid()); own == start && os.Getpid() != pid {
		t.Logf("same tick as the test process; the reuse check below still holds")
	}
	if !Alive(pid, start) {
		t.Errorf("Alive(%d, %d) = false for a running process", pid, start)
	}
	if at, ok := StartedAt(start); !ok || time.Since(at) > 30*time.Second || time.Until(at) > 50*time.Millisecond {
		t.Errorf("StartedAt(%d) = %v, %v; want about now", start, at, ok)
	}
	if Alive(pid, start+1) {
		t.Errorf("Alive with another start time = true: a reused pid would be taken for the process")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Alive(pid, start) {
		t.Errorf("Alive(%d) = true after the process ended", pid)
	}
}
