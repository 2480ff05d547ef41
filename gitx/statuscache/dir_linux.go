//go:build linux

package statuscache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listDir reads one directory of the walk from its open descriptor with getdents64 and
// keeps only what the walk needs: the names of its subdirectories (a symbolic link is not
// one) and whether it holds .git and .gitignore. It allocates only the subdirectories'
// names, where os.File.ReadDir makes an entry for every file.
func listDir(fd int, buf []byte) (dirList, error) {
	var l dirList
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return l, err
		}
		if n == 0 {
			return l, nil
		}
		for b := buf[:n]; len(b) > 0; {
			// struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name (NUL-ended).
			if len(b) < 19 {
				return l, errors.New("statuscache: short directory entry")
			}
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return l, errors.New("statuscache: bad directory entry")
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if err := l.add(fd, name, typ); err != nil {
				return l, err
			}
		}
	}
}

// fstatatNoFollow is unix.Fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) for a name in a
// reused buffer: it copies the name to add the NUL, but allocates nothing.
func fstatatNoFollow(dir int, name []byte, st *unix.Stat_t) error {
	var buf [256]byte
	if len(name) >= len(buf) {
		return unix.Fstatat(dir, string(name), st, unix.AT_SYMLINK_NOFOLLOW)
	}
	copy(buf[:], name)
	buf[len(name)] = 0
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dir), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
