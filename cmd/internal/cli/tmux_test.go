package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// create --run typed at the command line, inside tmux (a private server): the command
// starts in the new worktree's window without asking again, and the worktree is claimed.
func TestCLICreateRunStartsTheCommandInItsWindow(t *testing.T) {
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
