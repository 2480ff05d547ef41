package statuscache

import "syscall"

// changeTime is a file's change time, which no program can set (an edit that restores
// the mtime still moves it), and whether this system reports it.
func changeTime(st *syscall.Stat_t) (sec, nsec int64, ok bool) {
	return int64(st.Ctim.Sec), int64(st.Ctim.Nsec), true
}
