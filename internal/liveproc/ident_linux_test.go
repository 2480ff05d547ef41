//go:build linux

package liveproc

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestAliveNeedsTheSameStartTime: a pid counts as the agent's only while it is the
// process that started then; a reused pid (another start time) and an ended one do not.
func TestAliveNeedsTheSameStartTime(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	id, ok := Identify(pid)
	if !ok || id.Start == 0 || id.PPID != os.Getpid() {
		t.Fatalf("Identify(%d) = %+v, %v", pid, id, ok)
	}
	if !Alive(pid, id.Start) {
		t.Error("the running process is not alive")
	}
	if at := id.StartedAt(); at.Before(time.Now().Add(-5*time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("started at %v, now is %v", at, time.Now())
	}
	if Alive(pid, id.Start+1) {
		t.Error("a pid with another start time was taken for the process")
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for Alive(pid, id.Start) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid, id.Start) {
		t.Error("an ended process is still alive")
	}
}

// TestAgentAboveSkipsShells: a hook run through `sh -c` names the program above the
// shell (here the test binary), not the shell.
func TestAgentAboveSkipsShells(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'sleep 5'")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var sleepPID int
	for range 200 {
		for _, outer := range childrenOf(cmd.Process.Pid) {
			for _, k := range childrenOf(outer) {
				sleepPID = k
			}
			if sleepPID == 0 {
				if id, ok := identify(outer); ok && len(id.Argv) > 0 && id.Argv[0] == "sleep" {
					sleepPID = outer // sh may exec its last command
				}
			}
		}
		if sleepPID != 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if sleepPID == 0 {
		t.Fatal("no sleep below the shells")
	}
	got, ok := AgentAbove(sleepPID)
	if !ok || got.PID != os.Getpid() {
		t.Fatalf("AgentAbove(sleep) = %+v, %v; want the test process %d", got, ok, os.Getpid())
	}
	if !Descends(sleepPID, os.Getpid()) || Descends(os.Getpid(), sleepPID) {
		t.Error("Descends got the family wrong")
	}
}

// TestAZombieIsNotAlive: a process that exited and was not reaped yet is gone for copse.
func TestAZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil && exited(b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no zombie: %s %v", b, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if Alive(pid, 0) {
		t.Error("a zombie counts as alive")
	}
}
