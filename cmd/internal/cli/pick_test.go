//go:build linux

// TestPickQueryAndTyping drives the picker in a PTY (pty_linux_test.go).

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// --select-1 with exactly one match answers without a terminal (runWithSetsid has none):
// the picker is never drawn. With more matches the picker is needed, and says so.
func TestPickSelectOneWithoutDrawing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	beta := r.AddWorktree("feat/beta", "app.worktrees/beta")
	r.AddWorktree("feat/alpha", "app.worktrees/alpha")
	res := runWithSetsid(t, r, r.Root, "pick", "--query", "beta", "--select-1")
	want(t, res, 0)
	if res.stdout != beta+"\n" {
		t.Fatalf("stdout = %q, want %s", res.stdout, beta)
	}
	res = runWithSetsid(t, r, r.Root, "--json", "pick", "-q", "alpha", "-1")
	want(t, res, 0, `"branch":"feat/alpha"`)
	res = runWithSetsid(t, r, r.Root, "pick", "--query", "feat", "--select-1")
	want(t, res, 1, "needs a terminal")
	if res.stdout != "" {
		t.Errorf("stdout = %q", res.stdout)
	}
}

// Typing filters at once: --query starts it, more typing narrows it, enter picks the best.
func TestPickQueryAndTyping(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/beta", "app.worktrees/beta")
	alpha := r.AddWorktree("feat/alpha", "app.worktrees/alpha")
	p := startInPTY(t, r, nil, "pick", "--query", "feat")
	p.waitScreen(t, "2/3") // the highlighted "feat" is drawn apart from the rest of the name
	// Keys are handled in order: the filter has narrowed to alpha when enter arrives.
	p.keys(t, "/alp\r")
	if code := p.wait(t); code != 0 || p.stdout.String() != alpha+"\n" {
		t.Fatalf("pick: exit %d, stdout %q, stderr %s", code, p.stdout.String(), strings.TrimSpace(p.stderr.String()))
	}
}

// A worktree created in pick mode is the pick: `copse pick`, tab (to the list), n, a new
// branch, enter prints the new worktree's path (--json: its row) and exits 0, as pi's
// /worktree needs. The form has no "switch to it" toggle there (pick never switches);
// with a setup configured, the pick comes once the setup has run.
func TestPickCreatesAndPicksTheNewWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	p := startInPTY(t, r, nil, "pick")
	p.waitScreen(t, "main")
	p.keys(t, "\tn")
	p.waitScreen(t, "the new worktree is the pick")
	p.keys(t, "feat/made\r")
	code := p.wait(t)
	path := strings.TrimSuffix(p.stdout.String(), "\n")
	if code != 0 || path == "" || strings.Contains(path, "\n") {
		t.Fatalf("pick after create: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}
	if b := strings.TrimSpace(r.Git(path, "rev-parse", "--abbrev-ref", "HEAD")); b != "feat/made" {
		t.Fatalf("the picked path %s has %s checked out, want the new feat/made", path, b)
	}
	p.mu.Lock()
	offersSwitch := strings.Contains(p.screen.String(), "switch to it after create")
	p.mu.Unlock()
	if offersSwitch {
		t.Error("pick mode's create form offers a switch it never makes")
	}

	r.Git(r.Root, "config", "copse.setup", "touch setup-ran")
	p = startInPTY(t, r, nil, "--json", "pick")
	p.waitScreen(t, "feat/made")
	p.keys(t, "\tn")
	p.waitScreen(t, "the new worktree is the pick")
	p.keys(t, "feat/set\r")
	if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), `"branch":"feat/set"`) {
		t.Fatalf("pick --json after create with setup: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}
	var row struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(row.Path, "setup-ran")); err != nil {
		t.Fatalf("picked before the setup ran: %v", err)
	}
}

// A blocked land shows on its row from the start, as after `r`: the picker reads the
// list before it starts (core.Open), and that path must bring the land jobs too.
func TestPickerShowsABlockedLandWithoutRefresh(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/gate")
	want(t, run(t, r, r.Root, "land", "feat/gate", "--test", "false"), 1, "test_failed")
	p := startInPTY(t, r, nil)
	p.waitScreen(t, "blocked: test_failed")
	p.keys(t, "q")
	if code := p.wait(t); code != 0 {
		t.Fatalf("picker: exit %d, stderr %s", code, p.stderr.String())
	}
}

// The picker counts as people do: task-2 comes before task-10 (git and a byte order put
// task-10 first), so two steps down from main is task-2.
func TestPickerSortsNumbersNaturally(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("task-10", "app.worktrees/task-10")
	two := r.AddWorktree("task-2", "app.worktrees/task-2")
	r.AddWorktree("task-1", "app.worktrees/task-1")
	p := startInPTY(t, r, nil, "pick")
	p.waitScreen(t, "task-10")
	p.keys(t, "\x1b[B\x1b[B\r") // down, down, enter
	if code := p.wait(t); code != 0 || p.stdout.String() != two+"\n" {
		t.Fatalf("pick: exit %d, stdout %q (want task-2's %s), stderr %s", code, p.stdout.String(), two, p.stderr.String())
	}
}

// A setup that fails keeps the worktree (as everywhere) and its log open instead of the
// pick; closing the log returns to the list with the new worktree selected, and enter
// picks it.
func TestPickCreateWithAFailingSetup(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.setup", "false")
	p := startInPTY(t, r, nil, "pick")
	p.waitScreen(t, "main")
	p.keys(t, "\tn")
	p.waitScreen(t, "the new worktree is the pick")
	p.keys(t, "feat/bad\r")
	p.waitScreen(t, "failed; the worktree stays")
	p.keys(t, "q\r") // q closes the log; enter picks the selected row
	code := p.wait(t)
	path := strings.TrimSuffix(p.stdout.String(), "\n")
	if code != 0 || path == "" {
		t.Fatalf("pick after a failed setup: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}
	if b := strings.TrimSpace(r.Git(path, "rev-parse", "--abbrev-ref", "HEAD")); b != "feat/bad" {
		t.Fatalf("picked %s (%s), want the new feat/bad", path, b)
	}
}
