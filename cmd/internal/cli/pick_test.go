//go:build linux

// TestPickQueryAndTyping drives the picker in a PTY (pty_linux_test.go).

package cli_test

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// --select-1 with exactly one match answers without a terminal (runWithSetsid has none):
// the picker is never drawn. With more matches the picker is needed, and says so.
func TestPickSelectOneWithoutDrawing(t *testing.T) {
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
	r := coretest.New(t)
	r.AddWorktree("feat/beta", "app.worktrees/beta")
	alpha := r.AddWorktree("feat/alpha", "app.worktrees/alpha")
	p := startInPTY(t, r, nil, "pick", "--query", "feat")
	p.waitScreen(t, "2/3") // the highlighted "feat" is drawn apart from the rest of the name
	// Keys are handled in order: the filter has narrowed to alpha when enter arrives.
	p.master.Write([]byte("/alp\r"))
	if code := p.wait(t); code != 0 || p.stdout.String() != alpha+"\n" {
		t.Fatalf("pick: exit %d, stdout %q, stderr %s", code, p.stdout.String(), strings.TrimSpace(p.stderr.String()))
	}
}
