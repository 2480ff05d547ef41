//go:build darwin || freebsd

package statuscache

import "syscall"

func changeTime(st *syscall.Stat_t) (sec, nsec int64, ok bool) {
	return int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec), true
}
