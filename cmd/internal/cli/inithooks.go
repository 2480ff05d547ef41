package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/atomicfile"
	"github.com/copse-dev/copse/internal/textsafe"
)

// hookHost is an agent whose settings file copse merges its hooks into (docs/agents.md,
// "Hooks"): each event's command is `COPSE hook AGENT EVENT`.
type hookHost struct {
	name   string   // as in `copse init NAME --hooks` and `copse hook NAME`
	events []string // the events copse hooks, in the order they are added
	// file is the settings file for the environment getenv reads.
	file func(getenv func(string) string) (string, error)
	note string // said after installing: what the agent needs to run them
}

var hookHosts = map[string]hookHost{
	"claude": {name: "claude",
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Notification", "Stop", "SessionEnd"},
		file:   homeFile("CLAUDE_CONFIG_DIR", ".claude", "settings.json"),
		note:   "Claude Code reads them when a session starts (restart running sessions, or review them in /hooks)"},
	"codex": {name: "codex",
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop"},
		file:   homeFile("CODEX_HOME", ".codex", "hooks.json"),
		note:   "Codex runs hooks only once you have trusted them, with hooks enabled (codex_hooks under [features] in config.toml)"},
	"gemini": {name: "gemini",
		events: []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"},
		file:   homeFile("", ".gemini", "settings.json"),
		note:   "Gemini CLI reads them when it starts"},
}

// homeFile is a settings file in the agent's folder: $ENV when set (absolute), else
// ~/DIR.
func homeFile(env, dir, name string) func(func(string) string) (string, error) {
	return func(getenv func(string) string) (string, error) {
		if env != "" {
			if d := getenv(env); d != "" {
				if !filepath.IsAbs(d) {
					return "", fmt.Errorf("%s is not an absolute path: %s", env, core.Escape(d))
				}
				return filepath.Join(d, name), nil
			}
		}
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("HOME is not set")
		}
		return filepath.Join(home, dir, name), nil
	}
}

// copseCommand is the absolute path of the running copse, as hooks call it.
func copseCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// initHooks installs (or, with uninstall, removes) copse's hooks for target.
func initHooks(f *Factory, target string, uninstall bool) error {
	if target == "opencode" {
		return initOpencodePlugin(f, uninstall)
	}
	h, ok := hookHosts[target]
	if !ok {
		return usagef("usage: copse init claude|codex|gemini|opencode --hooks [--uninstall]", "--hooks is for claude, codex, gemini and opencode, not %s (pi and omp report through their extension: copse init %s --install)", core.Escape(target), core.Escape(target))
	}
	path, err := h.file(f.Getenv)
	if err != nil {
		return &core.Error{Kind: core.KindUsage, Code: core.CodeAgentHooksDir, Err: err,
			Message: "cannot tell where " + h.name + " keeps its settings: " + err.Error(),
			Hint:    "set HOME (or the agent's own folder variable) to an absolute path"}
	}
	want := map[string]string{}
	if !uninstall {
		exe, err := copseCommand()
		if err != nil {
			return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsWrite, Err: err,
				Message: "cannot tell where this copse binary is, for the hooks to run it: " + err.Error()}
		}
		for _, ev := range h.events {
			want[ev] = textsafe.ShellJoin([]string{exe, "hook", h.name, ev})
		}
	}
	return mergeSettingsFile(f, path, h, want, uninstall)
}

// mergeSettingsFile reads the settings file, merges and writes it in one rename (its own
// permissions kept, through a symlink to the file it names); a file that is not JSON
// copse can merge into is refused and left as it is.
func mergeSettingsFile(f *Factory, path string, h hookHost, want map[string]string, uninstall bool) error {
	shown := f.displayPath(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	orig, err := os.ReadFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case err == nil:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		if uninstall {
			_, err := fmt.Fprintf(f.Out, "%s does not exist: no hooks of copse to remove\n", shown)
			return err
		}
	default:
		return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsUnreadable, Err: err,
			Message: "cannot read " + shown + ": " + err.Error(), Hint: "check the file's permissions"}
	}
	out, ch, err := mergeHooks(orig, h.name, h.events, want)
	if err != nil {
		return &core.Error{Kind: core.KindRefused, Code: core.CodeAgentSettingsMalformed, Err: err,
			Message: shown + " is not JSON copse can merge hooks into (" + core.Escape(err.Error()) + "); nothing was changed",
			Hint:    "fix the file (" + h.name + " cannot read it either), then run the command again"}
	}
	if out == nil {
		what := "copse's hooks are already installed"
		if uninstall {
			what = "it holds no hooks of copse"
		}
		_, err := fmt.Fprintf(f.Out, "%s is up to date: %s\n", shown, what)
		return err
	}
	if err := writeFileMode(path, out, mode); err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsWrite, Err: err,
			Message: "cannot write " + shown + ": " + err.Error(), Hint: "check that the folder is writable"}
	}
	if uninstall {
		_, err = fmt.Fprintf(f.Out, "removed %d hooks of copse from %s (yours are kept)\n", ch.removed, shown)
		return err
	}
	_, err = fmt.Fprintf(f.Out, "wrote %s: copse's hooks for %s (yours are kept; copse init %s --hooks --uninstall removes copse's)\n%s\n",
		shown, strings.Join(h.events, ", "), h.name, h.note)
	return err
}

// writeFileMode replaces path with content in one rename, with the given permissions (a
// folder it makes is the user's alone: an agent's settings may hold secrets).
func writeFileMode(path string, content []byte, mode fs.FileMode) error {
	return writeFileIn(path, content, 0o700, mode)
}

// writeFileIn replaces path with content in one rename (a reader sees the old file or the
// new one), with permissions mode, making its folder with dirMode when it is missing.
func writeFileIn(path string, content []byte, dirMode, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	return atomicfile.Write(path, content, mode)
}

// opencodePluginMark starts the plugin file copse writes: a file without it is the
// user's, never replaced or removed.
const opencodePluginMark = "// copse-state: written by `copse init opencode --hooks`"

// opencodePlugin is the opencode plugin that reports its sessions' state through
// `copse hook opencode` (opencode's server events: session.status busy/idle, a permission
// asked and replied). It runs inside opencode, so it sends opencode's own pid.
func opencodePlugin(exe string) []byte {
	q, _ := marshalPlain(exe)
	return []byte(opencodePluginMark + `; copse init opencode --hooks --uninstall removes it.
import { spawn } from "node:child_process";

const COPSE = ` + string(q) + `;

function report(state, event, directory) {
  try {
    const child = spawn(COPSE, ["hook", "opencode", event], { stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ state, cwd: directory, pid: process.pid, hook_event_name: event }));
  } catch {}
}

export const CopseState = async ({ directory }) => ({
  event: async ({ event }) => {
    const p = event.properties ?? {};
    switch (event.type) {
      case "session.status":
        report(p.status?.type === "idle" ? "idle" : "working", event.type, directory);
        break;
      case "session.idle":
        report("idle", event.type, directory);
        break;
      case "permission.asked":
      case "permission.updated":
        report("blocked", event.type, directory);
        break;
      case "permission.replied":
        report("working", event.type, directory);
        break;
    }
  },
});
`)
}

// opencodePluginFile is where opencode loads global plugins from:
// $XDG_CONFIG_HOME/opencode/plugins, else ~/.config/opencode/plugins.
func opencodePluginFile(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "opencode", "plugins", "copse-state.js"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(home, ".config", "opencode", "plugins", "copse-state.js"), nil
}

func initOpencodePlugin(f *Factory, uninstall bool) error {
	path, err := opencodePluginFile(f.Getenv)
	if err != nil {
		return &core.Error{Kind: core.KindUsage, Code: core.CodeAgentHooksDir, Err: err,
			Message: "cannot tell where opencode keeps its plugins: " + err.Error(), Hint: "set HOME or XDG_CONFIG_HOME"}
	}
	shown := f.displayPath(path)
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsUnreadable, Err: err,
			Message: "cannot read " + shown + ": " + err.Error(), Hint: "check the file's permissions"}
	}
	if exists && !bytes.HasPrefix(old, []byte(opencodePluginMark)) {
		return &core.Error{Kind: core.KindRefused, Code: core.CodeAgentPluginChanged,
			Message: shown + " was not written by copse; it was kept",
			Hint:    "move it away, then run the command again"}
	}
	if uninstall {
		if !exists {
			_, err := fmt.Fprintf(f.Out, "%s does not exist: no plugin of copse to remove\n", shown)
			return err
		}
		if err := os.Remove(path); err != nil {
			return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsWrite, Err: err,
				Message: "cannot remove " + shown + ": " + err.Error()}
		}
		_, err := fmt.Fprintf(f.Out, "removed %s\n", shown)
		return err
	}
	exe, err := copseCommand()
	if err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsWrite, Err: err,
			Message: "cannot tell where this copse binary is, for the plugin to run it: " + err.Error()}
	}
	content := opencodePlugin(exe)
	if exists && bytes.Equal(old, content) {
		_, err := fmt.Fprintf(f.Out, "%s is up to date\n", shown)
		return err
	}
	if err := writeFileMode(path, content, 0o644); err != nil {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeAgentSettingsWrite, Err: err,
			Message: "cannot write " + shown + ": " + err.Error(), Hint: "check that the folder is writable"}
	}
	_, err = fmt.Fprintf(f.Out, "wrote %s\nopencode loads it when it starts\n", shown)
	return err
}
