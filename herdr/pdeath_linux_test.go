package herdr

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

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// pdeathHelperEnv makes the test binary a helper process that runs one slow herdr command
// (the double with FAKE_HERDR_DELAY) in the directory the variable names.
const pdeathHelperEnv = "COPSE_HERDR_PDEATH_HELPER"

func pdeathHelper() int {
	c, err := ListCmd(os.Getenv(pdeathHelperEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, err = (&Client{Bin: os.Getenv("HERDR_BIN_PATH")}).Run(context.Background(), c)
	fmt.Fprintln(os.Stderr, "herdr ended:", err)
	return 1
}

// herdr dies with the copse that started it, even when copse is killed with SIGKILL.
func TestHerdrDiesWithKilledParent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(w.Env(herdrdouble.Knobs{Delay: 30 * time.Second}), pdeathHelperEnv+"="+w.Repo)
	helper.Stderr = os.Stderr
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { helper.Wait(); close(done) }()
	t.Cleanup(func() { helper.Process.Kill() })

	// The helper's child is herdr (the double), once it has started.
	var child int
	for deadline := time.Now().Add(30 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper never started herdr")
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
			t.Fatalf("herdr (pid %d) still runs after its parent was killed", child)
		}
	}
}

// childOf returns a child process of pid, or 0.
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

// running reports whether pid is alive and not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
