package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// teatest flows against real git: temporary repositories made by real `git`, a real
// core.Service on the git backend, the picker running as a tea.Program. Assertions read
// the model (through a probe) and the repository, never the raw output stream, whose cell
// diffs change with every renderer release.

// frame is what the probe copies out of the live model, on the program's goroutine, so
// the test never touches the model's slices while Update changes them.
type frame struct {
	loaded   bool
	mode     mode
	busy     bool
	paths    []string
	selected string
	current  string // the ● row
	status   statusLine
	pending  int
	view     string
}

// probe answers probeMsgs with a frame of the model as it is when the probe arrives.
type probe struct{}

// probeMsg asks for a frame. The program handles messages in order, so the answer reflects
// every key sent before the probe. Update ignores it.
type probeMsg struct{ reply chan frame }

func (probe) filter(m tea.Model, msg tea.Msg) tea.Msg {
	pm, ok := msg.(probeMsg)
	if !ok {
		return msg
	}
	if mm, ok := m.(Model); ok {
		f := frame{loaded: mm.loaded, mode: mm.mode, busy: mm.op != nil, selected: mm.selectedPath(),
			status: mm.status, view: plain(mm)}
		for _, r := range mm.rows {
			f.paths = append(f.paths, r.wt.Path)
			if r.current {
				f.current = r.wt.Path
			}
			if r.pending {
				f.pending++
			}
		}
		pm.reply <- f // buffered: the program never waits for the test
	}
	return msg
}

type flow struct {
	t     *testing.T
	tm    *teatest.TestModel
	probe probe
	last  frame // the latest frame, for timeout messages
}

const flowTimeout = 15 * time.Second

func openService(t *testing.T, r *coretest.Repo, dir string) *core.Service {
	t.Helper()
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: dir, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatalf("core.Open: %v", err)
	}
	return svc
}

// startFlow runs the picker on svc at 100x30 with the colour profile and TERM pinned.
func startFlow(t *testing.T, svc *core.Service, opts Options) *flow {
	t.Helper()
	var p probe
	tm := teatest.NewTestModel(t, newModel(context.Background(), svc, opts),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions( // replaces, not appends: every option in one call
			tea.WithColorProfile(colorprofile.Ascii),
			tea.WithEnvironment([]string{"TERM=dumb"}),
			tea.WithFilter(p.filter),
		))
	f := &flow{t: t, tm: tm, probe: p}
	f.wait("the list is loaded and statuses are in", func(fr frame) bool { return fr.loaded && fr.pending == 0 })
	return f
}

// frame is the model after every message sent before it, keys included.
func (f *flow) frame() frame {
	f.t.Helper()
	reply := make(chan frame, 1)
	f.tm.Send(probeMsg{reply: reply})
	select {
	case f.last = <-reply:
		return f.last
	case <-time.After(flowTimeout):
		f.t.Fatalf("the program did not answer a probe; last frame:\n%s", f.last.view)
		return frame{}
	}
}

// wait takes frames until cond holds. Work in tea.Cmds (core, git) ends on its own time,
// so frames are taken every few milliseconds until then.
func (f *flow) wait(what string, cond func(frame) bool) frame {
	f.t.Helper()
	deadline := time.Now().Add(flowTimeout)
	for time.Now().Before(deadline) {
		if fr := f.frame(); cond(fr) {
			return fr
		}
		time.Sleep(10 * time.Millisecond) // poll interval, not a wait for readiness
	}
	f.t.Fatalf("timed out waiting until %s; last frame:\n%s", what, f.last.view)
	return frame{}
}

// waitFile waits until path exists (a marker a hook writes when it starts).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(flowTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

func (f *flow) keys(ks ...string) {
	for _, k := range ks {
		f.tm.Send(press(k))
	}
}

// selectPath moves the cursor down until path is selected.
func (f *flow) selectPath(path string) {
	f.t.Helper()
	for range 20 {
		if f.frame().selected == path {
			return
		}
		f.keys("j")
	}
	f.t.Fatalf("cannot select %s", path)
}

func (f *flow) result() Result {
	f.t.Helper()
	m := f.tm.FinalModel(f.t, teatest.WithFinalTimeout(flowTimeout)).(Model)
	m.waitPools() // as Run does: no pool still writing when the test removes the repository
	return m.Result()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestFlowCreateShowsNewRow(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	f.wait("the form is open", func(fr frame) bool { return fr.mode == modeForm })
	f.tm.Type("feat/new")
	f.keys("tab", "tab", "tab", "space") // switch after create: off, so the list shows the new row
	f.keys("enter")
	want := filepath.Join(r.Base, "app.worktrees", "feat-new")
	fr := f.wait("the new row appears", func(fr frame) bool { return contains(fr.paths, want) && !fr.busy })
	if fr.mode != modeList || fr.selected != want {
		t.Errorf("after create: mode=%v selected=%s", fr.mode, fr.selected)
	}
	if !strings.Contains(fr.view, "feat/new") || !strings.Contains(fr.view, "created feat/new") {
		t.Errorf("view does not show the new worktree:\n%s", fr.view)
	}
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		t.Errorf("worktree directory missing: %v", err)
	}
	if !strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), "branch refs/heads/feat/new") {
		t.Error("git does not list the new branch")
	}
	f.keys("q")
	if res := f.result(); !res.Cancelled {
		t.Errorf("quit result = %+v", res)
	}
}

func TestFlowRemoveWithY(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	gone := r.AddWorktree("feat/gone", "app.worktrees/gone")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(gone)
	f.keys("d")
	f.wait("the dialog opens", func(fr frame) bool { return fr.mode == modeConfirm })
	// enter answers the default, No: the dialog closes and nothing runs.
	f.keys("enter")
	if fr := f.frame(); fr.mode != modeList || fr.busy || !strings.Contains(fr.view, "nothing changed") {
		t.Fatalf("enter did not answer no: mode=%v busy=%v\n%s", fr.mode, fr.busy, fr.view)
	}
	if _, err := os.Stat(gone); err != nil {
		t.Fatal("enter removed the worktree")
	}
	f.keys("d")
	f.wait("the dialog opens again", func(fr frame) bool { return fr.mode == modeConfirm })
	f.keys("y")
	fr := f.wait("the row is gone", func(fr frame) bool { return fr.loaded && !fr.busy && !contains(fr.paths, gone) })
	if !strings.Contains(fr.view, "removed") {
		t.Errorf("no confirmation of the removal:\n%s", fr.view)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("directory still there: %v", err)
	}
	if strings.Contains(r.Git(r.Root, "worktree", "list", "--porcelain"), gone) {
		t.Error("git still lists the worktree")
	}
	f.keys("q")
	f.result()
}

func TestFlowRemoveDirtyRefusedNothingChanges(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/dirty", "app.worktrees/dirty")
	coretest.WriteFile(t, filepath.Join(wt, "notes.txt"), "unsaved work\n")
	coretest.WriteFile(t, filepath.Join(wt, "README.md"), "changed\n")
	before := r.Snapshot() // before the picker even starts: nothing it does may change this
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(wt)
	f.keys("d")
	fr := f.wait("the refusal is shown", func(fr frame) bool { return !fr.busy && fr.status.kind == statusError })
	if fr.mode != modeList {
		t.Errorf("a refused removal opened mode %v", fr.mode)
	}
	// core's message; then the picker's own way out (core marks the refusal ForceHelps),
	// never core's CLI flag.
	if !strings.Contains(fr.status.msg, "uncommitted") || !strings.Contains(fr.view, "press D to force-remove (asks twice)") ||
		strings.Contains(fr.view, "--force") {
		t.Errorf("refusal does not say what it protected and how to proceed here:\n%s", fr.view)
	}
	r.Unchanged(before)
	if _, err := os.Stat(filepath.Join(wt, "notes.txt")); err != nil {
		t.Error("untracked work lost")
	}
	f.keys("q")
	f.result()
}

func TestFlowFilterEnterSwitches(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/alpha", "app.worktrees/alpha")
	beta := r.AddWorktree("feat/beta", "app.worktrees/beta")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("/")
	f.tm.Type("beta")
	f.wait("the filter narrows to one row", func(fr frame) bool { return fr.selected == beta && strings.Contains(fr.view, "1/3") })
	f.keys("enter")
	res := f.result()
	if res.Outcome == nil || res.Outcome.Path != beta || res.Outcome.Operation != core.OpSwitch || res.Cancelled {
		t.Fatalf("result = %+v outcome=%+v", res, res.Outcome)
	}
}

func TestFlowPickReturnsRow(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	alpha := r.AddWorktree("feat/alpha", "app.worktrees/alpha")
	svc := openService(t, r, r.Root)
	f := startFlow(t, svc, Options{Pick: true})
	f.tm.Type("alpha") // pick mode: typing filters, no / needed
	f.wait("the filter narrows", func(fr frame) bool { return fr.selected == alpha })
	f.keys("enter")
	res := f.result()
	if res.Selected == nil || res.Selected.Path != alpha || res.Selected.Branch != "feat/alpha" || res.Outcome != nil {
		t.Fatalf("result = %+v", res)
	}
	if _, ok := svc.History().Peek(svc.Session()); ok {
		t.Error("pick mode switched (history changed)")
	}
}

// `-` returns to the worktree the session left: switch in one picker, go back in the next,
// with the same Service (one session).
func TestFlowBackReturnsToPrevious(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/away", "app.worktrees/away")
	svc := openService(t, r, r.Root)

	f := startFlow(t, svc, Options{})
	f.selectPath(wt)
	f.keys("enter")
	if res := f.result(); res.Outcome == nil || res.Outcome.Path != wt {
		t.Fatalf("switch result = %+v", res)
	}

	// The reopened picker marks where the session is now, not where the process started.
	g := startFlow(t, svc, Options{})
	if fr := g.wait("a frame", func(frame) bool { return true }); fr.current != wt || fr.selected != wt {
		t.Errorf("reopened picker: ● on %q, cursor on %q; want both on %s", fr.current, fr.selected, wt)
	}
	if fr := g.frame(); !strings.Contains(fr.view, "- back") {
		t.Errorf("with a previous worktree the help lacks - back:\n%s", fr.view)
	}
	g.keys("-")
	res := g.result()
	if res.Outcome == nil || res.Outcome.Operation != core.OpBack || res.Outcome.Path != r.Root {
		t.Fatalf("back result = %+v outcome=%+v", res, res.Outcome)
	}
}

// With nothing to go back to, - is not in the help bar; pressing it says why and does
// nothing else (no back request, no filter typed).
func TestFlowBackWithoutHistoryExplains(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/a", "app.worktrees/a")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	if fr := f.frame(); strings.Contains(fr.view, "- back") || !strings.Contains(fr.view, "/ filter") {
		t.Errorf("the help shows - without history:\n%s", fr.view)
	}
	f.keys("-")
	fr := f.wait("the explanation", func(fr frame) bool { return fr.status.kind == statusInfo })
	if !strings.Contains(fr.view, "no previous worktree") || fr.busy || fr.mode != modeList || strings.Contains(fr.view, "/ -") {
		t.Errorf("view:\n%s", fr.view)
	}
	f.keys("q")
	f.result()
}

// A confirmation shown against one worktree list must not run against another.
func TestFlowStaleConfirmationRunsNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	target := r.AddWorktree("feat/target", "app.worktrees/target")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(target)
	f.keys("d")
	f.wait("the dialog opens", func(fr frame) bool { return fr.mode == modeConfirm })
	other := r.AddWorktree("feat/elsewhere", "app.worktrees/elsewhere") // another process changes the list
	f.keys("y")
	fr := f.wait("the stale state is reported and the list refreshed", func(fr frame) bool {
		return !fr.busy && fr.status.kind == statusError && contains(fr.paths, other)
	})
	if !strings.Contains(fr.status.msg, "changed") {
		t.Errorf("status = %+v", fr.status)
	}
	if _, err := os.Stat(target); err != nil {
		t.Error("the stale confirmation removed the worktree")
	}
	f.keys("q")
	f.result()
}

// ctrl+c while core works cancels the operation, not the picker, and the status line
// says what state is left. A post-checkout hook that sleeps keeps git busy long enough.
func TestFlowCtrlCCancelsOperation(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	hook := filepath.Join(r.Root, ".git", "hooks", "post-checkout")
	started := filepath.Join(t.TempDir(), "hook-started")
	coretest.WriteFile(t, hook, "#!/bin/sh\ntouch '"+started+"'\nsleep 20\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.keys("n")
	f.wait("the form is open", func(fr frame) bool { return fr.mode == modeForm })
	f.tm.Type("feat/slow")
	f.keys("enter")
	f.wait("the create runs", func(fr frame) bool { return fr.busy && strings.Contains(fr.view, "creating feat/slow") })
	waitFile(t, started) // git is in the hook: ctrl+c must stop a running child
	start := time.Now()
	f.keys("ctrl+c")
	fr := f.wait("the operation ends", func(fr frame) bool { return !fr.busy && fr.status.kind == statusError })
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelling took %s: the hook was not stopped", d)
	}
	if !strings.Contains(fr.status.msg, "cancelled") {
		t.Errorf("status does not report the cancellation: %+v", fr.status)
	}
	t.Logf("after ctrl+c: %s — %s", fr.status.msg, fr.status.hint)
	// The picker is still running: it answers a key.
	f.keys("esc")
	f.wait("the form closes", func(fr frame) bool { return fr.mode == modeList })
	f.keys("q")
	if res := f.result(); !res.Cancelled {
		t.Errorf("result = %+v", res)
	}
}

func TestFlowForceRemoveDirtyAsksTwice(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/scratch", "app.worktrees/scratch")
	coretest.WriteFile(t, filepath.Join(wt, "scratch.txt"), "throwaway\n")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(wt)
	f.keys("D")
	fr := f.wait("the dialog opens", func(fr frame) bool { return fr.mode == modeConfirm })
	if !strings.Contains(fr.view, "uncommitted changes will be lost") {
		t.Errorf("the dialog does not name the loss:\n%s", fr.view)
	}
	f.keys("y")
	fr = f.wait("the second question", func(fr frame) bool { return strings.Contains(fr.view, "Are you sure?") })
	if _, err := os.Stat(wt); err != nil || fr.busy {
		t.Fatal("force removal ran after one y")
	}
	f.keys("y")
	fr = f.wait("the row is gone", func(fr frame) bool { return !fr.busy && fr.loaded && !contains(fr.paths, wt) })
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("directory still there: %v", err)
	}
	// The forced remove recorded the work: the status line says how to get it back.
	if !strings.Contains(fr.status.msg, "undo: copse restore ") {
		t.Errorf("the status does not say how to undo: %q", fr.status.msg)
	}
	f.keys("q")
	f.result()
}
