package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// create --run typed at the command line, inside tmux (a private server): the command
// starts in the new worktree's window without asking again, and the worktree is claimed.
func TestCLICreateRunStartsTheCommandInItsWindow(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	var env []string
	for k, v := range srv.Env() {
		env = append(env, k+"="+v)
	}
	res := runWith(t, r, r.Root, env, nil, "create", "feat/run", "--run", `echo started-$((40+2)) {branch}; exec sleep 600`, "--json")
	want(t, res, 0)
	for _, w := range []string{`"workspace_id":"@`, `"session":"agent:feat-run"`} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("reply lacks %s:\n%s", w, res)
		}
	}
	var ws string
	for _, l := range srv.Windows() {
		if id, mark, _ := strings.Cut(l, "\t"); strings.HasSuffix(mark, "/feat-run") {
			ws = id
		}
	}
	if ws == "" {
		t.Fatalf("no window is marked for the new worktree: %v", srv.Windows())
	}
	srv.WaitFor("the command's output", func() bool { return strings.Contains(srv.Capture(ws), "started-42 feat/run") })
}

// Outside tmux, --run is refused before anything changes: it never runs in the foreground.
func TestCLICreateRunOutsideTmuxIsRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat/run", "--run", "touch started")
	want(t, res, 1, "foreground", "tmux")
	r.Unchanged(before)
}

// inPane runs copse args in window's pane as a person types it there: the pane's shell
// runs a script (the test's clean environment, TMUX and TMUX_PANE as tmux set them), which
// runs copse in dir. It returns copse's stdout once the script has written its exit code.
func inPane(t *testing.T, srv *tmuxtest.Server, r *coretest.Repo, window, dir string, args ...string) (string, int) {
	t.Helper()
	tmp := t.TempDir()
	var sb strings.Builder
	for _, kv := range cleanEnv(r.Home) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&sb, "export %s=%s\n", k, shq(v))
	}
	fmt.Fprintf(&sb, "cd %s || exit 1\n", shq(dir))
	argv := []string{shq(copseBin)}
	for _, a := range args {
		argv = append(argv, shq(a))
	}
	out, rc := filepath.Join(tmp, "out"), filepath.Join(tmp, "rc")
	fmt.Fprintf(&sb, "%s >%s 2>&1; echo $? >%s.tmp; mv %s.tmp %s\n", strings.Join(argv, " "), shq(out), shq(rc), shq(rc), shq(rc))
	script := filepath.Join(tmp, "run.sh")
	if err := os.WriteFile(script, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Run("send-keys", "-t", window, "sh "+shq(script), "Enter")
	var code []byte
	srv.WaitFor("copse "+strings.Join(args, " ")+" in window "+window, func() bool {
		var err error
		code, err = os.ReadFile(rc)
		return err == nil
	})
	b, _ := os.ReadFile(out)
	n, _ := strconv.Atoi(strings.TrimSpace(string(code)))
	return string(b), n
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func tmuxEnv(srv *tmuxtest.Server) []string {
	var env []string
	for k, v := range srv.Env() {
		env = append(env, k+"="+v)
	}
	return env
}

// A land typed in the landed worktree's own window finishes its clean-up: the worktree
// and its branch go, the reply says the window closes, and tmux closes it once copse has
// answered; copse and the shell that started it are not processes that keep it.
func TestCLILandFromItsOwnWindowCleansUpAndClosesTheWindow(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	res := runWith(t, r, r.Root, tmuxEnv(srv), nil, "create", "feat", "--json")
	want(t, res, 0)
	var created struct {
		Path        string `json:"path"`
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &created); err != nil || created.WorkspaceID == "" {
		t.Fatalf("create: %v\n%s", err, res)
	}
	wt, ws := created.Path, created.WorkspaceID
	coretest.WriteFile(t, filepath.Join(wt, "f.txt"), "f\n")
	r.Git(wt, "add", "f.txt")
	r.Git(wt, "commit", "-q", "-m", "f")
	srv.Idle(ws)
	out, code := inPane(t, srv, r, ws, wt, "land", "feat", "--json")
	if code != 0 {
		t.Fatalf("land in its own window: exit %d\n%s", code, out)
	}
	for _, w := range []string{`"worktree_removed":true`, `"branch_deleted":true`, "closes tmux window " + ws} {
		if !strings.Contains(out, w) {
			t.Errorf("reply lacks %s:\n%s", w, out)
		}
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the landed worktree %s is still there: %v", wt, err)
	}
	srv.WaitFor("window "+ws+" to close", func() bool {
		return !strings.Contains(srv.Run("list-windows", "-a", "-F", "#{window_id}"), ws)
	})
}

// A remove typed in another pane of the worktree's own window is refused current_workspace,
// forced or not, and changes nothing: copse and the shell it was typed in are not counted
// as processes working there.
func TestCLIRemoveFromAnotherPaneOfItsWindowIsCurrentWorkspace(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv := tmuxtest.Start(t)
	res := runWith(t, r, r.Root, tmuxEnv(srv), nil, "create", "feat", "--json")
	want(t, res, 0)
	var created struct {
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &created); err != nil || created.WorkspaceID == "" {
		t.Fatalf("create: %v\n%s", err, res)
	}
	ws := created.WorkspaceID
	// Its first pane runs a program: the refusal is still current_workspace, not
	// processes_running (which it would be if what works there were judged first).
	srv.Run("send-keys", "-t", ws, "exec sleep 600", "Enter")
	srv.WaitFor("sleep in the pane", func() bool {
		return srv.Run("display-message", "-p", "-t", ws, "#{pane_current_command}") == "sleep"
	})
	pane := srv.Run("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", ws, "-c", r.Root, "--", "/bin/sh")
	srv.Idle(pane)
	before := r.Snapshot()
	for _, force := range []bool{false, true} {
		args := []string{"remove", "feat", "--yes", "--json"}
		if force {
			args = append(args, "--force")
		}
		out, code := inPane(t, srv, r, pane, r.Root, args...)
		if code != 1 || !strings.Contains(out, `"code":"current_workspace"`) {
			t.Fatalf("remove (force %v) from another pane of its window: exit %d\n%s", force, code, out)
		}
	}
	r.Unchanged(before)
}

// copse list shows Claude Code's lock as the claim of its session while the session runs,
// in text and in --json, and as a stale lock once it ended.
func TestCLIListShowsAClaudeLockAsItsSessionsClaim(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pid := coretest.StartLive(t, t.TempDir(), "sleep", "600")
	time.Sleep(20 * time.Millisecond)
	wt := r.AddWorktree("claude-fox", ".claude/worktrees/fox")
	r.Git(r.Root, "worktree", "lock", "--reason", fmt.Sprintf("claude session fox (pid %d)", pid), wt)
	want(t, run(t, r, r.Root, "list"), 0, "⚑ claude:fox")
	want(t, run(t, r, r.Root, "list", "--json"), 0, `"session":"claude:fox"`, `"agent":"claude"`, fmt.Sprintf(`"pid":%d`, pid))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if res := run(t, r, r.Root, "list", "--json"); strings.Contains(res.stdout, `"lock_stale":true`) {
			break
		}
	}
	res := run(t, r, r.Root, "list")
	want(t, res, 0, "locked (stale)")
	if strings.Contains(res.stdout, "⚑ claude:fox") {
		t.Errorf("an ended session still shows as a claim:\n%s", res)
	}
}

// A remove refused for several reasons says them all, in text and with --json each with its
// code, and changes nothing.
func TestCLIRemoveRefusalListsEveryReason(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	coretest.WriteFile(t, filepath.Join(wt, "notes.txt"), "draft\n")
	r.Git(r.Root, "worktree", "lock", "--reason", "on a usb disk", wt)
	before := r.Snapshot()
	res := run(t, r, r.Root, "remove", "feat", "--yes", "--json")
	want(t, res, 1, `"code":"locked_worktree"`, `"reasons":[{"code":"locked_worktree"`, `{"code":"dirty_worktree"`, "2 reasons")
	res = run(t, r, r.Root, "remove", "feat", "--yes")
	want(t, res, 1, "on a usb disk", "uncommitted changes")
	r.Unchanged(before)
}

// runServer is a private tmux server whose windows get the test's clean environment (the
// wrapper of a --run window runs copse there).
func runServer(t *testing.T, r *coretest.Repo) (*tmuxtest.Server, []string) {
	srv := tmuxtest.Start(t)
	// Before the repository goes: a wrapper's copse may still write its event or notify.
	t.Cleanup(func() { waitWrappers(t, r) })
	for _, kv := range cleanEnv(r.Home) {
		k, v, _ := strings.Cut(kv, "=")
		srv.Run("set-environment", "-g", k, v)
	}
	for _, k := range []string{"XDG_STATE_HOME", "COPSE_STATE_DIR", "COPSE_SESSION"} {
		srv.Run("set-environment", "-gu", k)
	}
	var env []string
	for k, v := range srv.Env() {
		env = append(env, k+"="+v)
	}
	return srv, env
}

// runRecord is the wrapper's record of session, once it has the state want.
func runRecord(t *testing.T, srv *tmuxtest.Server, r *coretest.Repo, session, want string) agentstate.Record {
	t.Helper()
	dir := agentstate.Dir(func(k string) string {
		if k == "HOME" {
			return r.Home
		}
		return ""
	})
	var got agentstate.Record
	srv.WaitFor("the wrapper's "+want+" record of "+session, func() bool {
		recs, _ := agentstate.ReadAll(dir)
		for _, rec := range recs {
			if rec.Session == session && rec.State == want {
				got = rec
				return true
			}
		}
		return false
	})
	return got
}

func lockedIn(t *testing.T, r *coretest.Repo, path string) bool {
	t.Helper()
	out := r.Git(r.Root, "worktree", "list", "--porcelain")
	for _, block := range strings.Split(out, "\n\n") {
		if strings.HasPrefix(block, "worktree "+path+"\n") {
			return strings.Contains(block, "\nlocked")
		}
	}
	t.Fatalf("git does not list %s:\n%s", path, out)
	return false
}

// When a --run command ends, its wrapper records done with the exit status, logs an
// agent.state event ending in done, releases the claim the create took, and rings the
// bell of its window (nobody looks at it: the test's session has no client); the window
// keeps a shell.
func TestCLIRunEndRecordsDoneLogsItAndReleasesTheClaim(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/end", "--run", `sh -c "sleep 1.5; exit 3"`, "--json")
	want(t, res, 0, `"session":"agent:feat-end"`)
	if strings.Contains(res.stdout, "did not start") {
		t.Fatalf("a command that ran 1.5 s is reported as a failed start:\n%s", res)
	}
	path := filepath.Join(r.Base, "app.worktrees", "feat-end")
	rec := runRecord(t, srv, r, "agent:feat-end", agentstate.Done)
	if rec.ExitCode == nil || *rec.ExitCode != 3 || rec.Source != agentstate.SourceWrapper || rec.Agent != "run" || rec.Program != "sh" {
		t.Errorf("done record = %+v, want exit 3 from the wrapper, program sh", rec)
	}
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, path) })
	var events result
	srv.WaitFor("the release's event", func() bool {
		events = run(t, r, r.Root, "events", "--json")
		return strings.Contains(events.stdout, `"event":"worktree.released"`)
	})
	want(t, events, 0)
	var done, released int
	for _, l := range strings.Split(strings.TrimSpace(events.stdout), "\n") {
		if strings.Contains(l, `"event":"agent.state"`) && strings.Contains(l, `"state":"done","previous":"working","exit_code":3`) {
			done++
		}
		if strings.Contains(l, `"event":"worktree.released"`) && strings.Contains(l, `"session":"agent:feat-end"`) {
			released = done
		}
	}
	if done != 1 || released != 1 {
		t.Errorf("want one agent.state … -> done event, then the release:\n%s", events.stdout)
	}
	var ws string
	for _, l := range srv.Windows() {
		if id, mark, _ := strings.Cut(l, "\t"); strings.HasSuffix(mark, "/feat-end") {
			ws = id
		}
	}
	if ws == "" {
		t.Fatalf("no window of the ended agent: %v", srv.Windows())
	}
	// The bell comes last, after the release.
	srv.WaitFor("the bell of the ended agent's window", func() bool {
		return srv.Run("display-message", "-p", "-t", ws, "#{window_bell_flag}") == "1"
	})
}

// A command line that ends the wrapper itself (`exit N`) is still reported: its EXIT trap
// records done with that status.
func TestCLIRunThatExitsTheWrapperIsStillReported(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/exit", "--run", "sleep 1.2; exit 4", "--json")
	want(t, res, 0)
	rec := runRecord(t, srv, r, "agent:feat-exit", agentstate.Done)
	if rec.ExitCode == nil || *rec.ExitCode != 4 {
		t.Errorf("done record = %+v, want exit 4", rec)
	}
	path := filepath.Join(r.Base, "app.worktrees", "feat-exit")
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, path) })
}

// A --run command whose program does not exist ends at once: create's reply says the
// agent did not start, with the exit code, and the claim it took does not stay live.
func TestCLIRunOfAMissingProgramIsAFailedStart(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/gone", "--run", "copse-no-such-program-42", "--json")
	want(t, res, 0, "did not start", "exit 127")
	path := filepath.Join(r.Base, "app.worktrees", "feat-gone")
	srv.WaitFor("the claim's release", func() bool { return !lockedIn(t, r, path) })
}

// A window closed while its agent still runs never reports the end: the claim's wrapper is
// gone, so the listing shows the claim as ended and remove goes ahead without --force.
func TestCLIClaimOfAClosedRunWindowBindsNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/closed", "--run", "sleep 600", "--json")
	want(t, res, 0)
	runRecord(t, srv, r, "agent:feat-closed", agentstate.Working)
	path := filepath.Join(r.Base, "app.worktrees", "feat-closed")
	for _, l := range srv.Windows() {
		if id, mark, _ := strings.Cut(l, "\t"); strings.HasSuffix(mark, "/feat-closed") {
			srv.Run("kill-window", "-t", id)
		}
	}
	if !lockedIn(t, r, path) {
		t.Fatal("the claim went away with the window; this test needs it left behind")
	}
	srv.WaitFor("the listing to call the claim ended", func() bool {
		l := runWith(t, r, r.Root, env, nil, "list", "--json")
		return strings.Contains(l.stdout, `"session":"agent:feat-closed"`) && strings.Contains(l.stdout, `"ended":true`)
	})
	rm := runWith(t, r, r.Root, env, nil, "remove", "feat/closed", "--yes")
	want(t, rm, 0)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s is still there after remove: %v\n%s", path, err, rm)
	}
}

// copse is never counted as an agent: a window where copse itself runs (here list --watch,
// as the picker would) shows no agent on its worktree's row.
func TestCLICopseInAWindowIsNoAgent(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/watch", "--run", shq(copseBin)+" list --watch", "--json")
	want(t, res, 0)
	path := filepath.Join(r.Base, "app.worktrees", "feat-watch")
	var ws string
	for _, l := range srv.Windows() {
		if id, mark, _ := strings.Cut(l, "\t"); mark == path {
			ws = id
		}
	}
	srv.WaitFor("copse's listing in the window", func() bool { return strings.Contains(srv.Capture(ws), "feat/watch") })
	l := runWith(t, r, r.Root, env, nil, "list", "--status", "--json")
	want(t, l, 0)
	if strings.Contains(l.stdout, `"command":"copse"`) || strings.Contains(l.stdout, `"agents"`) {
		t.Errorf("copse in a window counts as an agent:\n%s", l.stdout)
	}
}

// waitWrappers waits (a bounded while) until no `copse agent-run` of this test binary's
// copse runs for r any more. A wrapper is r's when its HOME is r's (runServer gives the
// server's windows r's environment): the tests run in parallel, and another test's
// wrappers are not this one's to wait for.
func waitWrappers(t *testing.T, r *coretest.Repo) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !wrapperRuns(r.Home) {
			return
		}
	}
	t.Log("a copse agent-run still runs after 20 s")
}

func wrapperRuns(home string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if args := strings.Split(string(b), "\x00"); len(args) < 2 || args[0] != copseBin || args[1] != "agent-run" {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), "HOME="+home) {
			return true
		}
	}
	return false
}
