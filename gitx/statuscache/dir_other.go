//go:build !linux

package statuscache

import (
	"os"

	"golang.org/x/sys/unix"
)

// listDir reads one directory of the walk from its open descriptor (a duplicate of it, so
// the os.File that reads it can close its own) and keeps what the walk needs.
func listDir(fd int, _ []byte) (dirList, error) {
	var l dirList
	dup, err := unix.Dup(fd)
	if err != nil {
		return l, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		return l, err
	}
	for _, e := range list {
		typ := uint8(unix.DT_REG)
		switch {
		case e.Type()&os.ModeSymlink != 0:
			typ = unix.DT_LNK
		case e.IsDir():
			typ = unix.DT_DIR
		}
		if err := l.add(fd, []byte(e.Name()), typ); err != nil {
			return l, err
		}
	}
	return l, nil
}

// fstatatNoFollow is unix.Fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW).
func fstatatNoFollow(dir int, name []byte, st *unix.Stat_t) error {
	return unix.Fstatat(dir, string(name), st, unix.AT_SYMLINK_NOFOLLOW)
}
