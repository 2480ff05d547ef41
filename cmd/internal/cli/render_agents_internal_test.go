package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/eventlog"
)

// agentRows are worktrees with agents in every state a row shows.
func agentRows() *core.Listing {
	two, zero := 2, 0
	w1, w2, w3 := "@1", "@2", "@3"
	return &core.Listing{Worktrees: []core.Worktree{
		{Branch: "main", Path: "/src/app", Main: true, Current: true, Head: "0123456789abcdef", Status: &core.Status{}},
		{Branch: "agent/a", Path: "/src/app.worktrees/agent-a", Head: "1123456789abcdef", WorkspaceID: &w1, Status: &core.Status{Unstaged: 2},
			Agents: []core.Agent{{Command: "claude", State: core.AgentBlocked, Workspace: w1, Source: "hook"}}},
		{Branch: "agent/b", Path: "/src/app.worktrees/agent-b", Head: "2123456789abcdef", WorkspaceID: &w2, Status: &core.Status{},
			Claim:  &core.Claim{Session: "agent:agent-b", Ended: true},
			Agents: []core.Agent{{Command: "copse-run", State: core.AgentDone, ExitCode: &two, Unread: true, Workspace: w2, Source: "wrapper"}}},
		{Branch: "agent/c", Path: "/src/app.worktrees/agent-c", Head: "3123456789abcdef", WorkspaceID: &w3, Status: &core.Status{Ahead: 1},
			Agents: []core.Agent{{Command: "pi", State: core.AgentWorking, Workspace: w3}, {Command: "/bin/sh", State: core.AgentIdle, Workspace: w3},
				{Command: "codex", State: core.AgentDone, ExitCode: &zero, Workspace: w3}}},
	}}
}

// list --status names every agent's state on its row, with its program (never copse's
// wrapper or a shell) and a done agent's non-zero exit code; on a terminal (80 cells,
// colour) the words are painted by kind. Pinned: plain piped output and the coloured one.
func TestRenderListNamesEveryAgentsState(t *testing.T) {
	t.Parallel()
	var plain bytes.Buffer
	if err := renderList(&plain, agentRows(), "", false, 0); err != nil {
		t.Fatal(err)
	}
	want := "* main     /src/app                    main ✓\n" +
		"  agent/a  /src/app.worktrees/agent-a  [@1] claude needs you ✚2\n" +
		"  agent/b  /src/app.worktrees/agent-b  ⚑ agent:agent-b (ended) [@2] ● done (exit 2) ✓\n" +
		"  agent/c  /src/app.worktrees/agent-c  [@3] pi working idle codex done ↑1\n"
	if plain.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", plain.String(), want)
	}
	if strings.Contains(plain.String(), "copse-run") || strings.Contains(plain.String(), "/bin/sh") {
		t.Fatalf("the wrapper's text shows:\n%s", plain.String())
	}
	var colour bytes.Buffer
	if err := renderList(&colour, agentRows(), "", true, 80); err != nil {
		t.Fatal(err)
	}
	// At 80 cells the paths give way to the words (cut in the middle, leaf kept).
	wantColour := "* \x1b[1m\x1b[32mmain   \x1b[0m  \x1b[2m/src/app             \x1b[0m  \x1b[36mmain\x1b[0m \x1b[32m✓\x1b[0m\n" +
		"  agent/a  \x1b[2m/src/…/agent-a       \x1b[0m  \x1b[36m[@1]\x1b[0m \x1b[31mclaude needs you\x1b[0m \x1b[33m✚2\x1b[0m\n" +
		"  agent/b  \x1b[2m/src/…/agent-b       \x1b[0m  \x1b[33m⚑ agent:agent-b (ended)\x1b[0m \x1b[36m[@2]\x1b[0m \x1b[1m\x1b[32m● done (exit 2)\x1b[0m \x1b[32m✓\x1b[0m\n" +
		"  agent/c  \x1b[2m/src/…/agent-c       \x1b[0m  \x1b[36m[@3]\x1b[0m \x1b[36mpi working\x1b[0m \x1b[2midle\x1b[0m \x1b[32mcodex done\x1b[0m ↑1\n"
	if colour.String() != wantColour {
		t.Errorf("coloured, 80 cells:\n%q\nwant:\n%q", colour.String(), wantColour)
	}
}

// copse events shows a done agent's exit status.
func TestEventLineOfADoneAgentShowsItsExit(t *testing.T) {
	code := 3
	ev := core.Event{Seq: 2, Time: "2026-01-02T03:04:09Z", Event: core.EventAgentState,
		Worktree: &core.EventWorktree{Path: "/w", Branch: "feat"},
		Agent:    &eventlog.Agent{PID: 7, Command: "claude", State: "done", Previous: "working", ExitCode: &code}}
	if got := eventLine(ev, ""); !strings.Contains(got, " working->done exit=3 command=claude pid=7") {
		t.Errorf("event line %q", got)
	}
}
