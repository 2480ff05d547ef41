package core_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// The tmux flows that finish (issue 28): marks of gone worktrees, panes attributed to their
// own window, back to the window left, switch across sessions, one refusal with every
// reason, the confirmation's token, copse's own window. Each against a private tmux server.

// openAs opens a Service as a copse started in pane (TMUX_PANE) of the test's server.
func (w *tw) openAs(t *testing.T, pane string) *core.Service {
	t.Helper()
	getenv := func(k string) string {
		if k == "TMUX_PANE" {
			return pane
		}
		return w.getenv(k)
	}
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: w.Root, Backend: "auto", Getenv: getenv, Env: coretest.Env(w.Home)})
	if err != nil || s.BackendName() != "tmux" {
		t.Fatalf("open as pane %s: %v", pane, err)
	}
	return s
}

// markOf is window's @copse-worktree ("" when unset).
func (w *tw) markOf(t *testing.T, window string) string {
	t.Helper()
	return w.srv.Run("show-options", "-w", "-v", "-q", "-t", window, "@copse-worktree")
}

// A worktree removed by hand (git worktree remove) leaves its window; the next listing takes
// the window's mark off, so the window is nobody's and a worktree made there later gets its
// own window. A window marked for a directory that still exists (another repository's
// worktree) keeps its mark.
func TestTmuxWindowOfAGoneWorktreeLosesItsMark(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	elsewhere := t.TempDir()
	theirs := w.srv.Run("new-window", "-d", "-P", "-F", "#{window_id}", "-c", elsewhere)
	w.srv.Run("set-option", "-w", "-t", theirs, "@copse-worktree", elsewhere)
	w.Git(w.Root, "worktree", "remove", "--force", wt)
	if w.markOf(t, ws) != wt {
		t.Fatalf("window %s lost its mark before copse saw it", ws)
	}
	if _, err := w.open(t).List(bg, false); err != nil {
		t.Fatal(err)
	}
	if m := w.markOf(t, ws); m != "" {
		t.Errorf("window %s of the removed worktree is still marked %q", ws, m)
	}
	if m := w.markOf(t, theirs); m != elsewhere {
		t.Errorf("window %s, marked for an existing directory, lost its mark (%q)", theirs, m)
	}
	// The same worktree made again gets a window of its own, not the old one.
	again, err := do(t, w.open(t), core.CreateRequest{Branch: "feat2", Path: core.Str(wt)})
	if err != nil {
		t.Fatal(err)
	}
	if again.WorkspaceID == ws || again.WorkspaceID == "" {
		t.Errorf("the new worktree at %s took window %q (the old one was %s)", wt, again.WorkspaceID, ws)
	}
}

// A worktree whose directory was deleted by hand is still git's (prunable): its window
// keeps its mark, so a remove closes it; once git forgets the worktree, the mark goes.
func TestTmuxWindowOfAPrunableWorktreeKeepsItsMarkUntilGitForgetsIt(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	w.srv.Run("respawn-pane", "-k", "-t", ws, "-c", "/")
	if err := os.RemoveAll(wt); err != nil {
		t.Fatal(err)
	}
	if _, err := w.open(t).List(bg, false); err != nil {
		t.Fatal(err)
	}
	if m := w.markOf(t, ws); m != wt {
		t.Fatalf("window %s of a prunable worktree lost its mark (%q)", ws, m)
	}
	w.Git(w.Root, "worktree", "prune")
	if _, err := w.open(t).List(bg, false); err != nil {
		t.Fatal(err)
	}
	if m := w.markOf(t, ws); m != "" {
		t.Errorf("window %s is still marked %q after git forgot the worktree", ws, m)
	}
}

// Two windows marked for one worktree, the second in another session: each pane is shown
// as an agent of its own window, not only the panes of the first window found.
func TestTmuxPanesAreAttributedToTheirOwnWindowAndSession(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, first := out.Path, out.WorkspaceID
	w.srv.Idle(first)
	second := w.srv.Run("new-session", "-d", "-s", "other", "-P", "-F", "#{window_id}", "-c", wt, "--", "sleep", "600")
	w.srv.Run("set-option", "-w", "-t", second, "@copse-worktree", wt)
	l, err := w.open(t).List(bg, true)
	if err != nil {
		t.Fatal(err)
	}
	var row *core.Worktree
	for i := range l.Worktrees {
		if l.Worktrees[i].Path == wt {
			row = &l.Worktrees[i]
		}
	}
	if row == nil || row.WorkspaceID == nil || *row.WorkspaceID != first {
		t.Fatalf("the worktree's window is not %s, the one of copse's session: %+v", first, row)
	}
	found := false
	for _, a := range row.Agents {
		if a.Command == "sleep" {
			found = true
			if a.Workspace != second {
				t.Errorf("sleep, in window %s, is shown in window %q", second, a.Workspace)
			}
		}
	}
	if !found {
		t.Errorf("the sleep in the second window (%s, another session) is not shown: %+v", second, row.Agents)
	}
}

// copse back, after a switch from the session's first window (the main checkout, a window
// copse did not make), selects that window again, as tmux's last-window, instead of
// opening a new window for the main checkout.
func TestTmuxBackSelectsTheWindowTheSwitchLeft(t *testing.T) {
	w := newTW(t)
	w.AddWorktree("feat", "app.worktrees/feat")
	if _, err := do(t, w.open(t), core.SwitchRequest{Branch: core.Str("feat")}); err != nil {
		t.Fatal(err)
	}
	if w.srv.Active() == w.srv.Window {
		t.Fatal("switch did not leave the first window")
	}
	n := len(w.srv.Windows())
	p, err := w.open(t).Prepare(bg, core.BackRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "tmux select-window -t " + w.srv.Window; !slices.Contains(p.Commands, want) {
		t.Errorf("back's commands %q; want %q", p.Commands, want)
	}
	out, err := w.open(t).Do(bg, core.BackRequest{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != w.Root || w.srv.Active() != w.srv.Window || out.WorkspaceID != w.srv.Window {
		t.Fatalf("back went to %s in %q (active %s); want %s in %s", out.Path, out.WorkspaceID, w.srv.Active(), w.Root, w.srv.Window)
	}
	if got := len(w.srv.Windows()); got != n {
		t.Errorf("back opened a window: %d windows, had %d", got, n)
	}
}

// copse switch typed in another session of the server finds the worktree's window there
// instead of opening a second one, and the client is shown it.
func TestTmuxSwitchFromAnotherSessionFindsTheExistingWindow(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	ws := out.WorkspaceID
	other := w.srv.Run("new-session", "-d", "-s", "other", "-P", "-F", "#{pane_id}", "--", "/bin/sh")
	otherSess := w.srv.Run("display-message", "-p", "-t", other, "#{session_id}")
	// A client attached to the other session: a terminal of a second private server runs it.
	viewer := startViewer(t, w.srv.Socket, otherSess)
	clients := func() string { return w.srv.Run("list-clients", "-F", "#{session_id} #{window_id}") }
	w.srv.WaitFor("the client to attach", func() bool { return strings.HasPrefix(clients(), otherSess+" ") })
	n := strings.Count(w.srv.Run("list-windows", "-a", "-F", "#{window_id}"), "@")

	res, err := w.openAs(t, other).Do(bg, core.SwitchRequest{Branch: core.Str("feat")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.WorkspaceID != ws {
		t.Fatalf("switch from session %s went to window %q; the worktree's window is %s", otherSess, res.WorkspaceID, ws)
	}
	if got := strings.Count(w.srv.Run("list-windows", "-a", "-F", "#{window_id}"), "@"); got != n {
		t.Errorf("switch opened a second window: %d windows, had %d", got, n)
	}
	w.srv.WaitFor("the client to show "+ws, func() bool { return strings.HasSuffix(clients(), " "+ws) })
	_ = viewer
}

// startViewer attaches a tmux client to session of the server at socket, from a pane of a
// second private server: a real client, with a terminal, that switch-client can move.
func startViewer(t *testing.T, socket, session string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "copse-view-")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "v")
	t.Cleanup(func() {
		runTmux(sock, "kill-server")
		os.RemoveAll(dir)
	})
	if out, err := runTmux(sock, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "--",
		"env", "-u", "TMUX", "-u", "TMUX_PANE", "tmux", "-S", socket, "attach-session", "-t", session); err != nil {
		t.Fatalf("viewer: %v: %s", err, out)
	}
	return sock
}

// One refusal names every reason, the processes working there first, and what --force
// would end; each reason carries its own code.
func TestRemoveRefusalListsEveryReasonProcessesFirst(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	coretest.WriteFile(t, filepath.Join(wt, "notes.txt"), "draft\n")
	w.Git(w.Root, "worktree", "lock", "--reason", "keep me", wt)
	pid := coretest.StartLive(t, wt, "sleep", "600")
	before := w.Snapshot()
	_, err = do(t, w.open(t), core.RemoveRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, core.CodeProcessesRunning)
	e := core.AsError(err)
	var codes []string
	for _, r := range e.Reasons {
		codes = append(codes, r.Code)
	}
	if want := []string{core.CodeProcessesRunning, core.CodeLockedWorktree, core.CodeDirtyWorktree}; !slices.Equal(codes, want) {
		t.Errorf("reasons %q; want %q", codes, want)
	}
	for _, m := range []string{"3 reasons", "sleep 600", "keep me", "1 untracked", "with --force, copse closes tmux window " + ws, "pid"} {
		if !strings.Contains(e.Message, m) {
			t.Errorf("refusal %q does not say %q", e.Message, m)
		}
	}
	if i, j := strings.Index(e.Message, "sleep 600"), strings.Index(e.Message, "keep me"); i < 0 || j < 0 || i > j {
		t.Errorf("the processes are not named first: %q", e.Message)
	}
	if !e.ForceHelps {
		t.Errorf("the refusal does not say --force gets past it")
	}
	_ = pid
	w.Unchanged(before)
	if w.windowOf(t, wt) != ws {
		t.Errorf("the refused remove closed window %s", ws)
	}
}

// A forced remove of a worktree whose window runs an agent that prints every 0.5 s and
// starts short-lived children: the confirmation's token holds the programs and panes, not
// their pids or "last output 2s ago", so a yes given seconds later goes through; a new file
// at risk is a real change, and that yes is refused stale_state.
func TestForcedRemoveConfirmationTokenHoldsProgramsNotShortLivedPidsOrAges(t *testing.T) {
	w := newTW(t)
	agent := `while :; do date; sh -c 'sleep 0.2'; sleep 0.3; done`
	out, err := w.open(t).Do(core.WithTypedByPerson(bg), core.CreateRequest{Branch: "agent", Run: core.Str(agent)}, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	coretest.WriteFile(t, filepath.Join(wt, "work.txt"), "unsaved\n")
	w.srv.WaitFor("the agent to print", func() bool { return strings.Count(w.srv.Capture(ws), "UTC") >= 2 })
	req := core.RemoveRequest{Branch: core.Str("agent"), Force: true}

	// A real change between the confirmation and the yes: one more file at risk.
	s := w.open(t)
	p, err := s.Prepare(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(wt, "more.txt"), "also unsaved\n")
	before := w.Snapshot()
	_, err = s.Execute(bg, p)
	wantCode(t, err, core.KindRefused, core.CodeStaleState)
	w.Unchanged(before)

	// Nothing the person decides on changed, only pids of children and the output's age.
	s = w.open(t)
	if p, err = s.Prepare(bg, req); err != nil {
		t.Fatal(err)
	}
	shown := strings.Join(append(p.Confirm.Losses, p.Confirm.Warnings...), "\n")
	if !strings.Contains(shown, "2 untracked") || !strings.Contains(shown, "closes tmux window "+ws) {
		t.Fatalf("the confirmation does not show what is at risk:\n%s", shown)
	}
	time.Sleep(10 * time.Second)
	if _, err := s.Execute(bg, p); err != nil {
		t.Fatalf("a yes given 10 s later, with nothing the person decides on changed: %v", err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", wt, err)
	}
	if w.windowOf(t, wt) != "" {
		t.Errorf("window %s is still marked", ws)
	}
}

// A remove typed in another pane of the worktree's own window is refused current_workspace
// (closing the window would close copse's pane), whatever runs in the window: copse and
// its shell are not reported as processes working there.
func TestTmuxRemoveFromAnotherPaneOfItsWindowIsCurrentWorkspace(t *testing.T) {
	w := newTW(t)
	out, err := do(t, w.open(t), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt, ws := out.Path, out.WorkspaceID
	w.srv.Run("send-keys", "-t", ws, "exec sleep 600", "Enter")
	w.srv.WaitFor("sleep in the pane", func() bool {
		return w.srv.Run("display-message", "-p", "-t", ws, "#{pane_current_command}") == "sleep"
	})
	pane := w.srv.Run("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", ws, "-c", "/", "--", "/bin/sh")
	before := w.Snapshot()
	for _, force := range []bool{false, true} {
		_, err := do(t, w.openAs(t, pane), core.RemoveRequest{Branch: core.Str("feat"), Force: force})
		wantCode(t, err, core.KindRefused, core.CodeCurrentWorkspace)
	}
	w.Unchanged(before)
	if w.windowOf(t, wt) != ws {
		t.Errorf("window %s was closed", ws)
	}
}

// When a create --run command ends, its window keeps the shell tmux starts in every
// window copse opens (default-shell, as a login shell), not a plain $SHELL.
func TestTmuxWindowsStartTheSameShell(t *testing.T) {
	w := newTW(t)
	bash := "/bin/bash"
	if _, err := os.Stat(bash); err != nil {
		t.Skip("needs a second shell:", err)
	}
	w.srv.Run("set-option", "-g", "default-shell", bash)
	w.srv.Run("set-environment", "-g", "SHELL", "/bin/sh")
	run, err := w.open(t).Do(core.WithTypedByPerson(bg), core.CreateRequest{Branch: "ran", Run: core.Str("echo ran-$((40+2))")}, false)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := do(t, w.open(t), core.CreateRequest{Branch: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{opened.WorkspaceID, run.WorkspaceID} {
		w.srv.WaitFor("bash in "+ws, func() bool {
			return w.srv.Run("display-message", "-p", "-t", ws, "#{pane_current_command}") == "bash"
		})
		w.srv.Run("send-keys", "-t", ws, "shopt -q login_shell && echo login-$((40+2))", "Enter")
		w.srv.WaitFor("a login bash in "+ws, func() bool { return strings.Contains(w.srv.Capture(ws), "login-42") })
	}
}

func runTmux(socket string, args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", socket}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
