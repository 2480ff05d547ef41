package core

import (
	"context"
	"strconv"

	"github.com/copse-dev/copse/core/eventlog"
)

// The events log itself (its file, seq, rotation, following) is core/eventlog; core
// decides which change makes which event (emit, emitted, the land loop's endings).

// Event is one line of the log; the alias keeps one type for core's callers and the log.
type Event = eventlog.Event

// EventWorktree names the worktree an event is about.
type EventWorktree = eventlog.Worktree

// Event names.
const (
	EventCreated  = "worktree.created"
	EventRemoved  = "worktree.removed"
	EventClaimed  = "worktree.claimed"
	EventReleased = "worktree.released"
	EventPruned   = "worktree.pruned"
	EventRestored = "worktree.restored"

	EventLandQueued    = "land.queued"
	EventLandLanded    = "land.landed"
	EventLandBlocked   = "land.blocked" // every end other than landed: blocked, failed, cancelled, uncertain
	EventLandAbandoned = "land.abandoned"

	// EventAgentState is an agent copse observed in a new state (list --watch, the
	// picker): written by an observer, not by a mutation (RecordAgents).
	EventAgentState = "agent.state"
)

// ParseSeq parses a --since value: a non-negative integer.
func ParseSeq(raw string) (int64, error) {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, Usage(CodeBadSince, "since", "pass the seq of the last event you saw (0 for all)", "--since %s is not a sequence number", Quote(raw))
	}
	return n, nil
}

// CommonDir is the repository's common git directory (where copse keeps its lock, events
// and land queue).
func (s *Service) CommonDir(ctx context.Context) (string, error) { return s.impl.CommonDir(ctx) }

// emit appends ev for a mutation that happened, under the lock execute holds. The change
// is done either way: a log that cannot be written is a warning on the outcome, not a
// failure of the mutation.
func (s *Env) emit(out *Outcome, ev Event, wt *Worktree) {
	s.mu.Lock()
	commonDir := s.repo.commonDir
	s.mu.Unlock()
	ev.Repo = s.Root()
	if wt != nil {
		ev.Worktree = &EventWorktree{ID: wt.ID, Path: wt.Path, Branch: wt.Branch}
	}
	if ev.Session == "" {
		if id, ok, _ := ResolveSession(nil, s.Opts.Getenv); ok {
			ev.Session = id.s
		}
	}
	if commonDir == "" {
		out.Warnings = append(out.Warnings, "event "+ev.Event+" not recorded: the git directory is unknown")
		return
	}
	if _, err := eventlog.Append(commonDir, ev); err != nil {
		out.Warnings = append(out.Warnings, "event "+ev.Event+" not recorded in "+Escape(eventlog.Path(commonDir))+": "+Escape(err.Error()))
	}
}

// writeEvents appends the events a run produced, under the lock the engine holds. A
// warning about one that could not be written goes on the outcome when there is one.
func (s *Env) writeEvents(out *Outcome, events []pendingEvent) {
	if out == nil {
		out = &Outcome{} // the run failed: what it did is logged, the warning has nowhere to go
	}
	for _, e := range events {
		s.emit(out, e.ev, e.wt)
	}
}
