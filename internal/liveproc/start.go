package liveproc

import "time"

// StartTime is when process pid started, as the kernel counts it (field 22 of
// /proc/PID/stat: clock ticks since boot), and whether it could be read (Linux only). A pid
// with the start time recorded earlier is the same process; another start time, or none,
// means that process is gone (and the pid perhaps reused).
func StartTime(pid int) (uint64, bool) { return startTime(pid) }

// StartedAt is the wall-clock time of a start time StartTime read (false where copse
// cannot tell): to within the kernel's clock tick (10 ms).
func StartedAt(start uint64) (time.Time, bool) { return startedAt(start) }

// Alive reports that pid is still the process that started at start (start 0: any process
// with that pid). Where copse cannot tell (not Linux), it says alive: a claim is never
// dropped on a guess.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	got, ok := startTime(pid)
	if !ok {
		return !procReadable()
	}
	return start == 0 || got == start
}
