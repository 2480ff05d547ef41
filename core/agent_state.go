package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/internal/liveproc"
)

// Agent state comes from three sources (docs/agents.md, "Where an agent's state comes
// from"): push first — what the agent says of itself through its hooks, copse's
// extensions, the wrapper of create --run (core/agentstate), and Herdr's agent_status
// inside Herdr; corrected by pull — the process (alive, and the same process: its start
// time), Claude Code's own registry (~/.claude/sessions/<pid>.json); and the screen last
// (the backend's /proc and output-age checks), for agents that say nothing.

// agentWord is one agent's record with what the pull side found of it.
type agentWord struct {
	rec   agentstate.Record
	alive bool           // its process lives and is the same process (start time)
	reg   *claudeSession // Claude Code's registry entry for the same process, if any
}

// claudeSession is the part of Claude Code's ~/.claude/sessions/<pid>.json copse reads.
type claudeSession struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Status    string `json:"status"`    // busy, idle, waiting, shell
	UpdatedAt int64  `json:"updatedAt"` // ms since the epoch: its last status change
	StartedAt int64  `json:"startedAt"`
}

// registryState is a Claude Code registry status as an agent state ("" for one copse does
// not know).
func registryState(status string) string {
	switch status {
	case "busy", "shell":
		return AgentWorking
	case "waiting":
		return AgentBlocked
	case "idle":
		return AgentIdle
	}
	return ""
}

func (c *claudeSession) updated() time.Time {
	if c.UpdatedAt <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(c.UpdatedAt)
}

// decideAgent is the agent one record shows, or show false when it shows none: a done
// command stays (with its exit code) until it is read and after; a record whose process
// is gone, or whose session ended, shows nothing (a dead process is never working); a
// wrapper's word about a running command is weak (it cannot tell working from waiting,
// so the screen's reading wins where there is one). Claude Code's registry corrects a
// hook's word when it changed later, except that its idle never overrides a hook's
// blocked (a session waiting on a question has been reported idle there).
func decideAgent(w agentWord) (a Agent, weak, show bool) {
	r := w.rec
	a = Agent{PID: r.PID, Command: r.Program, State: r.State, Source: r.Source, Since: r.Since, Session: r.Session}
	if a.Command == "" {
		a.Command = r.Agent
	}
	if r.State == agentstate.Done {
		code := 0
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		a.ExitCode, a.Unread = &code, r.Read.IsZero()
		return a, false, true
	}
	if !w.alive || r.State == agentstate.Gone {
		return Agent{}, false, false
	}
	switch r.State {
	case agentstate.Working, agentstate.Blocked, agentstate.Idle:
	default:
		return Agent{}, false, false
	}
	if w.reg != nil && w.reg.updated().After(r.Time) {
		if s := registryState(w.reg.Status); s != "" && !(s == AgentIdle && r.State == agentstate.Blocked) && s != a.State {
			a.State, a.Source, a.Since = s, agentstate.SourceRegistry, w.reg.updated()
		}
	}
	return a, r.Source == agentstate.SourceWrapper, true
}

// mergeAgent puts a record's agent into a row's agents: it replaces the entry the
// backend found for the same process (the pane whose program it is, the process working
// there) or Herdr's entry for the row's workspace, and is added when there is none. A
// weak word leaves a screen reading as it is, and adds nothing where the screen saw none.
func mergeAgent(agents []Agent, a Agent, weak bool, sameProcess func(pid, entry int) bool) []Agent {
	for i, e := range agents {
		same := e.PID != 0 && a.PID != 0 && sameProcess(a.PID, e.PID)
		herdrs := e.PID == 0 && e.Source == agentstate.SourceHerdr && !weak
		if !same && !herdrs {
			continue
		}
		if weak && e.State != AgentRunning && e.State != AgentUnknown {
			if a.Command != "" && !e.NamedByArgv && (e.Source == agentstate.SourceScreen || e.Source == agentstate.SourceProcess) {
				// The wrapper's name, guessed from its command line, is better than the
				// kernel's 15-character comm, but not than a running program's own argv
				// (the screen's, or the agent's own record, read by its hook).
				agents[i].Command = a.Command
			}
			return agents
		}
		a.Workspace = e.Workspace
		if e.PID != 0 {
			a.PID = e.PID
		}
		agents[i] = a
		return dropSameProcess(agents, i, a.PID, sameProcess)
	}
	if weak {
		// The wrapper's running command, which the screen read as nothing: a shell, or
		// copse itself (list --watch, the picker), which is never an agent.
		return agents
	}
	return append(agents, a)
}

// dropSameProcess removes the entries other than keep that stand for process pid (the
// process copse saw running, once Herdr's workspace entry took its record).
func dropSameProcess(agents []Agent, keep, pid int, sameProcess func(pid, entry int) bool) []Agent {
	out := agents[:0]
	for j, e := range agents {
		if j != keep && e.PID != 0 && pid != 0 && sameProcess(e.PID, pid) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// applyAgentStates reads every agent record and Claude Code's registry, and merges what
// they say into the agents of the rows whose tree holds the agent's directory (the
// deepest, for nested worktrees). Records of processes that are gone are removed, except
// a done command's (it waits to be read).
func (s *Env) applyAgentStates(rows []Worktree) {
	getenv := s.Opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := agentstate.Dir(getenv)
	recs, _ := agentstate.ReadAll(dir)
	reg := readClaudeRegistry(claudeConfigDir(getenv))
	byPID := map[int]Agent{} // the live agents the records and the registry show, for the locks' holders
	defer func() { lockHolderAgents(rows, byPID) }()
	if len(recs) == 0 && len(reg) == 0 {
		return
	}
	find := rowFinder(rows)
	withRecord := map[int]bool{}
	for _, r := range recs {
		w := agentWord{rec: r, alive: liveproc.Alive(r.PID, r.Start)}
		if w.alive {
			w.reg = reg[r.PID]
			withRecord[r.PID] = true
		} else if r.State != agentstate.Done {
			_ = agentstate.Remove(dir, r.Agent, r.Session, r.PID) // its process is gone: a stale word
		}
		a, weak, show := decideAgent(w)
		if weak && runsCopse(a.PID) {
			show = false // a --run of copse itself (list --watch, the picker) is never an agent
		}
		if show && w.alive {
			byPID[r.PID] = a
		}
		if i := find(r.Cwd); i >= 0 && show {
			rows[i].Agents = mergeAgent(rows[i].Agents, a, weak, liveproc.Descends)
		}
	}
	for pid, c := range reg {
		if withRecord[pid] {
			continue
		}
		if a, ok := registryAgent(c); ok {
			byPID[pid] = a
			if i := find(c.Cwd); i >= 0 {
				rows[i].Agents = mergeAgent(rows[i].Agents, a, false, liveproc.Descends)
			}
		}
	}
}

// runsCopse reports whether copse is the foreground program of the terminal of pid (a --run
// wrapper's shell).
func runsCopse(pid int) bool {
	return pid > 0 && IsCopse(liveproc.ForegroundOf(pid))
}

// lockHolderAgents gives a row claimed by an agent's own lock (Claude Code's worktrees, see
// agentlock.go) that agent with its state when the row does not list its process already:
// the state its records or registry give (byPID), else that its process runs. The claim
// says who holds the worktree; the agent row says what it is doing, even when the session
// works from another directory.
func lockHolderAgents(rows []Worktree, byPID map[int]Agent) {
	for i := range rows {
		c := rows[i].Claim
		if c == nil || c.Agent == "" || c.PID <= 0 || listsProcess(rows[i].Agents, c.PID) {
			continue
		}
		a, ok := byPID[c.PID]
		if !ok {
			a, ok = runningAgent(c.PID, c.Agent)
		}
		if ok {
			a.Workspace = ""
			rows[i].Agents = append(rows[i].Agents, a)
		}
	}
}

// listsProcess reports whether agents has an entry for pid (its own, or a pane or process
// it runs under or below).
func listsProcess(agents []Agent, pid int) bool {
	for _, e := range agents {
		if e.PID != 0 && (liveproc.Descends(e.PID, pid) || liveproc.Descends(pid, e.PID)) {
			return true
		}
	}
	return false
}

// runningAgent is a live process that said nothing of its state: running, named from its
// argv (fallback: the agent's name).
func runningAgent(pid int, agent string) (Agent, bool) {
	id, ok := liveproc.Identify(pid)
	if !ok {
		return Agent{}, false
	}
	name := liveproc.ProgramName(id.Argv)
	if name == "" {
		name = agent
	}
	return Agent{PID: pid, Command: name, State: AgentRunning, Source: agentstate.SourceProcess}, true
}

// registryAgent is a Claude Code process copse has no hook record of (hooks not
// installed), from its registry entry alone: shown only while the process lives.
func registryAgent(c *claudeSession) (Agent, bool) {
	st := registryState(c.Status)
	id, ok := liveproc.Identify(c.PID)
	if st == "" || !ok {
		return Agent{}, false
	}
	// A session cannot start before its process: an entry older than the process is a
	// reused pid's, left by a Claude Code that crashed.
	if at := id.StartedAt(); c.StartedAt > 0 && !at.IsZero() && time.UnixMilli(c.StartedAt).Before(at.Add(-2*time.Second)) {
		return Agent{}, false
	}
	name := liveproc.ProgramName(id.Argv)
	if name == "" {
		name = "claude"
	}
	return Agent{PID: c.PID, Command: name, State: st, Source: agentstate.SourceRegistry, Since: c.updated(), Session: c.SessionID}, true
}

// rowFinder returns the index of the row whose tree holds a directory (the deepest), or
// -1; bare and prunable rows hold nothing.
func rowFinder(rows []Worktree) func(dir string) int {
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		if !r.Bare && r.Prunable == nil {
			at[Canonical(r.Path)] = i
		}
	}
	return func(dir string) int {
		if dir == "" || !filepath.IsAbs(dir) {
			return -1
		}
		for p := Canonical(dir); ; {
			if i, ok := at[p]; ok {
				return i
			}
			parent := filepath.Dir(p)
			if parent == p {
				return -1
			}
			p = parent
		}
	}
}

// claudeConfigDir is where Claude Code keeps its settings and registry:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// readClaudeRegistry reads Claude Code's sessions/<pid>.json files, by pid; a file that is
// not what copse expects is skipped (the registry is Claude Code's, not a contract).
func readClaudeRegistry(dir string) map[int]*claudeSession {
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(dir, "sessions"))
	if err != nil {
		return nil
	}
	out := map[int]*claudeSession{}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "sessions", e.Name()))
		if err != nil || len(b) > 1<<16 {
			continue
		}
		var c claudeSession
		if json.Unmarshal(b, &c) != nil || c.PID <= 0 {
			continue
		}
		out[c.PID] = &c
	}
	return out
}

// MarkAgentsRead marks the done agents working in the worktree at path as read (a done
// agent stays unread until its row is opened or its worktree switched to); a switch does
// it itself. Errors are ignored: unread is a display hint.
func (s *Service) MarkAgentsRead(path string) { s.impl.MarkAgentsRead(path) }

func (s *Env) MarkAgentsRead(path string) {
	getenv := s.Opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := agentstate.Dir(getenv)
	recs, _ := agentstate.ReadAll(dir)
	root := Canonical(path)
	now := time.Now()
	for _, r := range recs {
		if r.State != agentstate.Done || !r.Read.IsZero() || r.Cwd == "" {
			continue
		}
		if c := Canonical(r.Cwd); c == root || strings.HasPrefix(c, root+string(filepath.Separator)) {
			r.Read = now
			_ = agentstate.Write(dir, r)
		}
	}
}
