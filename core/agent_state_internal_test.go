package core

import (
	"testing"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
)

func intp(n int) *int { return &n }

// TestDecideAgentFromItsWord pins what one record shows once the pull side has looked: a
// dead process is never working, a done command always carries its exit code and stays
// unread until read, an ended session shows nothing, and Claude Code's registry corrects a
// stale hook except that its idle never hides a hook's blocked.
func TestDecideAgentFromItsWord(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	hook := func(state string) agentstate.Record {
		return agentstate.Record{Agent: "claude", Session: "s1", PID: 42, Start: 7, Cwd: "/w", State: state,
			Source: agentstate.SourceHook, Time: t0, Since: t0, Program: "claude"}
	}
	later := &claudeSession{PID: 42, Status: "busy", UpdatedAt: t0.Add(time.Second).UnixMilli()}
	cases := []struct {
		name   string
		w      agentWord
		show   bool
		state  string
		source string
		exit   *int
		unread bool
		weak   bool
	}{
		{"working hook, alive", agentWord{rec: hook(agentstate.Working), alive: true}, true, AgentWorking, agentstate.SourceHook, nil, false, false},
		{"blocked hook, alive", agentWord{rec: hook(agentstate.Blocked), alive: true}, true, AgentBlocked, agentstate.SourceHook, nil, false, false},
		{"working hook, process gone", agentWord{rec: hook(agentstate.Working), alive: false}, false, "", "", nil, false, false},
		{"session ended", agentWord{rec: hook(agentstate.Gone), alive: true}, false, "", "", nil, false, false},
		{"registry newer corrects idle to working", agentWord{rec: hook(agentstate.Idle), alive: true, reg: later}, true, AgentWorking, agentstate.SourceRegistry, nil, false, false},
		{"registry older does not", agentWord{rec: hook(agentstate.Idle), alive: true,
			reg: &claudeSession{Status: "busy", UpdatedAt: t0.Add(-time.Second).UnixMilli()}}, true, AgentIdle, agentstate.SourceHook, nil, false, false},
		{"registry idle never hides blocked", agentWord{rec: hook(agentstate.Blocked), alive: true,
			reg: &claudeSession{Status: "idle", UpdatedAt: t0.Add(time.Second).UnixMilli()}}, true, AgentBlocked, agentstate.SourceHook, nil, false, false},
		{"registry waiting is blocked", agentWord{rec: hook(agentstate.Working), alive: true,
			reg: &claudeSession{Status: "waiting", UpdatedAt: t0.Add(time.Second).UnixMilli()}}, true, AgentBlocked, agentstate.SourceRegistry, nil, false, false},
		{"done, exit 0, process gone", agentWord{rec: agentstate.Record{Agent: "run", PID: 9, State: agentstate.Done, ExitCode: intp(0), Source: agentstate.SourceWrapper}},
			true, AgentDone, agentstate.SourceWrapper, intp(0), true, false},
		{"done, exit 3, read", agentWord{rec: agentstate.Record{Agent: "run", PID: 9, State: agentstate.Done, ExitCode: intp(3), Source: agentstate.SourceWrapper, Read: t0}},
			true, AgentDone, agentstate.SourceWrapper, intp(3), false, false},
		{"done without a code still has one", agentWord{rec: agentstate.Record{Agent: "run", State: agentstate.Done, Source: agentstate.SourceWrapper}},
			true, AgentDone, agentstate.SourceWrapper, intp(0), true, false},
		{"wrapper running is weak", agentWord{rec: agentstate.Record{Agent: "run", PID: 9, State: agentstate.Working, Source: agentstate.SourceWrapper}, alive: true},
			true, AgentWorking, agentstate.SourceWrapper, nil, false, true},
		{"unknown state word", agentWord{rec: hook("sleeping"), alive: true}, false, "", "", nil, false, false},
	}
	for _, c := range cases {
		a, weak, show := decideAgent(c.w)
		if show != c.show {
			t.Errorf("%s: show = %v, want %v", c.name, show, c.show)
			continue
		}
		if !show {
			continue
		}
		if a.State != c.state || a.Source != c.source || a.Unread != c.unread || weak != c.weak {
			t.Errorf("%s: got %+v weak=%v; want state %s source %s unread %v weak %v", c.name, a, weak, c.state, c.source, c.unread, c.weak)
		}
		if (a.ExitCode == nil) != (c.exit == nil) || (a.ExitCode != nil && *a.ExitCode != *c.exit) {
			t.Errorf("%s: exit code %v, want %v", c.name, a.ExitCode, c.exit)
		}
	}
}

// TestMergeAgentReplacesTheScreensReading: a record's agent takes the place of the entry
// the backend found for the same process (a pane above it, the process itself, Herdr's
// workspace entry) — one agent, not two — keeping the pane's pid and window; a weak word
// leaves a screen reading alone; an unmatched one is added.
func TestMergeAgentReplacesTheScreensReading(t *testing.T) {
	parentOf := map[int]int{42: 40} // the agent 42 runs below the pane's shell 40
	same := func(pid, entry int) bool { return pid == entry || parentOf[pid] == entry }
	hookAgent := Agent{PID: 42, Command: "claude", State: AgentBlocked, Source: agentstate.SourceHook}

	pane := []Agent{{PID: 40, Command: "node", State: AgentIdle, Workspace: "@3", Source: agentstate.SourceScreen}}
	got := mergeAgent(append([]Agent(nil), pane...), hookAgent, false, same)
	if len(got) != 1 || got[0].State != AgentBlocked || got[0].Source != agentstate.SourceHook || got[0].PID != 40 || got[0].Workspace != "@3" || got[0].Command != "claude" {
		t.Errorf("pane entry: %+v", got)
	}
	running := []Agent{{PID: 42, Command: "node", State: AgentRunning, Source: agentstate.SourceProcess}}
	if got := mergeAgent(running, hookAgent, false, same); len(got) != 1 || got[0].State != AgentBlocked {
		t.Errorf("running entry: %+v", got)
	}
	herdr := []Agent{{State: AgentWorking, Workspace: "w1", Source: agentstate.SourceHerdr}}
	if got := mergeAgent(herdr, hookAgent, false, same); len(got) != 1 || got[0].State != AgentBlocked || got[0].Workspace != "w1" {
		t.Errorf("herdr entry: %+v", got)
	}
	herdrAndRunning := []Agent{{State: AgentWorking, Workspace: "w1", Source: agentstate.SourceHerdr}, {PID: 42, Command: "node", State: AgentRunning, Source: agentstate.SourceProcess}}
	if got := mergeAgent(herdrAndRunning, hookAgent, false, same); len(got) != 1 || got[0].State != AgentBlocked || got[0].Workspace != "w1" || got[0].PID != 42 {
		t.Errorf("herdr entry and the same process running: %+v", got)
	}
	weak := Agent{PID: 42, Command: "claude", State: AgentWorking, Source: agentstate.SourceWrapper}
	// A screen reading named by the kernel's comm (not namedByArgv): the wrapper's name
	// is the better one; its state stays the screen's.
	if got := mergeAgent(append([]Agent(nil), pane...), weak, true, same); len(got) != 1 || got[0].State != AgentIdle || got[0].Source != agentstate.SourceScreen || got[0].Command != "claude" {
		t.Errorf("weak word over a screen reading: %+v", got)
	}
	unnamed := []Agent{{PID: 40, State: AgentIdle, Workspace: "@3", Source: agentstate.SourceScreen}}
	if got := mergeAgent(unnamed, weak, true, same); len(got) != 1 || got[0].Command != "claude" {
		t.Errorf("weak word over an unnamed screen reading: %+v", got)
	}
	// Where the screen saw nothing (a shell, or copse itself in the window), the wrapper's
	// running command adds no agent.
	if got := mergeAgent(nil, weak, true, same); len(got) != 0 {
		t.Errorf("weak word with no screen reading added %+v", got)
	}
	hooked := []Agent{{PID: 40, Command: "claude", State: AgentBlocked, Workspace: "@3", Source: agentstate.SourceHook}}
	wrapper := Agent{PID: 42, Command: "node", State: AgentWorking, Source: agentstate.SourceWrapper}
	if got := mergeAgent(hooked, wrapper, true, same); len(got) != 1 || got[0].Command != "claude" || got[0].State != AgentBlocked {
		t.Errorf("weak word over the agent's own record: %+v; want the hook's name and state kept", got)
	}
	byArgv := []Agent{{PID: 40, Command: "head", State: AgentBlocked, Workspace: "@3", Source: agentstate.SourceScreen, NamedByArgv: true}}
	guess := Agent{PID: 40, Command: "echo", State: AgentWorking, Source: agentstate.SourceWrapper}
	if got := mergeAgent(byArgv, guess, true, same); len(got) != 1 || got[0].Command != "head" || got[0].State != AgentBlocked {
		t.Errorf("weak word over a program named by its argv: %+v; want the running program's name", got)
	}
	other := []Agent{{PID: 7, Command: "vim", State: AgentRunning, Source: agentstate.SourceProcess}}
	if got := mergeAgent(other, hookAgent, false, same); len(got) != 2 || got[1].State != AgentBlocked {
		t.Errorf("unmatched: %+v", got)
	}
}
