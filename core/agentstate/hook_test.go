package agentstate

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestStateOfHookEvents: each agent's lifecycle event says the state issue 28 names —
// prompt and tools working, a permission or question blocked, stop idle, session end gone
// — and an event that says nothing (an idle notification, a subagent's stop) keeps the
// last word.
func TestStateOfHookEvents(t *testing.T) {
	cases := []struct {
		name, event string
		p           Payload
		want        string
		ok          bool
	}{
		{"claude prompt", "", Payload{HookEventName: "UserPromptSubmit"}, Working, true},
		{"claude tool", "", Payload{HookEventName: "PreToolUse"}, Working, true},
		{"claude after an answered prompt", "", Payload{HookEventName: "PostToolUse"}, Working, true},
		{"claude permission", "", Payload{HookEventName: "Notification", NotificationType: "permission_prompt"}, Blocked, true},
		{"claude question", "", Payload{HookEventName: "Notification", NotificationType: "elicitation_dialog"}, Blocked, true},
		{"claude permission, no type", "", Payload{HookEventName: "Notification", Message: "Claude needs your permission to use Bash"}, Blocked, true},
		{"claude idle notification", "", Payload{HookEventName: "Notification", NotificationType: "idle_prompt", Message: "Claude is waiting for your input"}, "", false},
		{"claude question (no Notification)", "", Payload{HookEventName: "PreToolUse", ToolName: "AskUserQuestion"}, Blocked, true},
		{"claude plan to approve", "", Payload{HookEventName: "PreToolUse", ToolName: "ExitPlanMode"}, Blocked, true},
		{"claude question answered", "", Payload{HookEventName: "PostToolUse", ToolName: "AskUserQuestion"}, Working, true},
		{"claude permission request", "", Payload{HookEventName: "PermissionRequest"}, Blocked, true},
		{"claude stop", "", Payload{HookEventName: "Stop"}, Idle, true},
		{"claude subagent stop", "", Payload{HookEventName: "SubagentStop"}, "", false},
		{"claude end", "", Payload{HookEventName: "SessionEnd"}, Gone, true},
		{"event from argv", "Stop", Payload{}, Idle, true},
		{"payload wins over argv", "Stop", Payload{HookEventName: "UserPromptSubmit"}, Working, true},
		{"gemini permission", "", Payload{HookEventName: "Notification", NotificationType: "ToolPermission"}, Blocked, true},
		{"gemini turn over", "", Payload{HookEventName: "AfterAgent"}, Idle, true},
		{"pi tool call", "tool_call", Payload{}, Working, true},
		{"pi agent end", "agent_end", Payload{}, Idle, true},
		{"extension says it", "whatever", Payload{State: Blocked}, Blocked, true},
		{"unknown state word ignored", "Stop", Payload{State: "sleeping"}, Idle, true},
		{"unknown event", "Frobnicate", Payload{}, "", false},
	}
	for _, c := range cases {
		got, ok := StateOf(c.event, c.p)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: StateOf(%q, %+v) = %q, %v; want %q, %v", c.name, c.event, c.p, got, ok, c.want, c.ok)
		}
	}
}

// TestParsePayloadClaudeCode reads a payload as Claude Code sends it (extra keys ignored).
func TestParsePayloadClaudeCode(t *testing.T) {
	p := ParsePayload([]byte(`{"session_id":"abc-123","transcript_path":"/h/.claude/projects/x/abc-123.jsonl","cwd":"/repo/wt","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`))
	if p.SessionID != "abc-123" || p.Cwd != "/repo/wt" || p.HookEventName != "Notification" || p.NotificationType != "permission_prompt" {
		t.Fatalf("payload = %+v", p)
	}
	if q := ParsePayload([]byte("not json")); q != (Payload{}) {
		t.Fatalf("garbage gave %+v", q)
	}
}

// TestExtensionEventsMapAsCopseDoes: every event copse's pi and omp extension reports
// (EVENT_STATES in assets/pi/worktree.ts) says the same state through the event name
// alone as the payload says outright, so a payload lost at the host's exit still counts.
func TestExtensionEventsMapAsCopseDoes(t *testing.T) {
	src, err := os.ReadFile("../../assets/pi/worktree.ts")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "const EVENT_STATES: Record<string, string> = {")
	block, _, ok2 := strings.Cut(block, "};")
	if !ok || !ok2 {
		t.Fatal("no EVENT_STATES table in assets/pi/worktree.ts")
	}
	pairs := regexp.MustCompile(`(\w+): "(\w+)"`).FindAllStringSubmatch(block, -1)
	if len(pairs) < 5 {
		t.Fatalf("EVENT_STATES has %d entries: %q", len(pairs), block)
	}
	for _, m := range pairs {
		if got, ok := StateOf(m[1], Payload{}); !ok || got != m[2] {
			t.Errorf("extension event %s means %s, copse hook reads %q, %v", m[1], m[2], got, ok)
		}
		if got, ok := StateOf(m[1], Payload{State: m[2]}); !ok || got != m[2] {
			t.Errorf("payload state %s of %s read as %q", m[2], m[1], got)
		}
	}
}
