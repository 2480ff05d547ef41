//go:build linux

package liveproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func canIdentify() bool { return true }

// userHZ is the kernel's clock tick for /proc times (USER_HZ: 100 on every Linux ABI Go
// supports).
const userHZ = 100

var bootTime = sync.OnceValue(func() time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(n, 0)
			}
		}
	}
	return time.Time{}
})

func startedAt(ticks uint64) time.Time {
	boot := bootTime()
	if boot.IsZero() || ticks == 0 {
		return time.Time{}
	}
	return boot.Add(time.Duration(ticks) * time.Second / userHZ)
}

func identify(pid int) (Ident, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Ident{}, false
	}
	id := Ident{PID: pid, PPID: ppidOf(stat), Start: startOf(stat)}
	if id.Start == 0 || exited(stat) {
		return Ident{}, false
	}
	id.Argv = cmdline(pid)
	return id, true
}

// exited reports a zombie (Z) or a dying process (X): it has ended, only its entry is left
// until its parent reaps it.
func exited(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	return stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// startOf reads field 22 of /proc/<pid>/stat (starttime), counting fields after the
// command name's last ')' as ppidOf does.
func startOf(stat []byte) uint64 {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	// After ')': field 3 (state) is f[0], so field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}
