package core

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/gitx"
)

func TestRunProgramIsTheCommandsFirstProgram(t *testing.T) {
	for raw, want := range map[string]string{
		"claude --resume":      "claude",
		"/usr/local/bin/pi -p": "pi",
		"FOO=1 BAR=2 codex":    "codex",
		"exec env X=1 omp":     "omp",
		"nohup gemini; echo":   "gemini",
		`"$HOME/bin/agent"`:    "",
		"(cd sub && claude)":   "",
		"claude&&":             "claude",
		"  ":                   "",
		"HOOK_LOG_DIR=/l node /npm/lib/node_modules/@anthropic-ai/claude-code/cli.js --resume": "claude",
		"node ./fake-agent.js claude; echo":                                                    "fake-agent",
		"python3 -u bot.py":                                                                    "bot",
	} {
		if got := runProgram(raw); got != want {
			t.Errorf("runProgram(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestClaimEndedByTheWrappersRecord(t *testing.T) {
	alive := func(pid int, _ uint64) bool { return pid == 10 }
	for _, c := range []struct {
		name string
		r    agentstate.Record
		want bool
	}{
		{"done", agentstate.Record{State: agentstate.Done}, true},
		{"working, process alive", agentstate.Record{State: agentstate.Working, PID: 10}, false},
		{"working, process gone", agentstate.Record{State: agentstate.Working, PID: 11}, true},
		{"working, no pid known", agentstate.Record{State: agentstate.Working}, false},
	} {
		if got := claimEndedBy(c.r, alive); got != c.want {
			t.Errorf("%s: claimEndedBy = %v, want %v", c.name, got, c.want)
		}
	}
}

// A claim whose --run command ended does not refuse a remove; any other lock still does.
func TestRuleNotLockedUnlessEnded(t *testing.T) {
	claim := FormatClaim(Claim{Session: "agent:x", Since: time.Now()})
	w := gitx.Worktree{Path: "/w", Branch: "x", Locked: &claim}
	if e := RuleNotLockedUnlessEnded(w, true); e != nil {
		t.Errorf("ended claim: %v, want no refusal", e)
	}
	if e := RuleNotLockedUnlessEnded(w, false); e == nil || e.Code != CodeClaimedWorktree {
		t.Errorf("live claim: %v, want %s", e, CodeClaimedWorktree)
	}
}

// A done record is a failed start when its command ran less than a second, by the
// wrapper's own times (not by when copse read them: a slow copse build or a loaded machine
// does not hide a quick exit, nor make a long run look quick).
func TestQuickEndWarningByHowLongTheCommandRan(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	code := func(n int) *int { return &n }
	for _, c := range []struct {
		name string
		r    agentstate.Record
		want string
	}{
		{"missing program", agentstate.Record{ExitCode: code(127), Started: t0, Time: t0.Add(20 * time.Millisecond)}, "exit 127: command not found"},
		{"quick exit 0", agentstate.Record{ExitCode: code(0), Started: t0, Time: t0.Add(900 * time.Millisecond)}, "(exit 0)"},
		{"ran long enough", agentstate.Record{ExitCode: code(1), Started: t0, Time: t0.Add(1500 * time.Millisecond)}, ""},
		{"start unknown", agentstate.Record{ExitCode: code(1), Time: t0}, ""},
	} {
		got := quickEndWarning(c.r)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
