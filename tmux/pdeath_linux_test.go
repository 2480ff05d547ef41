package tmux

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// pdeathHelperEnv makes the test binary a helper that runs one tmux command that never
// returns by itself (wait-for on a channel nobody signals), on the socket it names.
const pdeathHelperEnv = "COPSE_TMUX_PDEATH_HELPER"

func pdeathHelper() int {
	c := &Client{Socket: os.Getenv(pdeathHelperEnv), Timeout: time.Hour}
	_, err := c.Run(context.Background(), Cmd{verb: "wait-for", args: []string{"copse-never"}})
	fmt.Fprintln(os.Stderr, "tmux ended:", err)
	return 1
}

// The tmux client copse started dies with copse, even when copse is killed with SIGKILL.
func TestTmuxDiesWithKilledParent(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), pdeathHelperEnv+"="+srv.Socket)
	helper.Stderr = os.Stderr
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { helper.Wait(); close(done) }()
	t.Cleanup(func() { helper.Process.Kill() })
	var child int
	for deadline := time.Now().Add(30 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper never started tmux")
		}
		child = childOf(helper.Process.Pid)
	}
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	for deadline := time.Now().Add(10 * time.Second); running(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("tmux (pid %d) still runs after its parent was killed", child)
		}
	}
}

func childOf(pid int) int {
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.Atoi(f[0])
			return n
		}
	}
	return 0
}

func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
