package core

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/internal/liveproc"
)

// Live processes: a worktree in which a process works (its working directory, or a file it
// holds open, is inside: an agent, a dev server, an editor, a shell) is not removed,
// pruned or cleaned up after a land without --force. liveproc reads /proc; copse itself,
// the processes it started (git) and its ancestors sitting elsewhere do not count.

// HerdrWorkspaceEnv is the variable Herdr (v0.8.2) puts into every pane it starts: which
// workspace the pane was opened in.
const HerdrWorkspaceEnv = "HERDR_WORKSPACE_ID"

// liveSet is what works inside one worktree.
type LiveSet struct {
	Procs []liveproc.Proc // the processes that keep the worktree
	// idle are the idle shells of the Herdr workspace copse opened for the worktree (a
	// shell with no child, started in that workspace's pane): they do not keep it, and
	// Herdr closes them with the workspace.
	Idle    []liveproc.Proc
	Unknown string // why copse cannot tell ("" when it can)
	// key is what the confirmation's token holds of these processes: what a person decides
	// on (each program by its command and directory, each pane by id and first process),
	// not the pids of the short-lived children those start, which come and go every second.
	Key []string
	// agent is what the backend says about the agent of the worktree's workspace, read only
	// when processes work there or copse cannot tell ("" otherwise, and outside Herdr).
	Agent string
}

// liveIn scans once for the processes working inside path. ws is the worktree's open
// Herdr workspace ("" when none).
func LiveIn(path, ws string) LiveSet {
	var keys []string
	if ws != "" {
		keys = []string{HerdrWorkspaceEnv}
	}
	sc, err := liveproc.Read([]string{path}, keys...)
	if err != nil {
		return LiveSet{Unknown: LiveUnknown(err)}
	}
	var l LiveSet
	inRoot := PidSet(sc.Roots[0])
	for _, p := range sc.Roots[0] {
		if ws != "" && p.Shell && p.Children == 0 && p.Env[HerdrWorkspaceEnv] == ws {
			l.Idle = append(l.Idle, p)
			l.Key = append(l.Key, fmt.Sprintf("idle shell pid %d", p.PID))
			continue
		}
		l.Procs = append(l.Procs, p)
		if k := ProcKey(sc, p, inRoot); k != "" {
			l.Key = append(l.Key, k)
		}
	}
	sort.Strings(l.Key)
	l.Key = slices.Compact(l.Key)
	return l
}

func PidSet(ps []liveproc.Proc) map[int]bool {
	out := make(map[int]bool, len(ps))
	for _, p := range ps {
		out[p.PID] = true
	}
	return out
}

// procKey is a process as the confirmation's token holds it: a program the person sees
// working there, by its command line and where it is, without its pid (a watcher outside
// may start the same short command every second). A process whose parent works there too
// is that parent's child: "" (the parent stands for it).
func ProcKey(sc *liveproc.Scan, p liveproc.Proc, inRoot map[int]bool) string {
	if inRoot[sc.Parent(p.PID)] {
		return ""
	}
	return fmt.Sprintf("process %q in %q open %t", p.Cmdline, p.Inside, p.OpenFile)
}

func LiveUnknown(err error) string {
	if errors.Is(err, liveproc.ErrUnknown) {
		return Escape(err.Error())
	}
	return Escape(liveproc.ErrUnknown.Error() + ": " + err.Error())
}

// liveCounts is the number of processes working in each of paths (deepest worktree wins
// for nested ones), from one scan; nil when copse cannot tell.
func liveCounts(paths []string) []int {
	sc, err := liveproc.Read(paths)
	if err != nil {
		return nil
	}
	out := make([]int, len(paths))
	for i, ps := range sc.Roots {
		out[i] = others(ps)
	}
	return out
}

// others counts the processes of ps that are not copse's ancestors: a listing shows what
// else works in a worktree, and the shell a person ran copse from is not news to them
// (on a fresh repository the main checkout showed its own shell and tmux as "2 proc").
// The safety rules count every process.
func others(ps []liveproc.Proc) int {
	n := 0
	for _, p := range ps {
		if !p.Ancestor {
			n++
		}
	}
	return n
}

// describeProcs names the first few processes on one line each, escaped and cut.
func DescribeProcs(ps []liveproc.Proc) string {
	const show, cmdCells = 5, 80
	var parts []string
	for i, p := range ps {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-show))
			break
		}
		parts = append(parts, p.Describe(Escape, cmdCells))
	}
	return strings.Join(parts, "; ")
}

func PidList(ps []liveproc.Proc) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprint(p.PID))
	}
	return strings.Join(out, " ")
}

// ruleNoProcesses: a worktree a process works in is not removed without --force.
func RuleNoProcesses(path, what string, l LiveSet) *Error {
	if len(l.Procs) == 0 {
		return nil
	}
	agent := ""
	if l.Agent != "" {
		agent = "; " + l.Agent
	}
	return Refused(CodeProcessesRunning,
		"stop them first (kill "+PidList(l.Procs)+"), or pass --force to remove it under them",
		"%s (%s) has %s working in it: %s%s", Escape(path), what, Plural(len(l.Procs), "process"), DescribeProcs(l.Procs), agent)
}

// tokenKey is what a confirmation's token holds of l: key, and whether copse could tell.
// The agent's line is in it without its relative age (agentAge on): an agent that turned
// from blocked to working is news, a second passing is not.
func (l LiveSet) TokenKey() []string {
	key := slices.Clone(l.Key)
	if l.Unknown != "" {
		key = append(key, "unknown")
	}
	if l.Agent != "" {
		agent, _, _ := strings.Cut(l.Agent, AgentAge)
		key = append(key, "agent "+agent)
	}
	return key
}

// agentAge starts the part of an agent's line that says how long ago it printed.
const AgentAge = "; last output "

// keptBy says what keeps a worktree: the processes working in it, or that copse cannot tell.
func (l LiveSet) KeptBy() string {
	if len(l.Procs) > 0 {
		return fmt.Sprintf("%s working in it (%s)", Plural(len(l.Procs), "process"), DescribeProcs(l.Procs))
	}
	return "copse cannot tell which processes work in it (" + l.Unknown + ")"
}

// lines are the confirmation's lines about live processes.
func (l LiveSet) Lines() []string {
	var out []string
	if l.Unknown != "" {
		out = append(out, "processes working in it: unknown ("+l.Unknown+")")
	}
	if len(l.Procs) > 0 {
		out = append(out, fmt.Sprintf("%s working in it will lose their directory: %s", Plural(len(l.Procs), "process"), DescribeProcs(l.Procs)))
	}
	if l.Agent != "" {
		out = append(out, l.Agent)
	}
	return out
}

// liveScan is one scan for many worktrees, read on first use: prune reads /proc only when
// a worktree gets as far as its idle test.
type LiveScan struct {
	Paths   []string
	done    bool
	procs   [][]liveproc.Proc
	unknown string
}

func (l *LiveScan) In(path string) ([]liveproc.Proc, string) {
	if !l.done {
		l.done = true
		if sc, err := liveproc.Read(l.Paths); err != nil {
			l.unknown = LiveUnknown(err)
		} else {
			l.procs = sc.Roots
		}
	}
	if l.unknown != "" {
		return nil, l.unknown
	}
	for i, p := range l.Paths {
		if p == path {
			return l.procs[i], ""
		}
	}
	return nil, ""
}

// setProcesses fills each row's Processes from one scan of /proc for all of them (not one
// per row); left nil when copse cannot tell. It returns what it found, by row.
func setProcesses(rows []Worktree) map[int][]liveproc.Proc {
	var paths []string
	var at []int
	for i, r := range rows {
		if !r.Bare && r.Prunable == nil {
			paths = append(paths, r.Path)
			at = append(at, i)
		}
	}
	sc, err := liveproc.Read(paths)
	if err != nil {
		return nil
	}
	found := make(map[int][]liveproc.Proc, len(at))
	for j, i := range at {
		n := others(sc.Roots[j])
		rows[i].Processes = &n
		found[i] = sc.Roots[j]
	}
	return found
}

// maxRunning bounds the processes a row lists as agents; Processes keeps the count.
const maxRunning = 5

// setRunning adds to each row's agents the programs working inside it that its workspace
// did not already name (shells do not count: they are where programs start).
func setRunning(rows []Worktree, found map[int][]liveproc.Proc) {
	for i, ps := range found {
		named := map[string]bool{}
		var pids []int
		for _, a := range rows[i].Agents {
			named[a.Command] = true
			if a.PID != 0 {
				pids = append(pids, a.PID)
			}
		}
		n := 0
		for _, p := range ps {
			if p.Shell || len(p.Cmdline) == 0 || n == maxRunning || belowAny(p.PID, pids) {
				continue
			}
			// The name a person knows it by, from its argv (`node …/claude-code/cli.js` is
			// claude), not argv[0] alone nor the kernel's 15-character comm.
			name := liveproc.ProgramName(p.Cmdline)
			byArgv := name != ""
			if !byArgv {
				name = BaseName(p.Cmdline[0])
			}
			if named[name] || name == "copse" || name == "copse-mcp" {
				continue // copse itself (the picker, list --watch) is never an agent
			}
			named[name] = true
			a := Agent{PID: p.PID, Command: name, State: AgentRunning, Source: agentstate.SourceProcess, NamedByArgv: byArgv}
			a.Since, _ = liveproc.StartTime(p.PID) // running since it started
			rows[i].Agents = append(rows[i].Agents, a)
			n++
		}
	}
}

// belowAny reports whether pid is one of pids or runs below one: the program of a pane the
// backend already named (by its argv, which may differ from the process's argv[0]).
func belowAny(pid int, pids []int) bool {
	for _, a := range pids {
		if liveproc.Descends(pid, a) {
			return true
		}
	}
	return false
}
