// Package eventlog holds copse's events log: the JSON lines in <common>/copse/events.jsonl,
// how a line is appended (one write, a seq that only grows), read and followed through
// rotation. It knows the file format only, not which change makes which event (core
// decides that). It imports nothing of copse: core and the command line import it.
package eventlog

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
// from copse.
//
// seq only grows, whatever happens to the log: a high-water mark in <common>/copse/events.seq
// (written, under the same lock, before the line) remembers the last seq handed out, so a
// log truncated in place (logrotate's copytruncate), renamed away (events.jsonl.1) or cut
// short (a lost tail) never makes copse hand out a seq twice. The next seq is one past the
// largest of the mark, the log's last line and the rotated neighbour's last line (which
// covers a mark that was lost with the log). A seq whose line was never written (copse
// killed between the two writes) is a gap, never a repeat.

// Worktree names the worktree an event is about.
type Worktree struct {
	ID     string `json:"id,omitempty"`
	Path   string `json:"path"`
	Branch string `json:"branch,omitempty"`
}

// Event is one line of the log.
type Event struct {
	V        int       `json:"v"`     // 1
	Seq      int64     `json:"seq"`   // assigned by Append
	Time     string    `json:"time"`  // RFC3339Nano UTC, assigned by Append
	Event    string    `json:"event"` // worktree.created|removed|claimed|released|pruned|restored, land.queued|landed|blocked|abandoned, agent.state
	Repo     string    `json:"repo"`  // main checkout path (or common dir for bare)
	Worktree *Worktree `json:"worktree,omitempty"`
	Session  string    `json:"session,omitempty"`
	Job      string    `json:"job,omitempty"`      // land job id
	Into     string    `json:"into,omitempty"`     // land target branch
	Commit   string    `json:"commit,omitempty"`   // landed/removed commit
	Reason   string    `json:"reason,omitempty"`   // blocked code, prune reason…
	Previous string    `json:"previous,omitempty"` // previous session on claim takeover
	Agent    *Agent    `json:"agent,omitempty"`    // agent.state: the agent and its change
	// BranchDeleted: the change deleted the worktree's branch too (worktree.removed and
	// worktree.pruned, land.landed's clean-up).
	BranchDeleted bool `json:"branch_deleted,omitempty"`
}

// Agent is the agent an agent.state event is about: what copse saw run in the worktree,
// and the state it was last seen in before this one.
type Agent struct {
	PID       int    `json:"pid,omitempty"`
	Command   string `json:"command,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	State     string `json:"state"`
	Previous  string `json:"previous"`
	// ExitCode is a done agent's exit status (0 included), where its wrapper told it.
	ExitCode *int `json:"exit_code,omitempty"`
}

// Path is where the log of the repository with commonDir lives.
func Path(commonDir string) string { return filepath.Join(commonDir, "copse", "events.jsonl") }

// seqPath is the high-water mark: the last seq Append handed out, in decimal.
func seqPath(commonDir string) string { return filepath.Join(commonDir, "copse", "events.seq") }

// rotatedPath is where logrotate (and most rotations) put the previous log.
func rotatedPath(commonDir string) string { return Path(commonDir) + ".1" }

// tailWindow is how much of the log's end Append reads to find the last seq.
const tailWindow = 64 << 10

// Append appends one line to <common>/copse/events.jsonl with ONE write(2) (O_APPEND),
// assigning seq (last seq + 1) and time. The caller holds the repository lock.
func Append(commonDir string, ev Event) (Event, error) {
	dir := filepath.Join(commonDir, "copse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ev, err
	}
	f, err := os.OpenFile(Path(commonDir), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return ev, err
	}
	defer f.Close()
	last, torn, err := lastSeq(f)
	if err != nil {
		return ev, err
	}
	last = max(last, seqMark(commonDir), rotatedSeq(commonDir))
	ev.V = 1
	ev.Seq = last + 1
	// The mark goes first: once it is written this seq is spent, whatever becomes of the line.
	if err := writeSeqMark(commonDir, ev.Seq); err != nil {
		return ev, err
	}
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

// seqMark reads the high-water mark; a missing or unreadable one counts as 0 (the logs'
// own last lines still count).
func seqMark(commonDir string) int64 {
	b, err := os.ReadFile(seqPath(commonDir))
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// writeSeqMark replaces the mark with seq, through a temporary file and a rename, so a
// reader (or a crash) never sees half a number.
func writeSeqMark(commonDir string, seq int64) error {
	dir := filepath.Dir(seqPath(commonDir))
	tmp, err := os.CreateTemp(dir, ".events.seq.*")
	if err != nil {
		return err
	}
	// Readable like the log (CreateTemp makes 0600): another user of a shared repository
	// reads it to continue the count.
	merr := tmp.Chmod(0o644)
	_, werr := tmp.WriteString(strconv.FormatInt(seq, 10) + "\n")
	cerr := tmp.Close()
	if err := errors.Join(merr, werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), seqPath(commonDir)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// rotatedSeq is the last seq in the rotated neighbour, 0 when there is none.
func rotatedSeq(commonDir string) int64 {
	f, err := os.Open(rotatedPath(commonDir))
	if err != nil {
		return 0
	}
	defer f.Close()
	n, _, _ := lastSeq(f)
	return n
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

// Read calls fn for each event in the log with seq > since, in order; a line that
// is not an event is skipped. It returns the offset just past the last complete line read.
func Read(commonDir string, since int64, fn func(Event, []byte) error) (int64, error) {
	f, err := os.Open(Path(commonDir))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	off, _, err := readFrom(f, 0, since, fn)
	return off, err
}

// readFrom reads the complete lines from off on; it returns the offset past the last one
// and that line (with its newline), or last unchanged when there was none.
func readFrom(f *os.File, off, since int64, fn func(Event, []byte) error) (end int64, last []byte, err error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, nil, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return off, last, nil // a partial last line waits for its newline
		}
		if err != nil {
			return off, last, err
		}
		off += int64(len(line))
		last = line
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
			return off, last, err
		}
	}
}

// Follow is Read, then waits for more lines until ctx is done (polling the
// file; copse runs no daemon to notify anyone). Cancelling ctx ends it with nil. It
// follows the log through rotation: see follower.
func Follow(ctx context.Context, commonDir string, since int64, poll time.Duration, fn func(Event, []byte) error) error {
	w := &follower{path: Path(commonDir), since: since}
	defer w.close()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := w.poll(fn); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// follower reads the log as it grows, one poll at a time, and hands each event with seq
// past since to fn once, in order. It notices the two ways a log is rotated:
//   - truncated in place (copytruncate: the size is below the offset read, or the line
//     that ended there is gone, when the log grew back past it): what was
//     appended since the last poll was copied to events.jsonl.1 first, so that is read
//     (past since), then the log again from its start;
//   - renamed away and replaced (the path names another file): the rest of the old file is
//     read through the open descriptor, then the new file from its start.
//
// Seq only grows across rotations (see Append), so since alone keeps events from
// being handed out twice.
type follower struct {
	path  string
	f     *os.File
	off   int64
	tail  []byte // the line that ends at off, to tell a log that grew from one rewritten
	since int64
}

func (w *follower) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

func (w *follower) poll(fn func(Event, []byte) error) error {
	emit := func(ev Event, b []byte) error {
		w.since = max(w.since, ev.Seq)
		return fn(ev, b)
	}
	if w.f == nil {
		f, err := os.Open(w.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		w.f, w.off, w.tail = f, 0, nil
	}
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	if !w.intact(st.Size()) {
		if err := w.readRotated(emit); err != nil {
			return err
		}
		w.off, w.tail = 0, nil
	}
	if err := w.read(emit); err != nil {
		return err
	}
	cur, err := os.Stat(w.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // renamed away, its successor not there yet: keep reading the old one
	}
	if err != nil {
		return err
	}
	if os.SameFile(st, cur) {
		return nil
	}
	// Rotated by rename: read what the old file got since (a writer that opened it before
	// the rename), then switch to the new one.
	if err := w.read(emit); err != nil {
		return err
	}
	w.close()
	return w.poll(fn)
}

func (w *follower) read(fn func(Event, []byte) error) error {
	off, last, err := readFrom(w.f, w.off, w.since, fn)
	if off != w.off {
		w.off, w.tail = off, last
	}
	return err
}

// intact reports whether the open log still holds what was read: it is at least as long,
// and the line read last still ends at off (each line has its own seq and time, so a log
// truncated and grown back past off does not match).
func (w *follower) intact(size int64) bool {
	if size < w.off {
		return false
	}
	if len(w.tail) == 0 {
		return true
	}
	buf := make([]byte, len(w.tail))
	if _, err := w.f.ReadAt(buf, w.off-int64(len(w.tail))); err != nil {
		return false
	}
	return bytes.Equal(buf, w.tail)
}

// readRotated reads the rotated neighbour for the events past since that a truncation
// in place took from the log before this follower saw them.
func (w *follower) readRotated(fn func(Event, []byte) error) error {
	f, err := os.Open(w.path + ".1")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, _, err = readFrom(f, 0, w.since, fn)
	return err
}
