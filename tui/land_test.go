package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/op/land"
)

// landFormOpen is the mixed list with feat/login selected and L pressed, defaults in.
func landFormOpen(t *testing.T) Model {
	t.Helper()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("L"))
	if m.mode != modeLand {
		t.Fatalf("L did not open the land form (mode %v)", m.mode)
	}
	m, _ = send(t, m, landDefaultsMsg{into: "main", test: "go test ./...",
		gate: core.DefaultGate{Command: "go test ./...", From: core.GateFromGitConfig, Approved: true}, gateKnown: true})
	return m
}

func TestGoldenLandForm(t *testing.T) {
	t.Parallel()
	goldenPlain(t, landFormOpen(t))
}

// landFormWithGate is the land form whose test field is empty while gate is the default.
func landFormWithGate(t *testing.T, gate core.DefaultGate) Model {
	t.Helper()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("L"))
	m, _ = send(t, m, landDefaultsMsg{into: "main", gate: gate, gateKnown: true})
	return m
}

// An approved .copse.conf test runs though the field is empty: the form says so and
// where it comes from, not "no gate".
func TestGoldenLandFormNamesTheApprovedProjectGate(t *testing.T) {
	t.Parallel()
	goldenPlain(t, landFormWithGate(t, core.DefaultGate{Command: "make check", From: core.GateFromProject, Approved: true}))
}

// An unapproved one refuses the land: the form says so before enter.
func TestGoldenLandFormNamesTheUnapprovedProjectGate(t *testing.T) {
	t.Parallel()
	goldenPlain(t, landFormWithGate(t, core.DefaultGate{Command: "make check", From: core.GateFromProject}))
}

func TestGoldenLandFormWithNoGate(t *testing.T) {
	t.Parallel()
	goldenPlain(t, landFormWithGate(t, core.DefaultGate{}))
}

func TestLandFormBuildsTheRequest(t *testing.T) {
	t.Parallel()
	m := landFormOpen(t)
	m, _ = send(t, m, press("tab"))
	for range len("go test ./...") {
		m, _ = send(t, m, press("backspace"))
	}
	m = typeText(t, m, "make check")
	if g := m.landForm.gateNote(); g != "gate: the command above, for this land only" {
		t.Fatalf("a typed test is still named as git config's: %q", g)
	}
	req := m.landForm.request()
	if *req.Path != "/home/dev/src/app.worktrees/feat-login" || *req.Into != "main" || *req.Test != "make check" || !req.Wait {
		t.Fatalf("request %+v", req)
	}
	// Defaults that arrive after the user typed do not overwrite the typing.
	m, _ = send(t, m, landDefaultsMsg{into: "other", test: "other"})
	if v := m.landForm.inputs[landTest].Value(); v != "make check" {
		t.Fatalf("late defaults overwrote the test field: %q", v)
	}
	m, _ = send(t, m, press("esc"))
	if m.mode != modeList {
		t.Fatal("esc did not close the form")
	}
}

func TestLandFieldErrorStaysInForm(t *testing.T) {
	t.Parallel()
	m := landFormOpen(t)
	m, _ = send(t, m, press("enter"))
	if m.op == nil || m.op.kind != core.OpLand {
		t.Fatal("enter did not start a land")
	}
	m, _ = send(t, m, preparedMsg{op: m.op.id, err: &core.Error{Kind: core.KindUsage, Code: "invalid_branch", Field: "into",
		Message: `into "x..y" is not a valid branch name`, Hint: "pick a valid branch name"}})
	if m.mode != modeLand || !strings.Contains(plain(m), `into "x..y" is not a valid branch name`) {
		t.Fatalf("field error not in the form:\n%s", plain(m))
	}
}

// progressModel is a land under way: queued behind another job, then in its test phase.
func progressModel(t *testing.T) (Model, *landStream) {
	t.Helper()
	m := landFormOpen(t)
	m, _ = send(t, m, press("enter"))
	op := m.op
	s := &landStream{ch: make(chan land.LandProgress, 1), done: make(chan struct{})}
	m.mode = modeList // what startLand does once the plan is prepared
	job := core.LandJob{Job: "land-4", State: core.LandQueued, Phase: core.PhaseQueued, Position: 2,
		Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/feat-login", Branch: "feat/login"}, Into: "main"}
	head := core.LandJob{Job: "land-3", State: core.LandRunning, Phase: core.PhaseRebase}
	m, _ = send(t, m, landProgressMsg{op: op.id, p: land.LandProgress{Job: job, Head: &head}, stream: s})
	if !strings.Contains(plain(m), "land-4 feat/login → main: queued, position 2 (land-3: rebase)") || !strings.Contains(plain(m), "land #2") {
		t.Fatalf("queued progress not shown:\n%s", plain(m))
	}
	job.State, job.Phase, job.Position = core.LandRunning, core.PhaseTest, 0
	m.now = func() time.Time { return fxClock.Add(42 * time.Second) }
	m, _ = send(t, m, landProgressMsg{op: op.id, p: land.LandProgress{Job: job}, stream: s})
	return m, s
}

func TestGoldenLandProgress(t *testing.T) {
	t.Parallel()
	m, _ := progressModel(t)
	goldenPlain(t, m)
}

func TestLandCtrlCCancelsAndReportsTheState(t *testing.T) {
	t.Parallel()
	m, _ := progressModel(t)
	op := m.op
	m, cmd := send(t, m, press("ctrl+c"))
	if isQuit(cmd) || op.ctx.Err() == nil {
		t.Fatal("ctrl+c did not cancel the land (or quit the picker)")
	}
	seq := m.loadSeq
	msg := "land-4 cancelled during test: branch feat/login is rebased onto 1234567 (at 89abcde); the test gate was stopped; main is unchanged"
	m, _ = send(t, m, executedMsg{op: op.id, err: &core.Error{Kind: core.KindCancelled, Code: "cancelled", Message: msg}})
	if m.op != nil || !strings.Contains(strings.Join(strings.Fields(plain(m)), " "), "main is unchanged") || m.loadSeq != seq+1 {
		t.Fatalf("cancel not reported (or list not refreshed):\n%s", plain(m))
	}
}

func TestGoldenListLands(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{
		{Job: "land-1", State: core.LandLanded, Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/release-2.0"}},
		{Job: "land-2", State: core.LandBlocked, Code: "rebase_conflict", Message: "the rebase onto main (1234567) conflicts in src/cart.go",
			Hint: "resolve, git add, git rebase --continue, then land again", Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/feat-login"}},
		{Job: "land-3", State: core.LandRunning, Phase: core.PhaseTest, Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/agent-claude-1"}},
		{Job: "land-4", State: core.LandQueued, Phase: core.PhaseQueued, Position: 2, Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/feat-rebase"}},
	}})
	goldenPlain(t, m)
	v := plain(m)
	for _, s := range []string{"blocked: rebase_conflict", "landing: test", "land #2", "land-2 blocked: the rebase onto main"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q", s)
		}
	}
	if strings.Contains(v, "land-1") || strings.Count(v, "landed") > 0 {
		t.Error("a landed job is still marked on its row")
	}
}

// The whole flow against real git: L on a worktree, enter, the land runs (with a gate),
// the row disappears and main has the commit.
func TestFlowLand(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := r.AddWorktree("feat/land", "app.worktrees/land")
	coretest.WriteFile(t, filepath.Join(w, "land.txt"), "landed\n")
	r.Git(w, "add", "land.txt")
	r.Git(w, "commit", "-q", "-m", "land me")
	r.Git(r.Root, "config", "copse.test", "test -f land.txt")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(w)
	f.keys("L")
	fr := f.wait("the land form shows the defaults", func(fr frame) bool {
		return fr.mode == modeLand && strings.Contains(fr.view, "test -f land.txt") && strings.Contains(fr.view, "main")
	})
	_ = fr
	f.keys("enter")
	fr = f.wait("the row is gone", func(fr frame) bool { return fr.loaded && !fr.busy && !contains(fr.paths, w) })
	if !strings.Contains(fr.view, "landed feat/land onto main") {
		t.Errorf("no landed message:\n%s", fr.view)
	}
	if got := r.Git(r.Root, "log", "-1", "--format=%s", "main"); got != "land me" {
		t.Errorf("main's tip is %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.Root, "land.txt")); err != nil {
		t.Errorf("main checkout not synced: %v", err)
	}
	f.keys("q")
	f.result()
}

// While a land job is unfinished the picker keeps reading the records (other processes
// run lands too); when one ends, the list is read again (its worktree may be gone).
func TestLandMarksFollowOtherProcesses(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	path := "/home/dev/src/app.worktrees/feat-login"
	running := core.LandJob{Job: "land-1", State: core.LandRunning, Phase: core.PhaseTest, Worktree: core.LandWorktree{Path: path}}
	m, cmd := send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{running}})
	if cmd == nil {
		t.Fatal("no re-read scheduled while a job runs")
	}
	if tick, ok := cmd().(landTickMsg); !ok || tick.seq != m.loadSeq {
		t.Fatalf("scheduled %T", cmd())
	}
	seq := m.loadSeq
	landed := running
	landed.State, landed.Phase = core.LandLanded, core.PhaseDone
	m, _ = send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{landed}})
	if m.loadSeq != seq+1 {
		t.Fatal("a job that ended did not refresh the list")
	}
	if strings.Contains(plain(m), "landing") {
		t.Fatal("the ended job is still marked")
	}
	_, cmd = send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{landed}})
	if cmd != nil {
		t.Fatal("re-reads continue with no unfinished job")
	}
}

// The defaults core read for another worktree's form (closed and reopened on another row
// meanwhile) do not fill this one: its target would be another worktree's base.
func TestLandFormDropsDefaultsOfAnotherWorktree(t *testing.T) {
	t.Parallel()
	m := mixed(t, 100, 20)
	m, _ = send(t, m, press("L"))
	m, _ = send(t, m, landDefaultsMsg{path: "/somewhere/else", into: "develop", test: "x"})
	if v := m.landForm.inputs[landInto].Value(); v != "" {
		t.Fatalf("another worktree's default filled into: %q", v)
	}
	m, _ = send(t, m, landDefaultsMsg{path: m.landForm.target.wt.Path, into: "develop"})
	if v := m.landForm.inputs[landInto].Value(); v != "develop" {
		t.Fatalf("this worktree's default into = %q, want develop", v)
	}
}

// A land that left its target ahead of its upstream says so, with the command that would
// publish it, under the landed message.
func TestLandedShowsNotices(t *testing.T) {
	t.Parallel()
	m, _ := progressModel(t)
	op := m.op
	job := core.LandJob{Job: "land-4", State: core.LandLanded, Phase: core.PhaseDone, Into: "main", Commit: "89abcdef0123",
		Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/feat-login", Branch: "feat/login"},
		Notices:  []string{"main is 1 commit ahead of origin/main; to publish it: git push origin main"}}
	m, _ = send(t, m, executedMsg{op: op.id, outcome: &core.Outcome{Operation: core.OpLand, Land: &job}})
	v := strings.Join(strings.Fields(plain(m)), " ")
	if !strings.Contains(v, "landed feat/login onto main at 89abcde (land-4)") ||
		!strings.Contains(v, "note: main is 1 commit ahead of origin/main; to publish it: git push origin main") {
		t.Fatalf("landed status without its notice:\n%s", plain(m))
	}
}
