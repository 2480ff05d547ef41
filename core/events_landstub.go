package core

// TODO(merge): delete, life-claims owns events.go. This is a throw-away copy of the agreed
// contract (notes/contract.md) so that land can emit its events before events.go exists.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

type EventWorktree struct {
	ID     string `json:"id,omitempty"`
	Path   string `json:"path"`
	Branch string `json:"branch,omitempty"`
}

type Event struct {
	V        int            `json:"v"`
	Seq      int64          `json:"seq"`
	Time     string         `json:"time"`
	Event    string         `json:"event"`
	Repo     string         `json:"repo"`
	Worktree *EventWorktree `json:"worktree,omitempty"`
	Session  string         `json:"session,omitempty"`
	Job      string         `json:"job,omitempty"`
	Into     string         `json:"into,omitempty"`
	Commit   string         `json:"commit,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Previous string         `json:"previous,omitempty"`
}

// AppendEvent appends one line to <common>/copse/events.jsonl with one write(2), assigning
// seq and time. The caller holds the repository lock.
func AppendEvent(commonDir string, ev Event) (Event, error) {
	dir := filepath.Join(commonDir, "copse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ev, err
	}
	path := filepath.Join(dir, "events.jsonl")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ev, err
	}
	var last struct {
		Seq int64 `json:"seq"`
	}
	if lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")); len(lines) > 0 && len(lines[len(lines)-1]) > 0 {
		_ = json.Unmarshal(lines[len(lines)-1], &last)
	}
	ev.V, ev.Seq, ev.Time = 1, last.Seq+1, time.Now().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(ev)
	if err != nil {
		return ev, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return ev, err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return ev, err
}
