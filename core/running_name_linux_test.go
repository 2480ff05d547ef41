package core_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// A program working in a worktree that says nothing of itself (no hooks, no registry) is
// listed running under the name a person knows it by, from its argv — Claude Code as npm
// installs it is `node …/@anthropic-ai/claude-code/cli.js`: claude, not node — and since
// its process started.
func TestRunningAgentIsNamedFromItsArgvAndRunsSinceItStarted(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the stand-in agent is a Node script; node is not installed:", err)
	}
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("npm", "wt-npm")
	cli := filepath.Join(r.Base, "lib", "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	coretest.WriteFile(t, cli, "setTimeout(() => {}, 600000);\n")
	began := time.Now()
	pid := coretest.StartLive(t, wt, node, cli)
	s, err := core.Open(bg, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	var got []core.Agent
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = agentsOf(t, s, wt); len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || got[0].PID != pid || got[0].Command != "claude" || got[0].State != core.AgentRunning {
		t.Fatalf("agents %+v; want claude (pid %d) running", got, pid)
	}
	if since := got[0].Since; since.Before(began.Add(-2*time.Second)) || since.After(time.Now()) {
		t.Errorf("since %v; want its process's start, after %v", since, began)
	}
}
