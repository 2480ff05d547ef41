package core

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/internal/textsafe"
)

// What a failed gate's report shows of its log: enough to see the failing test, bounded
// so a noisy gate cannot flood a terminal, a JSON reply or the picker's preview.
const (
	gateTailLines = 20
	gateTailBytes = 4 << 10
	gateTailCells = 300 // one line, cut: a minified bundle is one line
)

// maxLandLog bounds what LandLog reads: a gate that printed more shows its last part.
const maxLandLog = 8 << 20

// gateTail returns the last lines of the log at path (at most gateTailLines, from its last
// gateTailBytes), each made safe to print on a terminal: control characters and escape
// sequences escaped, tabs as spaces, cut to gateTailCells. nil when it cannot be read.
func gateTail(path string) []string {
	data, cut, err := readEnd(path, gateTailBytes)
	if err != nil {
		return nil
	}
	return tailLines(data, cut, gateTailLines)
}

// readEnd reads at most limit bytes from the end of the file at path; cut reports that
// the file holds more before them.
func readEnd(path string, limit int64) (data []byte, cut bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	off := int64(0)
	if fi.Size() > limit {
		off, cut = fi.Size()-limit, true
	}
	data, err = io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	return data, cut, err
}

func tailLines(data []byte, cut bool, n int) []string {
	data = bytes.TrimRight(data, "\n")
	lines := strings.Split(string(data), "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:] // the first began before the bytes read
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, textsafe.Cut(SafeLogLine(l), gateTailCells))
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// SafeLogLine makes one line of a gate's output safe to draw on a terminal: a trailing
// CR dropped, tabs as spaces, every other control character and escape sequence shown
// escaped. It keeps the whole line (the tail cuts its lines; land status --log does not).
func SafeLogLine(l string) string {
	l = strings.TrimSuffix(l, "\r")
	l = strings.ReplaceAll(l, "\t", "    ")
	return textsafe.EscapeHidden(l)
}

// LandLogText is a land job's test log as its gate wrote it.
type LandLogText struct {
	Job  string
	Path string // the log read: the one beside the job's record, whatever path the record names
	Data []byte // its last maxLandLog bytes when it is larger
	Cut  bool   // the log holds more before Data
}

// LandLog reads the test gate's log of job (land-N).
func (s *Service) LandLog(ctx context.Context, job string) (*LandLogText, error) {
	ticket, err := ParseJobID(job)
	if err != nil {
		return nil, err
	}
	out, err := s.impl.landStatus(ctx, landStatusCmd{ticket: ticket})
	if err != nil {
		return nil, err
	}
	commonDir, err := s.impl.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	j := out.Land
	l := &LandLogText{Job: j.Job, Path: landjobs.LogPath(landjobs.Dir(commonDir), landjobs.Name(ticket))}
	l.Data, l.Cut, err = readEnd(l.Path, maxLandLog)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, Refused(CodeLandNoLog, "a job has a log once its test gate ran; `copse land status "+j.Job+"` shows where it stopped",
			"%s has no test log (phase %s, state %s)", j.Job, j.Phase, j.State)
	case err != nil:
		return nil, failed(CodeLandQueueUnreadable, err, "check the permissions of "+QuoteDisplay(l.Path), "cannot read the test log of %s", j.Job)
	}
	return l, nil
}
