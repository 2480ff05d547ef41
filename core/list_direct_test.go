package core_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// copse list reads the worktree list from git's files, with no git process, and its state
// token is the one git's own list gives: an agent that passes it to a change is not refused
// as stale. The change itself reads git (a decision never rests on the display reading).
func TestListRunsNoGitAndItsTokenIsGits(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("a", filepath.Join(r.Base, "wt", "a"))
	trace := filepath.Join(r.Base, "git-trace")
	env := append(coretest.Env(r.Home), "GIT_TRACE="+trace)
	ctx := context.Background()
	getenv := func(k string) string { // without the suite's check against git, which runs git
		if k == core.VerifyDirectListEnv {
			return ""
		}
		return r.Getenv(k)
	}
	s, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: env, ListFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Worktrees) != 2 || l.Worktrees[1].Path != wt || l.Worktrees[1].ID != "a" {
		t.Fatalf("listed %+v", l.Worktrees)
	}
	if again, err := s.List(ctx, false); err != nil || again.Token != l.Token {
		t.Fatalf("a second list: %v, token %v then %v", err, l.Token, again.Token)
	}
	if b, err := os.ReadFile(trace); err == nil && len(b) > 0 {
		t.Fatalf("list started git:\n%s", b)
	}

	tok := string(l.Token)
	p, err := s.Prepare(ctx, core.RemoveRequest{Path: &wt, ExpectedStateToken: &tok})
	if err != nil {
		t.Fatalf("a remove with list's token was refused: %v", err)
	}
	if b, err := os.ReadFile(trace); err != nil || len(b) == 0 {
		t.Fatalf("the remove's checks did not read git: %v", err)
	}
	if _, err := s.Execute(ctx, p); err != nil {
		t.Fatalf("remove with list's token: %v", err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("worktree still there: %v", err)
	}
}
