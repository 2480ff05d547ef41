//go:build !linux && !darwin && !freebsd

package statuscache

import "syscall"

// Without a change time the cache cannot tell an edit that restored the mtime: it proves
// nothing and status runs git.
func changeTime(*syscall.Stat_t) (sec, nsec int64, ok bool) { return 0, 0, false }
