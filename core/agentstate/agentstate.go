// Package agentstate keeps what agents say of themselves, one small JSON file per agent
// session, so that copse can show an agent's state from the agent's own word (its hooks,
// copse's pi and Oh My Pi extensions, the wrapper `create --run` starts a command in)
// before it falls back to watching processes and screens.
//
// Writers are short-lived and must never fail or slow the agent: a hook command writes
// one record by rename and exits. Readers (list --status, the picker, list --watch) read
// every record and match it to a worktree by its directory. The store lives per user,
// not per repository, because a hook runs in the agent's directory without asking git
// where the repository keeps its files:
//
//	$COPSE_STATE_DIR/agents/            when COPSE_STATE_DIR is set (tests)
//	$XDG_STATE_HOME/copse/agents/       else, when XDG_STATE_HOME is an absolute path
//	~/.local/state/copse/agents/        else
//
// It imports nothing of copse: core and cmd import it; what a state means for a remove
// or a land is core's.
package agentstate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/internal/atomicfile"
)

// The states an agent reports. Gone means the agent's session ended (SessionEnd): its
// record stays until Prune removes it, so a listing can tell "ended" from "never seen".
const (
	Working = "working"
	Blocked = "blocked" // needs you: a permission prompt or a question
	Idle    = "idle"    // waiting for the next prompt
	Done    = "done"    // the command ended; ExitCode says how
	Gone    = "gone"    // the session ended
)

// The sources of a state, from the most to the least first-hand.
const (
	SourceHook      = "hook"      // the agent's own lifecycle hook
	SourceExtension = "extension" // copse's pi or Oh My Pi extension
	SourceWrapper   = "wrapper"   // the shell copse starts a --run command in
	SourceHerdr     = "herdr"     // Herdr's agent_status
	SourceRegistry  = "registry"  // the agent's own registry (~/.claude/sessions/<pid>.json)
	SourceProcess   = "process"   // the process is alive or gone
	SourceScreen    = "screen"    // /proc and the window's output age
)

// Record is one agent session's last word about itself.
type Record struct {
	Agent   string `json:"agent"`             // claude, codex, opencode, gemini, pi, omp, run
	Session string `json:"session,omitempty"` // the agent's own session id
	// PID is the agent's process, and Start its start time as the kernel counts it
	// (/proc/PID/stat field 22, clock ticks since boot), so a pid reused by another
	// process is never taken for the agent. Zero when unknown.
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"`
	Cwd   string `json:"cwd"`   // the directory the agent works in (absolute)
	State string `json:"state"` // one of the states above
	// ExitCode is set with Done: the command's exit status (0 included).
	ExitCode *int      `json:"exit_code,omitempty"`
	Source   string    `json:"source"`          // one of the sources above
	Event    string    `json:"event,omitempty"` // what the agent said (hook_event_name, …)
	Time     time.Time `json:"time"`            // when it said it
	// Since is when the agent entered State (kept across records of the same state).
	Since time.Time `json:"since"`
	// Program is the agent's program name as its argv gives it (claude, codex, node …).
	Program string `json:"program,omitempty"`
	// Read is when a person opened the agent's worktree after it ended (a done agent stays
	// unread until then).
	Read time.Time `json:"read,omitzero"`
	// Started is when the command started, on a wrapper's done record (its Time is when the
	// command ended): how long it ran, so a command that ended at once is a failed start.
	Started time.Time `json:"started,omitzero"`
}

// Dir is the store's directory for the environment getenv reads.
func Dir(getenv func(string) string) string {
	if d := getenv("COPSE_STATE_DIR"); d != "" {
		return filepath.Join(d, "agents")
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "copse", "agents")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "state", "copse", "agents")
}

// Name is the file a record of agent and session (else pid) is kept in. It holds only
// safe characters: a session id is the agent's text.
func Name(agent, session string, pid int) string {
	key := session
	if key == "" {
		key = "pid" + strconv.Itoa(pid)
	}
	clean := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if b.Len() >= 100 {
				break
			}
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
				b.WriteRune(r)
			default:
				b.WriteByte('_')
			}
		}
		return strings.TrimLeft(b.String(), ".")
	}
	return clean(agent) + "-" + clean(key) + ".json"
}

// Write replaces the record's file whole (write and rename: a reader sees the old record
// or the new one). Since is kept from the record it replaces when the state is the same,
// and set to r.Time otherwise.
func Write(dir string, r Record) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	name := filepath.Join(dir, Name(r.Agent, r.Session, r.PID))
	if r.Since.IsZero() {
		r.Since = r.Time
		if old, err := read(name); err == nil && old.State == r.State && !old.Since.IsZero() {
			r.Since = old.Since
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return atomicfile.Write(name, b, 0o600)
}

func read(name string) (Record, error) {
	var r Record
	b, err := os.ReadFile(name)
	if err != nil {
		return r, err
	}
	err = json.Unmarshal(b, &r)
	return r, err
}

// Read is the record of agent and session (else pid), ok false when there is none (or it
// cannot be read).
func Read(dir, agent, session string, pid int) (Record, bool) {
	r, err := read(filepath.Join(dir, Name(agent, session, pid)))
	return r, err == nil
}

// ReadAll returns every readable record of dir (none when dir does not exist). A damaged
// file is skipped: an agent's word is a hint, never a decision.
func ReadAll(dir string) ([]Record, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(ents))
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if r, err := read(filepath.Join(dir, e.Name())); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// Remove deletes the record of agent and session (else pid); a missing one is fine.
func Remove(dir, agent, session string, pid int) error {
	err := os.Remove(filepath.Join(dir, Name(agent, session, pid)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
