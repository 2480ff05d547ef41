//go:build linux

package liveproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// start runs argv working in dir as an orphan (a shell starts it in the background and
// exits): a child of the test process would not count, as copse's own children do not.
// It is killed when the test ends.
func start(t *testing.T, dir string, argv ...string) int {
	t.Helper()
	c := exec.Command("sh", append([]string{"-c", `"$@" </dev/null >/dev/null 2>&1 & echo $!`, "sh"}, argv...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "HERDR_WORKSPACE_ID=wQ")
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("no pid in %q", out)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

func pids(ps []Proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

func has(ps []Proc, pid int) (Proc, bool) {
	for _, p := range ps {
		if p.PID == pid {
			return p, true
		}
	}
	return Proc{}, false
}

func TestReadFindsAProcessWorkingInside(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c := start(t, sub, "sleep", "300")
	other := start(t, t.TempDir(), "sleep", "301")
	sc, err := Read([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := has(sc.Roots[0], c)
	if !ok {
		t.Fatalf("sleep working in %s not found: %v", sub, pids(sc.Roots[0]))
	}
	if _, ok := has(sc.Roots[0], other); ok {
		t.Fatalf("a sleep working elsewhere counted")
	}
	if p.OpenFile || p.Dir != canonical(sub) || strings.Join(p.Cmdline, " ") != "sleep 300" {
		t.Fatalf("got %+v", p)
	}
}

func TestReadFindsAProcessHoldingAFileOpenInside(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "log.txt")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	c := start(t, elsewhere, "tail", "-f", f)
	// tail opens the file after it starts: wait for the open by reading, not by sleeping.
	var p Proc
	for i := 0; ; i++ {
		sc, err := Read([]string{root})
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if p, ok = has(sc.Roots[0], c); ok {
			break
		}
		if i > 10000 {
			t.Fatalf("tail holding %s open was never found", f)
		}
	}
	if !p.OpenFile || p.Inside != canonical(f) || p.Dir != canonical(elsewhere) {
		t.Fatalf("got %+v", p)
	}
}

func TestReadGivesANestedRootItsOwnProcesses(t *testing.T) {
	outer := t.TempDir()
	inner := filepath.Join(outer, "wt")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	a := start(t, outer, "sleep", "302")
	b := start(t, inner, "sleep", "303")
	sc, err := Read([]string{outer, inner})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := has(sc.Roots[0], a); !ok {
		t.Fatalf("outer: %v", pids(sc.Roots[0]))
	}
	if _, ok := has(sc.Roots[0], b); ok {
		t.Fatalf("inner's process counted for outer too")
	}
	if _, ok := has(sc.Roots[1], b); !ok {
		t.Fatalf("inner: %v", pids(sc.Roots[1]))
	}
}

func TestReadReadsTheAskedEnvironment(t *testing.T) {
	root := t.TempDir()
	c := start(t, root, "sleep", "304") // start sets HERDR_WORKSPACE_ID=wQ
	sc, err := Read([]string{root}, "HERDR_WORKSPACE_ID")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := has(sc.Roots[0], c)
	if !ok || p.Env["HERDR_WORKSPACE_ID"] != "wQ" {
		t.Fatalf("got %+v (found %v)", p, ok)
	}
}

// The helper is this test binary started again (by TestOwnProcessAndAncestors…): it
// prints the pids it finds inside COPSE_LIVEPROC_ROOT.
func TestHelperPrintsWhatItFinds(t *testing.T) {
	root := os.Getenv("COPSE_LIVEPROC_ROOT")
	if root == "" {
		t.Skip("helper process only")
	}
	sc, err := Read([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	var anc []Proc
	for _, p := range sc.Roots[0] {
		if p.Ancestor {
			anc = append(anc, p)
		}
	}
	fmt.Printf("found=%v\nancestors=%v\n", pids(sc.Roots[0]), pids(anc))
}

// helper runs the scan in a child of a shell: the shell is the child's ancestor, and
// holds a file inside root open (fd 3) while it sits in shellDir.
func helper(t *testing.T, root, shellDir string) (shellPID int, found string) {
	shellPID, found, _ = helperAncestors(t, root, shellDir)
	return shellPID, found
}

// helperAncestors is helper, with the pids found that the scan marked as its ancestors.
func helperAncestors(t *testing.T, root, shellDir string) (shellPID int, found, ancestors string) {
	t.Helper()
	f := filepath.Join(root, "held")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// `echo $$` first: the shell's pid; the helper is a child (not exec'd), so the shell
	// stays its parent while it scans.
	c := exec.Command("sh", "-c", `echo shell=$$; exec 3<"$HELD"; "$BIN" -test.run='^TestHelperPrintsWhatItFinds$' -test.count=1; :`)
	c.Dir = shellDir
	c.Env = append(os.Environ(), "COPSE_LIVEPROC_ROOT="+root, "HELD="+f, "BIN="+bin)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "shell="); ok {
			fmt.Sscan(v, &shellPID)
		}
		if v, ok := strings.CutPrefix(l, "found="); ok {
			found = v
		}
		if v, ok := strings.CutPrefix(l, "ancestors="); ok {
			ancestors = v
		}
	}
	if shellPID == 0 || found == "" {
		t.Fatalf("helper said: %s", out)
	}
	return shellPID, found, ancestors
}

func TestOwnProcessAndAncestorsElsewhereDoNotCount(t *testing.T) {
	root := t.TempDir()
	// The helper itself holds the file open too (fd 3 is inherited): neither counts.
	_, found := helper(t, root, t.TempDir())
	if found != "[]" {
		t.Fatalf("copse's own process or the shell that ran it from elsewhere counted: %s", found)
	}
}

func TestAnAncestorWorkingInsideCounts(t *testing.T) {
	root := t.TempDir()
	other := exec.Command("sleep", "306")
	other.Dir = root
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	shell, found, ancestors := helperAncestors(t, root, root)
	got := strings.Fields(strings.Trim(found, "[]"))
	slices.Sort(got)
	want := []string{strconv.Itoa(shell), strconv.Itoa(other.Process.Pid)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the shell sitting in the tree (pid %d) and a sleep (pid %d): found %s", shell, other.Process.Pid, found)
	}
	// It is marked as the scanner's ancestor (a listing leaves it out of its count); the
	// sleep, working there on its own, is not.
	if ancestors != fmt.Sprintf("[%d]", shell) {
		t.Fatalf("ancestors marked %s; want only the shell %d", ancestors, shell)
	}
}

func TestOwnChildrenDoNotCount(t *testing.T) {
	root := t.TempDir()
	c := exec.Command("sleep", "305")
	c.Dir = root
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	orphan := start(t, root, "sleep", "306")
	sc, err := Read([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := has(sc.Roots[0], c.Process.Pid); ok {
		t.Fatalf("a process copse started (as it starts git) counted")
	}
	if _, ok := has(sc.Roots[0], orphan); !ok {
		t.Fatalf("the orphan was not found: %v", pids(sc.Roots[0]))
	}
}

func TestDescribeIsOneLine(t *testing.T) {
	p := Proc{PID: 7, Cmdline: []string{"node", "a\nb", strings.Repeat("x", 200)}, Dir: "/w", Inside: "/w"}
	esc := func(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }
	d := p.Describe(esc, 40)
	if strings.Contains(d, "\n") || !strings.HasPrefix(d, "pid 7 node a\\nb x") || !strings.HasSuffix(d, "… in /w") {
		t.Fatalf("got %q", d)
	}
}

// Marked finds a process by a variable in its environment wherever it works, and only
// the one whose value matches exactly.
func TestMarkedFindsByEnvironment(t *testing.T) {
	c := exec.Command("sh", "-c", `env COPSE_TEST_MARK=m-1 sleep 300 </dev/null >/dev/null 2>&1 & echo $!; env COPSE_TEST_MARK=m-10 sleep 301 </dev/null >/dev/null 2>&1 & echo $!`)
	c.Dir = t.TempDir()
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("no pid in %q", out)
		}
		ids = append(ids, pid)
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
	// env execs sleep: wait until the marked process is sleep itself.
	var ps []Proc
	for i := 0; i < 500; i++ {
		if ps, err = Marked("COPSE_TEST_MARK", "m-1"); err != nil {
			t.Fatal(err)
		}
		if p, ok := has(ps, ids[0]); ok && len(p.Cmdline) > 0 && p.Cmdline[0] == "sleep" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p, ok := has(ps, ids[0]); !ok || fmt.Sprint(p.Cmdline) != "[sleep 300]" {
		t.Fatalf("Marked(m-1) = %+v, want pid %d (sleep 300)", ps, ids[0])
	}
	if _, ok := has(ps, ids[1]); ok {
		t.Fatalf("Marked(m-1) also found the m-10 process: %v", pids(ps))
	}
	if _, ok := has(ps, os.Getpid()); ok {
		t.Fatal("Marked lists copse's own process")
	}
}

// Stopped tells a process stopped with SIGSTOP from a running one, and from one gone.
func TestStoppedSeesAProcessStoppedWithSIGSTOP(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	if Stopped(pid) {
		t.Fatal("a running sleep is stopped")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !Stopped(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a sleep sent SIGSTOP is not seen stopped")
		}
	}
	syscall.Kill(pid, syscall.SIGCONT)
	for deadline := time.Now().Add(10 * time.Second); Stopped(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a continued sleep is still seen stopped")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Stopped(pid) {
		t.Error("a process that is gone is stopped")
	}
}
