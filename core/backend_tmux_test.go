package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/internal/testexec"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// The tmux backend, against a real tmux on a private socket (tmuxtest) and real git in
// temporary repositories. copse "runs" in the server's first pane (TMUX, TMUX_PANE).

type tw struct {
	*coretest.Repo
	srv *tmuxtest.Server
}

func newTW(t *testing.T) *tw {
	t.Helper()
	r := coretest.New(t)
	return &tw{Repo: r, srv: tmuxtest.Start(t)}
}

func (w *tw) getenv(k string) string {
	if v, ok := w.srv.Env()[k]; ok {
		return v
	}
	return w.Repo.Getenv(k)
}

// open opens a Service under backend auto, as a copse started in the server's first pane.
func (w *tw) open(t *testing.T) *core.Service {
	t.Helper()
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Backend: "auto", Getenv: w.getenv, Env: coretest.Env(w.Home)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if s.BackendName() != "tmux" || !s.HasWorkspaces() {
		t.Fatalf("backend %s, want tmux", s.BackendName())
	}
	return s
}

// windowOf is the window marked for path ("" when none), failing on two.
func (w *tw) windowOf(t *testing.T, path string) string {
	t.Helper()
	var found []string
	for _, l := range w.srv.Windows() {
		id, mark, _ := strings.Cut(l, "\t")
		if mark == path {
			found = append(found, id)
		}
	}
	if len(found) > 1 {
		t.Fatalf("%d windows are marked for %s: %v", len(found), path, found)
	}
	if len(found) == 0 {
		return ""
	}
	return found[0]
}

func TestTmuxOpenCreatesTheWindowThenFindsIt(t *testing.T) {
	w := newTW(t)
	wt := w.AddWorktree("feat", "app.worktrees/feat")
	// A window the person made in the worktree, named like the branch, is not copse's.
	theirs := w.srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "-n", "feat", "-c", wt)
	// Nor is one marked for another worktree.
	other := w.srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "-n", "feat")
	w.srv.Run("set-option", "-w", "-t", other, "@copse-worktree", w.Root)

	out, err := do(t, w.open(t), core.OpenRequest{Branch: core.Str("feat")})
	if err != nil {
		t.Fatal(err)
	}
	ws := w.windowOf(t, wt)
	if ws == "" || ws == theirs || ws == other || out.WorkspaceID != ws {
		t.Fatalf("open made window %q (outcome %q); theirs %s, other %s", ws, out.WorkspaceID, theirs, other)
	}
	if w.srv.Active() != w.srv.Window {
		t.Errorf("open without --focus brought the window forward")
	}
	if got := w.srv.Run("display-message", "-p", "-t", ws, "#{window_name}|#{pane_current_path}"); got != "feat|"+wt {
		t.Errorf("window is %q, want named feat, in %s", got, wt)
	}
	n := len(w.srv.Windows())

	// Again, in another copse process: the same window, nothing new.
	out, err = do(t, w.open(t), core.OpenRequest{Branch: core.Str("feat"), Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.WorkspaceID != ws || len(w.srv.Windows()) != n {
		t.Fatalf("second open: window %q, %d windows; want %s, %d", out.WorkspaceID, len(w.srv.Windows()), ws, n)
	}
	if w.srv.Active() != ws {
		t.Errorf("open --focus did not select %s", ws)
	}
	l, err := w.open(t).List(bg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Worktrees {
		got := ""
		if r.WorkspaceID != nil {
			got = *r.WorkspaceID
		}
		want := ""
		switch r.Path {
		case wt:
			want = ws
		case w.Root:
			want = other // marked for the main checkout: that is its window
		}
		if got != want {
			t.Errorf("list: %s shows workspace %q, want %q", r.Path, got, want)
		}
	}
}

func TestTmuxSwitchAndBackSelectTheWindows(t *testing.T) {
	w := newTW(t)
	a := w.AddWorktree("a", "app.worktrees/a")
	b := w.AddWorktree("b", "app.worktrees/b")
	s := w.open(t)
	if _, err := do(t, s, core.SwitchRequest{Branch: core.Str("a")}); err != nil {
		t.Fatal(err)
	}
	wa := w.windowOf(t, a)
	if wa == "" || w.srv.Active() != wa {
		t.Fatalf("switch a: active %s, a's window %q", w.srv.Active(), wa)
	}
	if _, err := do(t, s, core.SwitchRequest{Branch: core.Str("b")}); err != nil {
		t.Fatal(err)
	}
	wb := w.windowOf(t, b)
	if wb == "" || w.srv.Active() != wb {
		t.Fatalf("switch b: active %s, b's window %q", w.srv.Active(), wb)
	}
	// back in a new process (as `copse back` typed in a shell): the session remembers.
	out, err := do(t, w.open(t), core.BackRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != a || w.srv.Active() != wa {
		t.Fatalf("back went to %s (active %s); want %s (%s)", out.Path, w.srv.Active(), a, wa)
	}
	if len(w.srv.Windows()) != 3 {
		t.Errorf("windows %v: switch and back opened more than one window per worktree", w.srv.Windows())
	}
}

func TestTmuxRemoveRefusesWhileAPaneRunsAndClosesTheWindow(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	if ws == "" || w.windowOf(t, wt) != ws {
		t.Fatalf("create under tmux opened window %q; marked %q", ws, w.windowOf(t, wt))
	}
	// Something runs in the window's pane, away from the worktree: closing the window
	// would end it, so remove refuses and nothing changes.
	w.srv.Run("send-keys", "-t", ws, "cd / && exec sleep 600", "Enter")
	w.srv.WaitFor("sleep in the pane", func() bool {
		return w.srv.Run("display-message", "-p", "-t", ws, "#{pane_current_command}") == "sleep"
	})
	before := w.Snapshot()
	_, err = do(t, w.open(t), core.RemoveRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, core.CodeProcessesRunning)
	if msg := err.Error(); !strings.Contains(msg, "sleep") || !strings.Contains(msg, "--force") {
		t.Errorf("refusal %q does not name the process and --force", msg)
	}
	w.Unchanged(before)
	if w.windowOf(t, wt) != ws {
		t.Fatalf("the refused remove closed window %s", ws)
	}

	// With only the window's idle shell, the confirmation says the window closes, and the
	// remove closes it.
	w.srv.Run("respawn-pane", "-k", "-t", ws, "-c", wt)
	w.srv.Idle(ws)
	s := w.open(t)
	p, err := s.Prepare(bg, core.RemoveRequest{Branch: core.Str("feat")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(p.Confirm.Warnings, func(l string) bool { return strings.Contains(l, "closes tmux window "+ws) }) {
		t.Errorf("confirmation warnings %q do not say the window closes", p.Confirm.Warnings)
	}
	if _, err := s.Execute(bg, p); err != nil {
		t.Fatal(err)
	}
	if w.windowOf(t, wt) != "" {
		t.Errorf("window %s still open after remove", ws)
	}
	for _, l := range w.srv.Windows() {
		if strings.HasPrefix(l, ws+"\t") {
			t.Errorf("window %s still exists", ws)
		}
	}
}

// The command starts in the new window with the branch, path and prompt as values: a
// branch and a prompt full of quotes and shell syntax arrive exactly as they were.
func TestTmuxCreateRunPassesValuesSafely(t *testing.T) {
	w := newTW(t)
	branch := `it's/"x";$(touch${IFS}pwned)`
	prompt := "fix the 'login' bug; $(touch pwned) \"now\""
	run := `printf '<%s>\n' {branch} {path} "$PWD" "$COPSE_SESSION"; printf '[%s]\n' {prompt}; exec sleep 600`
	s := w.open(t)
	out, err := s.Do(core.WithTypedByPerson(bg), core.CreateRequest{Branch: branch, Run: core.Str(run), Prompt: core.Str(prompt)}, false)
	if err != nil {
		t.Fatal(err)
	}
	ws, wt := out.WorkspaceID, out.Path
	for _, want := range []string{"<" + branch + ">", "<" + wt + ">", "[" + prompt + "]"} {
		w.srv.WaitFor(want, func() bool { return strings.Contains(w.srv.Capture(ws), want) })
	}
	screen := w.srv.Capture(ws)
	if strings.Count(screen, "<"+wt+">") != 2 {
		t.Errorf("the command did not run in the worktree:\n%s", screen)
	}
	sess := "agent:" + core.BranchSlug(branch)
	if !strings.Contains(screen, "<"+sess+">") {
		t.Errorf("COPSE_SESSION is not %s:\n%s", sess, screen)
	}
	if out.Claim == nil || out.Claim.Session != sess {
		t.Errorf("the worktree is claimed by %+v, want %s", out.Claim, sess)
	}
	for _, dir := range []string{w.Root, wt, "/"} {
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("a value ran as shell code: %s/pwned exists", dir)
		}
	}
}

func TestRunFromARequestNeedsApproval(t *testing.T) {
	w := newTW(t)
	before := w.Snapshot()
	n := len(w.srv.Windows())
	_, err := w.open(t).Do(bg, core.CreateRequest{Branch: "feat", Run: core.Str("claude")}, false)
	wantCode(t, err, core.KindRefused, core.CodeNeedsApproval)
	if !strings.Contains(err.Error(), "claude") {
		t.Errorf("the approval %q does not show the command", err)
	}
	w.Unchanged(before)
	if len(w.srv.Windows()) != n {
		t.Errorf("a window was opened before approval")
	}
}

// A prompt an agent sends for the owner's copse.run is shown to a person first too: it is
// what the started program is told to do.
func TestPromptFromARequestNeedsApproval(t *testing.T) {
	w := newTW(t)
	w.Git(w.Root, "config", "copse.run", "claude {prompt}")
	before := w.Snapshot()
	n := len(w.srv.Windows())
	_, err := w.open(t).Do(bg, core.CreateRequest{Branch: "feat", Prompt: core.Str("delete the tests")}, false)
	wantCode(t, err, core.KindRefused, core.CodeNeedsApproval)
	if !strings.Contains(err.Error(), "delete the tests") || !strings.Contains(err.Error(), "claude") {
		t.Errorf("the approval %q does not show the prompt and the command", err)
	}
	w.Unchanged(before)
	if len(w.srv.Windows()) != n {
		t.Errorf("a window was opened before approval")
	}
}

func TestRunIsRefusedWithoutATmuxWindow(t *testing.T) {
	r := coretest.New(t)
	before := r.Snapshot()
	_, err := open(t, r, r.Root).Do(core.WithTypedByPerson(bg), core.CreateRequest{Branch: "feat", Run: core.Str("claude")}, true)
	wantCode(t, err, core.KindRefused, core.CodeRunNeedsWorkspace)
	if !strings.Contains(err.Error(), "claude") || !strings.Contains(err.Error(), "foreground") {
		t.Errorf("refusal %q does not say what was not run and why", err)
	}
	r.Unchanged(before)
	_, err = open(t, r, r.Root).Do(bg, core.CreateRequest{Branch: "feat", Prompt: core.Str("hi")}, true)
	wantCode(t, err, core.KindUsage, core.CodeRunBadCommand)
	r.Unchanged(before)
}

func TestBackendTmuxOutsideTmuxIsAUsageError(t *testing.T) {
	r := coretest.New(t)
	_, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "tmux", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeTmuxNotDetected || e.Kind != core.KindUsage {
		t.Fatalf("err = %v; want %s", err, core.CodeTmuxNotDetected)
	}
}

// list --status says what runs in each window: an agent waiting for input is blocked
// (needs you), one printing is working, a window with only its shell shows nothing, and a
// program working inside a worktree without a window is running.
func TestTmuxListShowsWhatRunsInTheWindows(t *testing.T) {
	w := newTW(t)
	s := w.open(t)
	typed := core.WithTypedByPerson(bg)
	waits, err := s.Do(typed, core.CreateRequest{Branch: "waits", Run: core.Str(`printf 'continue? '; head -n 1; exec sleep 600`)}, false)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := s.Do(typed, core.CreateRequest{Branch: "busy", Run: core.Str(`while :; do echo tick; sleep 0.2; done`)}, false)
	if err != nil {
		t.Fatal(err)
	}
	quiet, err := s.Do(bg, core.CreateRequest{Branch: "quiet"}, false)
	if err != nil {
		t.Fatal(err)
	}
	bare := w.AddWorktree("bare", "app.worktrees/bare")
	coretest.StartLive(t, bare, "sleep", "600")
	w.srv.WaitFor("the prompt of waits", func() bool { return strings.Contains(w.srv.Capture(waits.WorkspaceID), "continue?") })
	w.srv.Idle(quiet.WorkspaceID)

	agentsOf := func() map[string][]core.Agent {
		l, err := w.open(t).List(bg, true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]core.Agent{}
		for _, r := range l.Worktrees {
			out[r.Path] = r.Agents
		}
		return out
	}
	var got map[string][]core.Agent
	w.srv.WaitFor("the agents' states", func() bool {
		got = agentsOf()
		a, b := got[waits.Path], got[busy.Path]
		return len(a) > 0 && a[0].State == core.AgentBlocked && len(b) > 0 && b[0].State == core.AgentWorking
	})
	if a := got[waits.Path][0]; a.Workspace != waits.WorkspaceID || a.PID == 0 || a.Command != "head" {
		t.Errorf("the waiting agent is %+v; want its pane's pid in window %s", a, waits.WorkspaceID)
	}
	if len(got[quiet.Path]) != 0 {
		t.Errorf("a window with only its shell shows agents %+v", got[quiet.Path])
	}
	if a := got[bare]; len(a) != 1 || a[0].Command != "sleep" || a[0].State != core.AgentRunning || a[0].Workspace != "" {
		t.Errorf("the worktree without a window shows %+v; want sleep running", a)
	}
	row := core.Worktree{Agents: got[waits.Path]}
	if !row.NeedsYou() {
		t.Errorf("a blocked agent does not need you")
	}
	b, _ := json.Marshal(got[waits.Path][0])
	for _, k := range []string{`"pid":`, `"command":`, `"state":"blocked"`, `"workspace":"@`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("agent JSON %s lacks %s", b, k)
		}
	}
}

// Under tmux a worktree is named by its window id as Herdr's by its workspace id.
func TestTmuxRemoveByWindowID(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	w.srv.Idle(out.WorkspaceID)
	if _, err := do(t, w.open(t), core.RemoveRequest{WorkspaceID: core.Str(out.WorkspaceID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out.Path); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", out.Path, err)
	}
	_, err = do(t, w.open(t), core.RemoveRequest{WorkspaceID: core.Str("feat")})
	wantCode(t, err, core.KindUsage, core.CodeBadWorkspaceID)
}

// Inside tmux, opening the repository and listing it asks tmux once, while git lists: the
// session, copse's window, the session's previous worktree and every pane come from one
// list-panes (tmux.Client.Survey). A later listing asks again, so a window made since is
// seen; a repository whose config chose the git backend asks tmux nothing.
func TestTmuxListAsksTmuxOnce(t *testing.T) {
	w := newTW(t)
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not found")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "tmux")
	script := "#!/bin/sh\necho \"$3\" >>" + strconv.Quote(log) + "\nexec " + strconv.Quote(real) + " \"$@\"\n"
	if err := testexec.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := func() []string {
		b, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Fields(string(b))
	}
	feat := w.AddWorktree("feat", "app.worktrees/feat")
	opts := core.Options{Registry: ops.All, Dir: w.Root, Getenv: w.getenv, Env: coretest.Env(w.Home), TmuxBin: bin, ListFirst: true}
	s, err := core.Open(bg, opts)
	if err != nil || s.BackendName() != "tmux" {
		t.Fatalf("open: %v", err)
	}
	if _, err := s.List(bg, false); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !slices.Equal(got, []string{"list-panes"}) {
		t.Fatalf("open and list ran tmux %q; want one list-panes", got)
	}
	// A window made after the survey is seen by the next listing.
	win := strings.TrimSpace(w.srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "-c", feat))
	w.srv.Run("set-option", "-w", "-t", win, "@copse-worktree", feat)
	l, err := s.List(bg, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls(); !slices.Equal(got, []string{"list-panes"}) {
		t.Fatalf("a second listing ran tmux %q; want one list-panes", got)
	}
	found := false
	for _, r := range l.Worktrees {
		found = found || (r.Path == feat && r.WorkspaceID != nil && *r.WorkspaceID == win)
	}
	if !found {
		t.Fatalf("the second listing does not show window %s of %s: %+v", win, feat, l.Worktrees)
	}
	w.Git(w.Root, "config", "copse.backend", "git")
	if s, err := core.Open(bg, opts); err != nil || s.BackendName() != "git" {
		t.Fatalf("open with copse.backend git: %v", err)
	}
	if got := calls(); len(got) != 0 {
		t.Fatalf("with copse.backend git, open ran tmux %q", got)
	}
}
