//go:build linux || darwin || freebsd

package statuscache

import "golang.org/x/sys/unix"

// fileTimes is a file's modification time and its change time, which no program can set
// (an edit that restores the mtime still moves it), and whether this system reports them.
func fileTimes(st *unix.Stat_t) (msec, mnsec, csec, cnsec int64, ok bool) {
	return int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec), true
}
