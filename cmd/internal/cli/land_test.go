package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/op/land"
)

// Land through the real binary: several copse processes at once, killed ones, signals.

// landTree makes a worktree on branch with one commit adding file (unique per branch, so
// lands never conflict).
func landTree(t *testing.T, r *coretest.Repo, branch string) string {
	t.Helper()
	w := r.AddWorktree(branch, filepath.Join(r.Base, "trees", core.BranchSlug(branch)))
	coretest.WriteFile(t, filepath.Join(w, core.BranchSlug(branch)+".txt"), branch+"\n")
	r.Git(w, "add", "-A")
	r.Git(w, "commit", "-q", "-m", "land "+branch)
	return w
}

func landJob(t *testing.T, r *coretest.Repo, job string) core.LandJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "land", job+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var j core.LandJob
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// started is a copse process running in the background (its output may be read while it
// runs: syncBuffer, from inprocess_test.go).
type started struct {
	cmd        *exec.Cmd
	out, errb  *syncBuffer
	done       chan struct{}
	code       int
	mu         sync.Mutex
	finishedAt time.Time
}

func start(t *testing.T, r *coretest.Repo, args ...string) *started {
	t.Helper()
	cmd := exec.Command(copseBin, args...)
	cmd.Dir = r.Root
	cmd.Env = cleanEnv(r.Home)
	s := &started{cmd: cmd, out: &syncBuffer{}, errb: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.code = cmd.ProcessState.ExitCode()
		_ = err
		s.finishedAt = time.Now()
		s.mu.Unlock()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	return s
}

func (s *started) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("copse %q did not finish:\n%s", s.cmd.Args, s.errb)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func jobPhase(r *coretest.Repo, job string) (core.LandState, core.LandPhase) {
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "land", job+".json"))
	if err != nil {
		return "", ""
	}
	var j core.LandJob
	if json.Unmarshal(b, &j) != nil {
		return "", ""
	}
	return j.State, j.Phase
}

var positionRE = regexp.MustCompile(`(land-\d+) queued: position (\d+)`)

func TestLandFIFOAcrossSixProcesses(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	const n = 7
	var branches []string
	for i := range n {
		b := fmt.Sprintf("agent/%d", i)
		landTree(t, r, b)
		branches = append(branches, b)
	}
	// Every land's gate takes a moment, so the others really wait in the queue.
	r.Git(r.Root, "config", "copse.test", "sleep 0.2")
	procs := make([]*started, n)
	for i, b := range branches {
		procs[i] = start(t, r, "land", b)
	}
	for i, p := range procs {
		if code := p.wait(t); code != 0 {
			t.Fatalf("land %s exit %d:\n%s", branches[i], code, p.errb)
		}
	}
	// Tickets were handed out in some order; the lands must have happened in exactly that
	// order: each job started after the previous ticket finished, and main's history lists
	// the landed commits in ticket order.
	var jobs []core.LandJob
	for i := 1; i <= n; i++ {
		jobs = append(jobs, landJob(t, r, "land-"+strconv.Itoa(i)))
	}
	for i, j := range jobs {
		if j.State != core.LandLanded {
			t.Fatalf("%s: %+v", j.Job, j)
		}
		if i > 0 && j.Started < jobs[i-1].Finished {
			t.Fatalf("%s started at %s before %s finished at %s", j.Job, j.Started, jobs[i-1].Job, jobs[i-1].Finished)
		}
	}
	log := strings.Split(r.Git(r.Root, "log", "--format=%H", "--first-parent", "-n", strconv.Itoa(n), "main"), "\n")
	for i, j := range jobs {
		if log[n-1-i] != j.Commit {
			t.Fatalf("main's history out of ticket order at %s:\n%v", j.Job, log)
		}
	}
	// Each waiting process saw its position only go down.
	waited := 0
	for _, p := range procs {
		last := map[string]int{}
		for _, m := range positionRE.FindAllStringSubmatch(p.errb.String(), -1) {
			pos, _ := strconv.Atoi(m[2])
			if prev, ok := last[m[1]]; ok && pos >= prev {
				t.Fatalf("position did not decrease: %s", p.errb)
			}
			last[m[1]] = pos
			waited++
		}
	}
	if waited < n-1 {
		t.Fatalf("only %d position reports; the lands did not queue", waited)
	}
	// Events: one queued and one landed per job, landed in ticket order.
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var landed []string
	seq := int64(0)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev core.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("torn event %q", l)
		}
		if ev.Seq != seq+1 {
			t.Fatalf("event seq %d after %d", ev.Seq, seq)
		}
		seq = ev.Seq
		if ev.Event == "land.landed" {
			landed = append(landed, ev.Job)
		}
	}
	if !sort.SliceIsSorted(landed, func(a, b int) bool { return ticketOf(landed[a]) < ticketOf(landed[b]) }) || len(landed) != n {
		t.Fatalf("landed events %v", landed)
	}
}

func ticketOf(job string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(job, "land-"))
	return n
}

// gateBlock is a gate that records its pid and waits until the release file exists.
func gateBlock(dir string) (gate, pidFile, release string) {
	pidFile = filepath.Join(dir, "gate.pid")
	release = filepath.Join(dir, "release")
	// The pid file appears whole (written aside, then renamed): a test that sees it can read it.
	gate = fmt.Sprintf(`echo $$ > %q && mv %q %q; while [ ! -f %q ]; do sleep 0.05; done`, pidFile+".tmp", pidFile+".tmp", pidFile, release)
	return
}

func TestLandKillRunningJobIsAbandoned(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := landTree(t, r, "feat/a")
	landTree(t, r, "feat/b")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	gate, pidFile, _ := gateBlock(t.TempDir())
	pa := start(t, r, "land", "feat/a", "--test", gate)
	waitFor(t, "land-1 in its test phase", func() bool { _, ph := jobPhase(r, "land-1"); return ph == core.PhaseTest })
	waitFor(t, "the gate to start", func() bool { _, err := os.Stat(pidFile); return err == nil })
	if err := pa.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pa.wait(t)
	// The gate's group ends with copse (TestLandSIGKILLEndsTheGateGroup); should it not, end it here.
	defer syscall.Kill(-readPID(t, pidFile), syscall.SIGKILL)

	// Looking at the queue is enough to learn the owner died.
	want(t, run(t, r, r.Root, "land", "queue"), 0, "the land queue is empty")
	res := run(t, r, r.Root, "land", "feat/b")
	want(t, res, 0, "landed feat/b")
	ja := landJob(t, r, "land-1")
	if ja.State != core.LandAbandoned || ja.Interrupted != core.PhaseTest || ja.Code != "abandoned" || ja.Remaining == "" {
		t.Fatalf("land-1: %+v", ja)
	}
	if core.ExitCode(land.LandError(&ja)) != 3 {
		t.Fatal("an abandoned job must read as uncertain")
	}
	// feat/a's branch is rebased (nothing to rebase here) but never landed; feat/b is.
	if got := r.Git(r.Root, "rev-parse", "main^"); got != mainBefore {
		t.Fatalf("main^ %s want %s", got, mainBefore)
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal("the abandoned job's worktree was touched")
	}
	st := run(t, r, r.Root, "land", "status", "land-1")
	want(t, st, 0, "abandoned", "interrupted: test")
	events, _ := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "events.jsonl"))
	if !strings.Contains(string(events), `"event":"land.abandoned"`) {
		t.Fatalf("no abandoned event:\n%s", events)
	}
}

func TestLandKillQueuedJobIsAbandoned(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/a")
	b := landTree(t, r, "feat/b")
	landTree(t, r, "feat/c")
	gate, pidFile, release := gateBlock(t.TempDir())
	pa := start(t, r, "land", "feat/a", "--test", gate)
	waitFor(t, "the gate to start", func() bool { _, err := os.Stat(pidFile); return err == nil })
	pb := start(t, r, "land", "feat/b")
	waitFor(t, "land-2 queued", func() bool { st, _ := jobPhase(r, "land-2"); return st == core.LandQueued })
	waitFor(t, "land-2 to report its position", func() bool { return strings.Contains(pb.errb.String(), "position 2") })
	if err := pb.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pb.wait(t)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := pa.wait(t); code != 0 {
		t.Fatalf("land-1 exit %d: %s", code, pa.errb)
	}
	res := run(t, r, r.Root, "land", "feat/c")
	want(t, res, 0, "landed feat/c")
	jb := landJob(t, r, "land-2")
	if jb.State != core.LandAbandoned || jb.Interrupted != core.PhaseQueued || !strings.Contains(jb.Remaining, "nothing had changed") {
		t.Fatalf("land-2: %+v", jb)
	}
	if _, err := os.Stat(b); err != nil {
		t.Fatal("the queued job's worktree was touched")
	}
	if strings.Contains(r.Git(r.Root, "log", "--format=%s", "main"), "feat/b") {
		t.Fatal("the killed job landed")
	}
}

func TestLandNoWaitThenDrain(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/x")
	landTree(t, r, "feat/y")
	res := run(t, r, r.Root, "land", "feat/x", "--no-wait")
	want(t, res, 0, "queued land-1")
	if strings.TrimSpace(res.stdout) != "land-1" {
		t.Fatalf("--no-wait stdout %q, want the job id", res.stdout)
	}
	want(t, run(t, r, r.Root, "land", "feat/y", "--no-wait"), 0)
	before := r.Snapshot()
	want(t, run(t, r, r.Root, "land", "feat/x"), 1, "already has a land queued: land-1")
	r.Unchanged(before)
	q := run(t, r, r.Root, "land", "queue")
	want(t, q, 0, "1. land-1", "2. land-2", "no runner yet")
	qj := run(t, r, r.Root, "--json", "land", "queue")
	var queue struct {
		Queue []core.LandJob `json:"queue"`
	}
	if err := json.Unmarshal([]byte(qj.stdout), &queue); err != nil || len(queue.Queue) != 2 || queue.Queue[1].Position != 2 {
		t.Fatalf("queue json %s: %v", qj.stdout, err)
	}
	if strings.Contains(r.Git(r.Root, "log", "--format=%s", "main"), "feat/") {
		t.Fatal("a --no-wait job ran without a runner")
	}
	d := run(t, r, r.Root, "land", "--drain")
	want(t, d, 0, "landed feat/x", "landed feat/y")
	if i, j := strings.Index(d.stdout, "feat/x"), strings.Index(d.stdout, "feat/y"); i > j {
		t.Fatalf("drain out of order:\n%s", d.stdout)
	}
	want(t, run(t, r, r.Root, "land", "queue"), 0, "the land queue is empty")
	want(t, run(t, r, r.Root, "land", "--drain"), 0, "no queued land")
}

func TestLandCtrlCDuringGate(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := landTree(t, r, "feat/i")
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	gate, pidFile, _ := gateBlock(t.TempDir())
	p := start(t, r, "land", "feat/i", "--test", gate)
	waitFor(t, "the gate to start", func() bool { _, err := os.Stat(pidFile); return err == nil })
	gatePID := readPID(t, pidFile)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.errb)
	}
	waitFor(t, "the gate's group to be killed", func() bool { return !alive(gatePID) })
	j := landJob(t, r, "land-1")
	if j.State != core.LandCancelled || j.Interrupted != core.PhaseTest || !strings.Contains(j.Remaining, "main is unchanged") {
		t.Fatalf("record %+v", j)
	}
	if !strings.Contains(p.errb.String(), "cancelled during test") {
		t.Fatalf("stderr: %s", p.errb)
	}
	if r.Git(r.Root, "rev-parse", "main") != mainBefore {
		t.Fatal("main moved")
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatal("worktree gone")
	}
}

func TestLandCLIUsageAndJSON(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/j")
	before := r.Snapshot()
	want(t, run(t, r, r.Root, "land"), 2, "TARGET")
	want(t, run(t, r, r.Root, "land", "--drain", "feat/j"), 2)
	want(t, run(t, r, r.Root, "land", "--drain", "--keep"), 2, "--keep")
	want(t, run(t, r, r.Root, "land", "feat/j", "--test", ""), 2, "test is empty")
	want(t, run(t, r, r.Root, "land", "feat/j", "--into", "feat/j"), 2, "its own branch")
	want(t, run(t, r, r.Root, "land", "feat/j", "--into", "nope"), 1, "does not exist")
	want(t, run(t, r, r.Root, "land", "status", "land-x"), 2, "not a land job id")
	r.Unchanged(before)
	res := run(t, r, r.Root, "--json", "land", "id:feat-j", "--keep")
	want(t, res, 0)
	var out struct {
		Operation string       `json:"operation"`
		Land      core.LandJob `json:"land"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Operation != "land" || out.Land.State != core.LandLanded {
		t.Fatalf("json %s: %v", res.stdout, err)
	}
	if res.stderr != "" {
		t.Fatalf("--json printed on stderr: %s", res.stderr)
	}
	_ = context.Background
}
