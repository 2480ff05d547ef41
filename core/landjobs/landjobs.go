// Package landjobs keeps the land queue's records on disk, under <common>/copse/land/, so
// every copse process of a repository sees the same queue without a daemon:
//
//	ticket          the last ticket handed out (a decimal number; write + rename)
//	land-N.json     job N's record (write + rename, so a reader never sees half of one)
//	land-N.lock     job N's liveness lock (core holds it while the job lives)
//	land-N.log      the test gate's output
//
// It knows file names, tickets and the two fields every record carries (job and ticket);
// what a record says and what the queue does with it (positions, states, the land loop)
// is core's, which passes its record type in. It imports nothing of copse but
// internal/textsafe: core imports it, never the other way.
package landjobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Dir is where the queue of the repository with commonDir lives.
func Dir(commonDir string) string { return filepath.Join(commonDir, "copse", "land") }

// Name is the id of the job with ticket: "land-N".
func Name(ticket int64) string { return "land-" + strconv.FormatInt(ticket, 10) }

// ParseName reads a job id, "land-N" or "N", as its ticket; ok is false for anything
// Name would not write (zero, a sign, leading zeros, other text).
func ParseName(raw string) (ticket int64, ok bool) {
	digits := strings.TrimPrefix(raw, "land-")
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != digits {
		return 0, false
	}
	return n, true
}

// LogPath is where the test gate of job writes its output.
func LogPath(dir, job string) string { return filepath.Join(dir, job+".log") }

// LockPath is job's liveness lock file.
func LockPath(dir, job string) string { return filepath.Join(dir, job+".lock") }

func recordPath(dir, job string) string { return filepath.Join(dir, job+".json") }

// header is what the store reads of every record: its name and its place in the queue.
type header struct {
	Job    string `json:"job"`
	Ticket int64  `json:"ticket"`
}

// NextTicket bumps the ticket counter and returns the new ticket. It never hands out a
// ticket at or below an existing record's, even when the counter was lost. The caller
// holds the repository lock.
func NextTicket(dir string) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	var last int64
	counter := filepath.Join(dir, "ticket")
	b, err := os.ReadFile(counter)
	switch {
	case err == nil:
		if last, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil || last < 0 {
			return 0, fmt.Errorf("the land ticket counter %s is corrupt (%q)", counter, textsafe.Cut(textsafe.Escape(string(b)), 40))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return 0, err
	}
	heads, err := ReadAll[header](dir)
	if err != nil {
		return 0, err
	}
	for _, h := range heads {
		last = max(last, h.Ticket)
	}
	next := last + 1
	if err := writeFileAtomic(counter, []byte(strconv.FormatInt(next, 10)+"\n")); err != nil {
		return 0, err
	}
	return next, nil
}

// Write replaces job's record with rec as indented JSON, through a temporary file and a
// rename. Only the holder of the job's liveness lock writes its record.
func Write(dir, job string, rec any) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(recordPath(dir, job), append(b, '\n'))
}

// Read reads job's record into a T. A record that does not parse, or whose job and
// ticket do not match its file name, is an error; a missing one is fs.ErrNotExist.
func Read[T any](dir, job string) (T, error) {
	var rec T
	path := recordPath(dir, job)
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	_, err = decode(path, b, &rec)
	return rec, err
}

func decode(path string, b []byte, rec any) (*header, error) {
	var h header
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("land record %s is corrupt: %w", path, err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("land record %s is corrupt: %w", path, err)
	}
	if h.Job != strings.TrimSuffix(filepath.Base(path), ".json") || h.Ticket <= 0 {
		return nil, fmt.Errorf("land record %s does not match its name", path)
	}
	return &h, nil
}

// ReadAll reads every record (land-*.json) into Ts, ordered by ticket. One that does not
// parse or match its name is an error: the queue's order cannot be trusted then. A record
// removed while it is read is skipped.
func ReadAll[T any](dir string) ([]T, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type ticketed struct {
		ticket int64
		rec    T
	}
	var recs []ticketed
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "land-") || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var rec T
		h, err := decode(path, b, &rec)
		if err != nil {
			return nil, err
		}
		recs = append(recs, ticketed{h.Ticket, rec})
	}
	sort.Slice(recs, func(a, b int) bool { return recs[a].ticket < recs[b].ticket })
	out := make([]T, len(recs))
	for i, r := range recs {
		out[i] = r.rec
	}
	return out, nil
}

// maxScanned is the largest record Scan hands out: a bigger file is not copse's.
const maxScanned = 1 << 20

// Scan hands fn the name (file name without .json) and bytes of every record file, in
// no particular order and unchecked: for a reader that must go on past a damaged record
// (prune skips what it cannot read instead of stopping). Unreadable and oversized files
// are skipped.
func Scan(dir string, fn func(name string, raw []byte)) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > maxScanned {
			continue
		}
		fn(strings.TrimSuffix(filepath.Base(f), ".json"), b)
	}
}

// Remove deletes job's record; one already gone is no error. The ticket counter stays,
// so the id is never handed out again.
func Remove(dir, job string) error {
	if err := os.Remove(recordPath(dir, job)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
