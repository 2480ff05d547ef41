package land

import (
	"bytes"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
)

// What a failed gate's report shows of its log: enough to see the failing test, bounded
// so a noisy gate cannot flood a terminal, a JSON reply or the picker's preview.
const (
	gateTailLines = 20
	gateTailBytes = 4 << 10
	gateTailCells = 300 // one line, cut: a minified bundle is one line
)

// gateTail returns the last lines of the log at path (at most gateTailLines, from its last
// gateTailBytes), each made safe to print on a terminal: control characters and escape
// sequences escaped, tabs as spaces, cut to gateTailCells. nil when it cannot be read.
func gateTail(path string) []string {
	data, cut, err := core.ReadEnd(path, gateTailBytes)
	if err != nil {
		return nil
	}
	return tailLines(data, cut, gateTailLines)
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
