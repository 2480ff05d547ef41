package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
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

// runServer is a private tmux server whose windows get the test's clean environment (the
// wrapper of a --run window runs copse there).
func runServer(t *testing.T, r *coretest.Repo) (*tmuxtest.Server, []string) {
	srv := tmuxtest.Start(t)
	// Before the repository goes: a wrapper's copse may still write its event or notify.
	t.Cleanup(func() { waitWrappers(t) })
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
	r := coretest.New(t)
	srv, env := runServer(t, r)
	res := runWith(t, r, r.Root, env, nil, "create", "feat/watch", "--run", textsafeQuote(copseBin)+" list --watch", "--json")
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

func textsafeQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// waitWrappers waits (a bounded while) until no `copse agent-run` of this test binary's
// copse runs any more.
func waitWrappers(t *testing.T) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		running := false
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil {
				continue
			}
			if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[0] == copseBin && args[1] == "agent-run" {
				running = true
				break
			}
		}
		if !running {
			return
		}
	}
	t.Log("a copse agent-run still runs after 20 s")
}
