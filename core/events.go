package core

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Events are JSON lines in <common>/copse/events.jsonl, one per change, appended under the
// repository lock with one write(2) each (O_APPEND), so readers never see half a line
// from copse and seq numbers are dense and increasing.

// EventWorktree names the worktree an event is about.
type EventWorktree struct {
	ID     string `json:"id,omitempty"`
	Path   string `json:"path"`
	Branch string `json:"branch,omitempty"`
}

// Event is one line of the log.
type Event struct {
	V        int            `json:"v"`     // 1
	Seq      int64          `json:"seq"`   // assigned by AppendEvent
	Time     string         `json:"time"`  // RFC3339Nano UTC, assigned by AppendEvent
	Event    string         `json:"event"` // worktree.created|removed|claimed|released|pruned|restored, land.queued|landed|blocked|abandoned
	Repo     string         `json:"repo"`  // main checkout path (or common dir for bare)
	Worktree *EventWorktree `json:"worktree,omitempty"`
	Session  string         `json:"session,omitempty"`
	Job      string         `json:"job,omitempty"`      // land job id
	Into     string         `json:"into,omitempty"`     // land target branch
	Commit   string         `json:"commit,omitempty"`   // landed/removed commit
	Reason   string         `json:"reason,omitempty"`   // blocked code, prune reason…
	Previous string         `json:"previous,omitempty"` // previous session on claim takeover
}

// Event names.
const (
	EventCreated  = "worktree.created"
	EventRemoved  = "worktree.removed"
	EventClaimed  = "worktree.claimed"
	EventReleased = "worktree.released"
	EventPruned   = "worktree.pruned"
	EventRestored = "worktree.restored"
)

// EventsPath is where the log of the repository with commonDir lives.
func EventsPath(commonDir string) string { return filepath.Join(commonDir, "copse", "events.jsonl") }

// tailWindow is how much of the log's end AppendEvent reads to find the last seq.
const tailWindow = 64 << 10

// AppendEvent appends one line to <common>/copse/events.jsonl with ONE write(2) (O_APPEND),
// assigning seq (last seq + 1) and time. The caller holds the repository lock.
func AppendEvent(commonDir string, ev Event) (Event, error) {
	dir := filepath.Join(commonDir, "copse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ev, err
	}
	f, err := os.OpenFile(EventsPath(commonDir), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return ev, err
	}
	defer f.Close()
	last, torn, err := lastSeq(f)
	if err != nil {
		return ev, err
	}
	ev.V = 1
	ev.Seq = last + 1
	ev.Time = time.Now().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(ev)
	if err != nil {
		return ev, err
	}
	line = append(line, '\n')
	if torn {
		// Something other than copse left half a line: end it, so this event starts a
		// line of its own (still one write).
		line = append([]byte{'\n'}, line...)
	}
	n, err := f.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	return ev, err
}

// lastSeq reads the seq of the last complete line, and whether the log ends in the
// middle of a line. A torn last line (a writer killed mid-write by something other than
// copse) is skipped; an empty log has seq 0.
func lastSeq(f *os.File) (int64, bool, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	size := st.Size()
	if size == 0 {
		return 0, false, nil
	}
	for window := int64(tailWindow); ; window *= 4 {
		off := max(size-window, 0)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return 0, false, err
		}
		torn := buf[len(buf)-1] != '\n'
		lines := bytes.Split(buf, []byte{'\n'})
		// The first piece may be cut by the window; use it only when the window is the file.
		first := 1
		if off == 0 {
			first = 0
		}
		for i := len(lines) - 1; i >= first; i-- {
			var e struct {
				Seq *int64 `json:"seq"`
			}
			if len(bytes.TrimSpace(lines[i])) == 0 || json.Unmarshal(lines[i], &e) != nil || e.Seq == nil {
				continue
			}
			return *e.Seq, torn, nil
		}
		if off == 0 {
			return 0, torn, nil
		}
	}
}

// ReadEvents calls fn for each event in the log with seq > since, in order; a line that
// is not an event is skipped. It returns the offset just past the last complete line read.
func ReadEvents(commonDir string, since int64, fn func(Event, []byte) error) (int64, error) {
	f, err := os.Open(EventsPath(commonDir))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return readFrom(f, 0, since, fn)
}

func readFrom(f *os.File, off, since int64, fn func(Event, []byte) error) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return off, nil // a partial last line waits for its newline
		}
		if err != nil {
			return off, err
		}
		off += int64(len(line))
		body := bytes.TrimSuffix(line, []byte{'\n'})
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		var ev Event
		if json.Unmarshal(body, &ev) != nil || ev.Event == "" {
			// Half a line left by a writer that was killed (not copse, which writes
			// each line at once): skip it rather than stop every reader for good.
			continue
		}
		if ev.Seq <= since {
			continue
		}
		if err := fn(ev, body); err != nil {
			return off, err
		}
	}
}

// FollowEvents is ReadEvents, then waits for more lines until ctx is done (polling the
// file; copse runs no daemon to notify anyone). Cancelling ctx ends it with nil.
func FollowEvents(ctx context.Context, commonDir string, since int64, poll time.Duration, fn func(Event, []byte) error) error {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	off := int64(0)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if f == nil {
			var err error
			f, err = os.Open(EventsPath(commonDir))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		if f != nil {
			var err error
			if off, err = readFrom(f, off, since, func(ev Event, b []byte) error {
				since = max(since, ev.Seq)
				return fn(ev, b)
			}); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Seq parses a --since value: a non-negative integer.
func ParseSeq(raw string) (int64, error) {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, usage(CodeBadSince, "since", "pass the seq of the last event you saw (0 for all)", "--since %s is not a sequence number", quote(raw))
	}
	return n, nil
}

// CommonDir is the repository's common git directory (where copse keeps its lock, events
// and land queue).
func (s *Service) CommonDir(ctx context.Context) (string, error) { return s.impl.commonDir(ctx) }

// emit appends ev for a mutation that happened, under the lock execute holds. The change
// is done either way: a log that cannot be written is a warning on the outcome, not a
// failure of the mutation.
func (s *service) emit(out *Outcome, ev Event, wt *Worktree) {
	s.mu.Lock()
	cd := s.repo.commonDir
	s.mu.Unlock()
	ev.Repo = s.root()
	if wt != nil {
		ev.Worktree = &EventWorktree{ID: wt.ID, Path: wt.Path, Branch: wt.Branch}
	}
	if ev.Session == "" {
		if id, ok, _ := resolveSession(nil, s.opts.Getenv); ok {
			ev.Session = id.s
		}
	}
	if cd == "" {
		out.Warnings = append(out.Warnings, "event "+ev.Event+" not recorded: the git directory is unknown")
		return
	}
	if _, err := AppendEvent(cd, ev); err != nil {
		out.Warnings = append(out.Warnings, "event "+ev.Event+" not recorded in "+Escape(EventsPath(cd))+": "+Escape(err.Error()))
	}
}

// emitted records the event of a create or remove that succeeded (execute's hook).
func (s *service) emitted(out *Outcome, err error) (*Outcome, error) {
	if err != nil || out == nil {
		return out, err
	}
	switch out.Operation {
	case OpCreate:
		ev := Event{Event: EventCreated, Commit: out.Worktree.Head}
		if out.Claim != nil {
			ev.Session = out.Claim.Session
		}
		s.emit(out, ev, out.Worktree)
		if out.Claim != nil {
			s.emit(out, Event{Event: EventClaimed, Session: out.Claim.Session}, out.Worktree)
		}
	case OpRemove:
		s.emit(out, Event{Event: EventRemoved, Commit: out.Worktree.Head}, out.Worktree)
	case OpRestore:
		if out.Worktree != nil {
			ev := Event{Event: EventRestored, Commit: out.Worktree.Head}
			if out.Restored != nil {
				ev.Reason = "restored " + out.Restored.ID
			}
			s.emit(out, ev, out.Worktree)
		}
	}
	return out, nil
}
