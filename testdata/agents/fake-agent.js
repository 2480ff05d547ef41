#!/usr/bin/env node
// A test agent that behaves as Claude Code, Codex and Gemini CLI do towards their hooks: a TUI with
// its terminal in raw mode (so it waits in epoll, as the real ones do, never in the
// kernel's terminal read), that reads its hooks from the agent's own settings file and runs
// every configured command through /bin/sh with the agent's real JSON payload on stdin,
// at each transition. Keys drive it (tmux send-keys):
//
//   p  a prompt: UserPromptSubmit, then PreToolUse (Bash)      -> working
//      (gemini: BeforeAgent, then BeforeTool)
//   a  a permission prompt: Notification permission_prompt (claude),
//      PermissionRequest (codex), Notification ToolPermission (gemini)   -> needs you
//   y  the tool ran: PostToolUse (gemini: AfterTool)           -> working
//   s  the turn is over: Stop (gemini: AfterAgent)             -> idle
//   q  exit: SessionEnd (claude, gemini), then the process ends
//
// After the hooks of an event ran it writes <HOOK_LOG_DIR>/<event> holding the time they
// finished (ms since the epoch), and prints "hooked <event>".
//
// usage: node fake-agent.js claude|codex|gemini
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const crypto = require("node:crypto");

const agent = process.argv[2] || "claude";
const home = process.env.HOME;
const settingsFile = {
	codex: path.join(process.env.CODEX_HOME || path.join(home, ".codex"), "hooks.json"),
	gemini: path.join(home, ".gemini", "settings.json"),
	claude: path.join(process.env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "settings.json"),
}[agent];
const gemini = agent === "gemini";
const logDir = process.env.HOOK_LOG_DIR || "";
const sessionId = crypto.randomUUID();
const cwd = process.cwd();
const transcript = path.join(home, `.${agent}`, "projects", sessionId + ".jsonl");

function hooksFor(event, toolName) {
	let settings;
	try {
		settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
	} catch {
		return [];
	}
	const groups = (settings.hooks && settings.hooks[event]) || [];
	const out = [];
	for (const g of groups) {
		const m = g.matcher;
		if (m && m !== "*" && toolName !== undefined && !new RegExp(`^(${m})$`).test(toolName)) continue;
		for (const h of g.hooks || []) if (h.type === "command" && h.command) out.push(h.command);
	}
	return out;
}

function fire(event, extra) {
	const payload = {
		session_id: sessionId,
		transcript_path: transcript,
		cwd,
		permission_mode: "default",
		hook_event_name: event,
		...extra,
	};
	if (agent === "codex") payload.model = "gpt-5-codex";
	if (gemini) payload.timestamp = new Date().toISOString();
	for (const command of hooksFor(event, extra.tool_name)) {
		spawnSync("/bin/sh", ["-c", command], {
			input: JSON.stringify(payload),
			env: { ...process.env, CLAUDE_PROJECT_DIR: cwd },
			stdio: ["pipe", "pipe", "pipe"],
			timeout: 60_000,
		});
	}
	if (logDir) fs.writeFileSync(path.join(logDir, event), String(Date.now()));
	process.stdout.write(`hooked ${event}\r\n`);
}

const bash = { tool_name: "Bash", tool_input: { command: "ls", description: "List files" } };

process.stdin.setRawMode(true);
process.stdin.resume();
process.stdout.write(`fake ${agent} ready (${process.pid})\r\n`);
fire("SessionStart", { source: "startup" });

process.stdin.on("data", (buf) => {
	for (const key of buf.toString()) {
		switch (key) {
			case "p":
				if (gemini) {
					fire("BeforeAgent", { prompt: "list the files" });
					fire("BeforeTool", { tool_name: "run_shell_command", tool_input: { command: "ls" } });
					break;
				}
				fire("UserPromptSubmit", { prompt: "list the files" });
				fire("PreToolUse", { ...bash, tool_use_id: "toolu_1" });
				break;
			case "a":
				if (agent === "codex") fire("PermissionRequest", { ...bash, tool_use_id: "toolu_1" });
				else if (gemini)
					fire("Notification", {
						notification_type: "ToolPermission",
						message: "Tool run_shell_command requires permission",
						details: { command: "ls" },
					});
				else
					fire("Notification", {
						message: "Claude needs your permission to use Bash",
						notification_type: "permission_prompt",
					});
				break;
			case "y":
				if (gemini) fire("AfterTool", { tool_name: "run_shell_command", tool_input: { command: "ls" }, tool_response: {} });
				else fire("PostToolUse", { ...bash, tool_use_id: "toolu_1", tool_response: { stdout: "a b", stderr: "" } });
				break;
			case "s":
				if (gemini) fire("AfterAgent", { prompt: "list the files", prompt_response: "Done." });
				else fire("Stop", { stop_hook_active: false, last_assistant_message: "Done." });
				break;
			case "q":
				if (agent !== "codex") fire("SessionEnd", { reason: "exit" });
				process.exit(0);
		}
	}
});
