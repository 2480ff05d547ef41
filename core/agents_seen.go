package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/internal/atomicfile"
)

// An observer (list --watch, the picker's agent re-read) compares what it sees with the last
// states copse observed, kept in <common>/copse/agents.json, and logs an agent.state event
// for each agent seen before in another state. The file is compared and replaced (by
// rename) under its own short flock, <common>/copse/agents.lock, so two observers log
// a change once: the second finds the new state already recorded. An observation that began
// before the recorded one is dropped, so a slow observer never logs a change back to
// what it saw earlier. A list that is not watching never reads or takes any of this.

const (
	agentsSeenFile = "agents.json"
	agentsLockFile = "agents.lock"
	// agentsLockWait bounds the wait for the observers' flock and, when there are events
	// to log, for the repository lock (under LockNoticeAfter, so no notice is printed). A
	// round that cannot have them is skipped; the change stays pending for the next.
	agentsLockWait = 500 * time.Millisecond
)

// agentsSeen is agents.json.
type agentsSeen struct {
	// Observed is when the recorded observation began (Unix nanoseconds).
	Observed int64       `json:"observed"`
	Agents   []seenAgent `json:"agents"`
}

type seenAgent struct {
	Path      string `json:"path"`
	PID       int    `json:"pid,omitempty"`
	Command   string `json:"command,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	State     string `json:"state"`
}

// key tells agents apart across observations: its worktree, its workspace and its process
// (a tmux pane's pid; none for a Herdr workspace). The command may change (a pane's
// foreground program) without it being another agent.
func (a seenAgent) key() string {
	return a.Path + "\x00" + a.Workspace + "\x00" + strconv.Itoa(a.PID)
}

// RecordAgents compares the agents of rows (as List with status or Agents read them, in an
// observation that began at began) with the last ones observed, and logs an agent.state
// event for each agent whose state changed. It returns warnings (nothing is fatal: the
// observation is what the caller shows either way).
func (s *Service) RecordAgents(ctx context.Context, began time.Time, rows []Worktree) []string {
	return s.impl.recordAgents(ctx, began, rows)
}

func (s *Env) recordAgents(ctx context.Context, began time.Time, rows []Worktree) []string {
	cd, err := s.CommonDir(ctx)
	if err != nil {
		return []string{"agent states not recorded: " + AsError(err).Error()}
	}
	dir := filepath.Join(cd, "copse")
	if !inWorkspaces(rows) {
		if _, err := os.Lstat(filepath.Join(dir, agentsSeenFile)); errors.Is(err, os.ErrNotExist) {
			return nil // nothing to compare and nothing to forget: no file is made
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return []string{"agent states not recorded: " + Escape(err.Error())}
	}
	unlock, err := flockFor(ctx, filepath.Join(dir, agentsLockFile), agentsLockWait)
	if err != nil {
		return nil // another observer is recording; the next round compares again
	}
	defer unlock()

	var prev agentsSeen
	if b, err := os.ReadFile(filepath.Join(dir, agentsSeenFile)); err == nil {
		_ = json.Unmarshal(b, &prev) // a damaged record is a fresh start, not an error
	}
	if began.UnixNano() < prev.Observed {
		return nil // older than what is recorded
	}
	before := make(map[string]seenAgent, len(prev.Agents))
	for _, a := range prev.Agents {
		before[a.key()] = a
	}
	next := agentsSeen{Observed: began.UnixNano(), Agents: []seenAgent{}}
	var events, toNotify []Event
	for _, r := range rows {
		for _, a := range r.Agents {
			if a.Workspace == "" {
				continue // a process outside any workspace is only ever running
			}
			now := seenAgent{Path: r.Path, PID: a.PID, Command: a.Command, Workspace: a.Workspace, State: a.State}
			next.Agents = append(next.Agents, now)
			old, ok := before[now.key()]
			if !ok || old.State == now.State {
				continue // first seen (its state is in the listing), or unchanged
			}
			if a.Source == agentstate.SourceWrapper {
				continue // the wrapper of a --run command logs its own end
			}
			events = append(events, Event{
				Event:    EventAgentState,
				Repo:     s.Root(),
				Worktree: &EventWorktree{ID: r.ID, Path: r.Path, Branch: r.Branch},
				Agent:    &eventlog.Agent{PID: a.PID, Command: a.Command, Workspace: a.Workspace, State: a.State, Previous: old.State},
			})
			if !firstHand(a.Source) {
				// A hook or an extension notifies its own changes (notify.Transition).
				toNotify = append(toNotify, events[len(events)-1])
			}
		}
	}
	if len(events) > 0 {
		// The log's seq is handed out under the repository lock; hold it briefly, and
		// skip this round rather than wait behind a long mutation.
		lctx, cancel := context.WithTimeout(ctx, agentsLockWait)
		release, err := s.lockRepo(lctx, cd, true)
		cancel()
		if err != nil {
			return nil
		}
		for _, ev := range events {
			if _, err := eventlog.Append(cd, ev); err != nil {
				release()
				return []string{"event " + ev.Event + " not recorded in " + Escape(eventlog.Path(cd)) + ": " + Escape(err.Error())}
			}
		}
		release()
		// Logged once (under the observers' flock), so notified once.
		s.notifyObserved(ctx, toNotify)
	}
	b, err := json.Marshal(next)
	if err != nil {
		return []string{"agent states not recorded: " + Escape(err.Error())}
	}
	if err := atomicfile.Write(filepath.Join(dir, agentsSeenFile), b, 0o600); err != nil {
		return []string{"agent states not recorded: " + Escape(err.Error())}
	}
	return nil
}

// flockFor takes an exclusive flock on name (made when missing), waiting at most wait.
func flockFor(ctx context.Context, name string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) || time.Now().After(deadline) || ctx.Err() != nil {
			f.Close()
			return nil, err
		}
		time.Sleep(delay)
	}
}

// inWorkspaces reports an agent of rows in a workspace: the only ones whose state changes.
func inWorkspaces(rows []Worktree) bool {
	for _, r := range rows {
		for _, a := range r.Agents {
			if a.Workspace != "" {
				return true
			}
		}
	}
	return false
}
