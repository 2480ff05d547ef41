package cli_test

import (
	"strings"
	"testing"

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
