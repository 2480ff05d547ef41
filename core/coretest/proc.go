package coretest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// StartLive starts argv working in dir as an orphan (a shell starts it in the background
// and exits), so it is not a child of the test process: copse does not count its own
// process or the processes it started, and a test's copse runs in the test process. The
// process is killed when the test ends. It returns the pid.
func StartLive(t testing.TB, dir string, argv ...string) int {
	t.Helper()
	return StartLiveEnv(t, dir, nil, argv...)
}

// StartLiveEnv is StartLive with extra environment variables (KEY=value) for the process.
func StartLiveEnv(t testing.TB, dir string, env []string, argv ...string) int {
	t.Helper()
	c := exec.Command("sh", append([]string{"-c", `"$@" </dev/null >/dev/null 2>&1 & echo $!`, "sh"}, argv...)...)
	c.Dir = dir
	if env != nil {
		c.Env = append(os.Environ(), env...)
	}
	out, err := c.Output()
	if err != nil {
		t.Fatalf("start %v in %s: %v", argv, dir, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("start %v: no pid in %q", argv, out)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// WaitOpen returns once process pid holds path open (Linux: /proc/<pid>/fd), so a test
// does not race the process's own start; it fails the test if the process ends first.
func WaitOpen(t testing.TB, pid int, path string) {
	t.Helper()
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	for {
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			t.Fatalf("process %d ended before it opened %s: %v", pid, path, err)
		}
		for _, fd := range fds {
			if l, err := os.Readlink(fdDir + "/" + fd.Name()); err == nil && l == want {
				return
			}
		}
		runtime.Gosched()
	}
}

// WaitChild returns once process pid has a child (Linux: a process in /proc whose parent
// is pid), so a test that needs a busy shell does not catch it before its fork; it fails
// the test if pid ends first.
func WaitChild(t testing.TB, pid int) {
	t.Helper()
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			t.Fatalf("process %d ended before it started a child: %v", pid, err)
		}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// Field 4 (the parent) follows the command name, which ends at the last ')'.
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
				if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
					return
				}
			}
		}
		runtime.Gosched()
	}
}
