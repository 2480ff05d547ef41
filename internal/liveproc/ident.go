package liveproc

import (
	"path/filepath"
	"strings"
	"time"
)

// Ident is one process as an agent's record names it: its pid, its parent, its start time
// (so a pid the kernel gave to another process since is never taken for it) and its argv.
type Ident struct {
	PID, PPID int
	// Start is the process's start time as the kernel counts it (/proc/PID/stat field 22,
	// clock ticks since boot): it never changes while the process lives.
	Start uint64
	Argv  []string
}

// StartedAt is when the process started, by the wall clock (zero where copse cannot tell):
// the boot time plus its start in clock ticks (USER_HZ, 100 on Linux).
func (id Ident) StartedAt() time.Time { return startedAt(id.Start) }

// Identify reads one process (Linux; ok is false elsewhere, or when it is gone).
func Identify(pid int) (Ident, bool) { return identify(pid) }

// Alive reports whether pid is still the process that started at start. A zero start
// (unknown) only asks whether pid lives. Where copse cannot tell (no /proc) it says alive,
// so a record is never dropped for want of a way to look.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if !canIdentify() {
		return true
	}
	id, ok := identify(pid)
	return ok && (start == 0 || id.Start == start)
}

// AgentAbove is the nearest process above pid (its parent, or further up) that is not a
// shell nor copse itself: the agent that ran a hook through `sh -c`. ok is false when
// none is found within a few generations.
func AgentAbove(pid int) (Ident, bool) {
	cur := pid
	for range 6 {
		id, ok := identify(cur)
		if !ok || id.PPID <= 1 {
			return Ident{}, false
		}
		parent, ok := identify(id.PPID)
		if !ok {
			return Ident{}, false
		}
		if !isShell(parent.Argv) && !isCopse(parent.Argv) && len(parent.Argv) > 0 {
			return parent, true
		}
		cur = parent.PID
	}
	return Ident{}, false
}

// AgentBelow is pid itself, or the first process below it that is not a shell (a pane's
// `sh -c 'agent …'`): the program a person sees running there.
func AgentBelow(pid int) (Ident, bool) {
	id, ok := identify(pid)
	for depth := 0; ok && depth < 3 && (isShell(id.Argv) || isCopse(id.Argv)); depth++ {
		kids := childrenOf(id.PID)
		if len(kids) == 0 {
			break
		}
		id, ok = identify(kids[0])
	}
	return id, ok
}

// Descends reports whether pid is ancestor or one of its descendants (a few generations).
func Descends(pid, ancestor int) bool {
	for range 8 {
		if pid == ancestor {
			return true
		}
		id, ok := identify(pid)
		if !ok || id.PPID <= 1 {
			return false
		}
		pid = id.PPID
	}
	return false
}

func isCopse(argv []string) bool {
	return len(argv) > 0 && strings.HasPrefix(filepath.Base(argv[0]), "copse")
}

// interpreters run a script named by their first argument that is not an option: the
// program is the script, not the interpreter.
var interpreters = map[string]bool{"node": true, "nodejs": true, "bun": true, "deno": true,
	"python": true, "python3": true, "ruby": true, "perl": true, "tsx": true, "ts-node": true}

// knownPackages names agents by the package their script sits in (npm installs run
// `node …/node_modules/@anthropic-ai/claude-code/cli.js`).
// A scoped name (@scope/pkg) is looked up before the bare one: pi and Oh My Pi both
// ship a pi-coding-agent.
var knownPackages = map[string]string{
	"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini", "opencode-ai": "opencode",
	"opencode": "opencode", "pi-coding-agent": "pi", "@oh-my-pi/pi-coding-agent": "omp", "omp": "omp",
}

// genericScripts are script names that say nothing of the program (its package does).
var genericScripts = map[string]bool{"cli": true, "index": true, "main": true, "bin": true, "run": true, "entry": true}

// ProgramName is the name a person knows a process by, from its argv: the script an
// interpreter runs (by its npm package where the script is a generic cli.js), the command
// a `sh -c` runs, else argv[0]'s base name. Never the kernel's 15-character comm.
func ProgramName(argv []string) string {
	for range 4 {
		if len(argv) == 0 {
			return ""
		}
		base := filepath.Base(strings.TrimPrefix(argv[0], "-"))
		switch {
		case isShell(argv) && len(argv) >= 3 && argv[1] == "-c":
			argv = commandWords(argv[2])
			continue
		case base == "env":
			argv = skipAssignments(argv[1:])
			continue
		case interpreters[base]:
			if script := firstOperand(argv[1:]); script != "" {
				return scriptName(script)
			}
		}
		return base
	}
	return ""
}

// commandWords splits a shell command line roughly (no quoting) and drops a leading
// exec and variable assignments: enough to name its program.
func commandWords(cmd string) []string {
	w := strings.Fields(cmd)
	if len(w) > 0 && w[0] == "exec" {
		w = w[1:]
	}
	return skipAssignments(w)
}

func skipAssignments(w []string) []string {
	for len(w) > 0 && strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") {
		w = w[1:]
	}
	return w
}

func firstOperand(args []string) string {
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func scriptName(script string) string {
	dir, file := filepath.Split(script)
	name := strings.TrimSuffix(file, filepath.Ext(file))
	// …/node_modules/@scope/pkg/[dist|bin/]cli.js: the package names it.
	parts := strings.Split(strings.Trim(filepath.ToSlash(dir), "/"), "/")
	for i := len(parts) - 1; i >= 0 && i >= len(parts)-3; i-- {
		if i > 0 {
			if agent, ok := knownPackages[parts[i-1]+"/"+parts[i]]; ok {
				return agent
			}
		}
		if agent, ok := knownPackages[parts[i]]; ok {
			return agent
		}
	}
	if agent, ok := knownPackages[name]; ok {
		return agent
	}
	if genericScripts[name] {
		for i := len(parts) - 1; i >= 0; i-- {
			if p := parts[i]; p != "dist" && p != "bin" && p != "lib" && p != "build" && p != "src" && p != "" {
				return p
			}
		}
	}
	return name
}
