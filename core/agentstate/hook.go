package agentstate

import (
	"encoding/json"
	"strings"
)

// Payload is what a hook command reads on stdin: the fields Claude Code, Codex and Gemini
// CLI send every hook (session_id, cwd, hook_event_name, and a notification's type and
// message), and those copse's own extensions and plugins add (pid, state).
type Payload struct {
	SessionID        string `json:"session_id"`
	Cwd              string `json:"cwd"`
	HookEventName    string `json:"hook_event_name"`
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`
	ToolName         string `json:"tool_name"`
	// PID is the agent's process, sent by copse's extensions (which run inside it); a
	// hook of the agent's own finds it as the nearest program above the hook's shell.
	PID int `json:"pid"`
	// State is said outright by copse's extensions (working, blocked, idle, gone).
	State string `json:"state"`
}

// ParsePayload reads a hook's stdin; an empty or unreadable one is an empty payload (the
// event named on the command line still says the state).
func ParsePayload(b []byte) Payload {
	var p Payload
	_ = json.Unmarshal(b, &p)
	return p
}

// extensionAgents report through copse's own code (pi and omp extensions, the opencode
// plugin); the others through the agent's own hooks.
var extensionAgents = map[string]bool{"pi": true, "omp": true, "opencode": true}

// SourceOf is where a record of agent written by `copse hook` came from.
func SourceOf(agent string) string {
	if extensionAgents[agent] {
		return SourceExtension
	}
	return SourceHook
}

// eventStates maps the events of every agent copse installs hooks or extensions for
// (docs/agents.md): Claude Code and Codex share their names, Gemini CLI has its own, and
// copse's pi, omp and opencode code sends the names of their hosts' events.
var eventStates = map[string]string{
	// Claude Code, Codex
	"SessionStart": Idle, "UserPromptSubmit": Working, "PreToolUse": Working,
	"PostToolUse": Working, "PostToolUseFailure": Working, "PreCompact": Working,
	"PermissionRequest": Blocked, "Stop": Idle, "SessionEnd": Gone,
	// Gemini CLI
	"BeforeAgent": Working, "BeforeTool": Working, "AfterTool": Working, "BeforeModel": Working,
	"AfterAgent": Idle,
	// pi, Oh My Pi (extension events)
	"agent_start": Working, "turn_start": Working, "tool_call": Working, "tool_execution_start": Working,
	"agent_end": Idle, "session_start": Idle, "session_shutdown": Gone, "input": Blocked,
	// opencode (plugin events)
	"session.busy": Working, "session.idle": Idle, "permission.asked": Blocked,
	"permission.updated": Blocked, "permission.replied": Working, "exit": Gone,
}

// blockingNotifications are the Notification types that wait for a person: Claude Code's
// permission prompt and MCP elicitation, Gemini CLI's tool permission. Claude Code's
// idle_prompt (a minute after Stop) says nothing Stop did not.
var blockingNotifications = map[string]bool{"permission_prompt": true, "elicitation_dialog": true, "ToolPermission": true}

// askingTools are Claude Code's tools that wait for the person's answer, for which it fires
// no Notification: a question (AskUserQuestion) and a plan to approve (ExitPlanMode).
var askingTools = map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true}

// StateOf is the state one hook call says: the payload's hook_event_name, else the event
// named on the command line. ok is false for an event that says nothing of the state
// (SubagentStop, an idle notification), so the record keeps its last word.
func StateOf(event string, p Payload) (string, bool) {
	switch p.State {
	case Working, Blocked, Idle, Gone:
		return p.State, true
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	if event == "Notification" {
		// Payload keys have differed from the docs: a permission prompt without its type
		// still says so in its message ("Claude needs your permission to use Bash").
		if blockingNotifications[p.NotificationType] ||
			(p.NotificationType == "" && strings.Contains(strings.ToLower(p.Message), "permission")) {
			return Blocked, true
		}
		return "", false
	}
	if event == "PreToolUse" && askingTools[p.ToolName] {
		return Blocked, true
	}
	s, ok := eventStates[event]
	return s, ok
}
