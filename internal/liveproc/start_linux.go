package liveproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// Fields are counted after the command name's last ')': the name may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After ')' come field 3 (state) onwards: field 22 is f[19].
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

// procReadable: /proc answers (a missing pid there means the process is gone).
func procReadable() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's start time: 100 on every Linux
// architecture copse builds for.
const clockTicks = 100

// startedAt converts a start time (ticks since boot) to the wall clock through /proc/uptime.
func startedAt(start uint64) (time.Time, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return time.Time{}, false
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return time.Time{}, false
	}
	ago := time.Duration(up*float64(time.Second)) - time.Duration(start)*time.Second/clockTicks
	return time.Now().Add(-ago), true
}
