package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

func fxPreview() *core.Preview {
	p := &core.Preview{
		Path:   "/home/dev/src/app.worktrees/feat-login",
		Status: []string{"## feat/login...origin/feat/login [ahead 2]", "M  auth/session.go", " M auth/login.go", " M README.md", "?? notes.txt", "?? tmp/", "?? scratch.go"},
		Base:   "main (1a2b3c4)",
	}
	for i := 0; i < 10; i++ {
		p.Log = append(p.Log, "ab"+strings.Repeat(string(rune('0'+i)), 5)+" "+[]string{"2 hours", "3 days", "5 days"}[i%3]+" ago · login: step "+string(rune('a'+i)))
	}
	p.DiffStat = []string{" auth/login.go   | 42 +++++++++++-----", " auth/session.go | 17 ++++++", " 2 files changed, 48 insertions(+), 11 deletions(-)"}
	return p
}

func previewOpen(t *testing.T, w, h int) Model {
	m := mixed(t, w, h)
	m, _ = send(t, m, press("p"))
	m, _ = send(t, m, previewMsg{seq: m.views.previewSeq, preview: fxPreview()})
	return m
}

func TestGoldenPreview80x24(t *testing.T)  { goldenPlain(t, previewOpen(t, 80, 24)) }
func TestGoldenPreview120x35(t *testing.T) { goldenPlain(t, previewOpen(t, 120, 35)) }

func TestPreviewScrollsAndCloses(t *testing.T) {
	t.Parallel()
	m := previewOpen(t, 80, 24)
	if m.mode != modePreview {
		t.Fatalf("mode %v", m.mode)
	}
	top := plain(m)
	m, _ = send(t, m, press("j"), press("j"))
	if plain(m) == top || m.views.preview.vp.YOffset() != 2 {
		t.Errorf("j does not scroll (offset %d)", m.views.preview.vp.YOffset())
	}
	// tab in the list opens it too, and closes it again.
	m, _ = send(t, m, press("esc"))
	if m.mode != modeList || m.views.preview != nil {
		t.Fatalf("esc: mode %v", m.mode)
	}
	m, _ = send(t, m, press("tab"))
	if m.mode != modePreview {
		t.Fatal("tab does not open the preview")
	}
	// A stale answer (for an earlier preview) is dropped.
	m, _ = send(t, m, previewMsg{seq: m.views.previewSeq - 1, preview: fxPreview()})
	if !m.views.preview.loading {
		t.Error("a stale preview was shown")
	}
	m, _ = send(t, m, press("tab"))
	if m.mode != modeList {
		t.Error("tab does not close the preview")
	}
}

// The detail line: author and age of the last commit, upstream with its ahead/behind,
// and ahead/behind the main branch.
func TestGoldenDetailLine120x35(t *testing.T) {
	t.Parallel()
	m := withCommits(t, mixed(t, 120, 35))
	m, _ = send(t, m, divergenceMsg{seq: m.loadSeq, div: map[string]core.Divergence{
		"/home/dev/src/app.worktrees/feat-login": {Ahead: 3, Behind: 1}}})
	line := strings.Split(plain(m), "\n")[33]
	for _, want := range []string{"by Bo Park 2h ago", "upstream origin/feat/login ↑2", "main ↑3 ↓1"} {
		if !strings.Contains(line, want) {
			t.Errorf("detail line %q lacks %q", line, want)
		}
	}
	goldenPlain(t, m)
}

func TestFlowPreviewShowsChanges(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/pv", "app.worktrees/pv")
	coretest.WriteFile(t, filepath.Join(wt, "added.txt"), "1\n")
	r.Git(wt, "add", "added.txt")
	r.Git(wt, "commit", "-q", "-m", "add a file")
	coretest.WriteFile(t, filepath.Join(wt, "dirty.txt"), "x\n")
	f := startFlow(t, openService(t, r, r.Root), Options{})
	f.selectPath(wt)
	fr := f.wait("the detail line says how far from main", func(fr frame) bool { return strings.Contains(fr.view, "main ↑1") })
	f.keys("p")
	fr = f.wait("the preview is read", func(fr frame) bool { return fr.mode == modePreview && strings.Contains(fr.view, "Against main") })
	for _, want := range []string{"?? dirty.txt", "add a file", "added.txt", "1 file changed"} {
		if !strings.Contains(fr.view, want) {
			t.Errorf("preview lacks %q:\n%s", want, fr.view)
		}
	}
	f.keys("esc")
	f.wait("back on the list", func(fr frame) bool { return fr.mode == modeList })
	f.keys("q")
	f.result()
}

// fxBlockedGate is feat-login's land, blocked by a failing test gate, as core records it
// (the tail escaped by core: the colour codes of the test's output are shown, not run).
func fxBlockedGate() core.LandJob {
	return core.LandJob{Job: "land-7", State: core.LandBlocked, Phase: core.PhaseTest, Code: "test_failed",
		Into:     "main",
		Message:  `the test gate "go test ./..." exited 1`,
		Hint:     "fix it, commit, and land again; the output is in /home/dev/src/app/.git/copse/land/land-7.log",
		Log:      "/home/dev/src/app/.git/copse/land/land-7.log",
		LogTail:  []string{"=== RUN   TestLogin", `    login_test.go:42: got \x1b[31m401\x1b[0m, want 200`, "--- FAIL: TestLogin (0.01s)", "FAIL", "FAIL    example.com/app/auth    0.012s", "# gate: exit 1 after 2.3s"},
		Worktree: core.LandWorktree{Path: "/home/dev/src/app.worktrees/feat-login", Branch: "feat/login"}}
}

// blockedPreview opens the preview of a row whose land is blocked: the land section comes
// first, from the job core read with the land records.
func blockedPreview(t *testing.T, w, h int) Model {
	m := mixed(t, w, h)
	m, _ = send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{fxBlockedGate()}})
	m, _ = send(t, m, press("p"))
	m, _ = send(t, m, previewMsg{seq: m.views.previewSeq, preview: fxPreview()})
	return m
}

func TestGoldenPreviewBlockedLand80x24(t *testing.T) {
	t.Parallel()
	m := blockedPreview(t, 80, 24)
	v := plain(m)
	for _, want := range []string{"Land land-7 blocked in test (test_failed)", `exited 1`, "Last 6 lines of /home/dev/src/app/.git/copse/land/land-7.log",
		`got \x1b[31m401\x1b[0m`, "--- FAIL: TestLogin", "Changes"} {
		if !strings.Contains(v, want) {
			t.Errorf("preview lacks %q:\n%s", want, v)
		}
	}
	goldenPlain(t, m)
}

// The same in colour, pinned: lipgloss renders full-colour ANSI whatever the terminal.
func TestGoldenPreviewBlockedLandColour80x24(t *testing.T) {
	t.Parallel()
	m := blockedPreview(t, 80, 24)
	checkFrame(t, m)
	golden.RequireEqual(t, m.View().Content)
}

// A row whose land is running or landed has no land section.
func TestPreviewWithoutBlockedLand(t *testing.T) {
	t.Parallel()
	m := mixed(t, 80, 24)
	j := fxBlockedGate()
	j.State, j.Phase = core.LandRunning, core.PhaseTest
	m, _ = send(t, m, landJobsMsg{seq: m.loadSeq, jobs: []core.LandJob{j}})
	m, _ = send(t, m, press("p"))
	m, _ = send(t, m, previewMsg{seq: m.views.previewSeq, preview: fxPreview()})
	if v := plain(m); strings.Contains(v, "Land land-7") || !strings.Contains(v, "Changes") {
		t.Fatalf("a running land got a land section:\n%s", v)
	}
}
