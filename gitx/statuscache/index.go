package statuscache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// indexEntry is what the cache needs of one index entry: its path, and whether it is a
// submodule (whose status git reads from the submodule itself, which no stat data here
// proves).
type indexEntry struct {
	path    string
	gitlink bool
}

// errUnprovable is an index the cache cannot vouch for: a split index (the entries live in
// another file), a sparse index (a directory stands for many entries). Status runs git.
var errUnprovable = errors.New("statuscache: index not provable without git")

// readIndex parses git's index file (format versions 2, 3 and 4; see git's
// Documentation/gitformat-index.txt) for its entry paths. Reading it in Go is the point:
// it costs a fraction of starting `git status`. Paths of the entries of a conflict (one per
// stage) are listed once.
func readIndex(b []byte) ([]indexEntry, error) {
	var entries []indexEntry
	err := eachIndexEntry(b, func(path []byte, gitlink bool) error {
		entries = append(entries, indexEntry{path: string(path), gitlink: gitlink})
		return nil
	})
	return entries, err
}

// eachIndexEntry calls fn for each path of the index b, in the index's order, and then
// checks its extensions. path is valid only during the call (it may be reused): a proof of
// a worktree of 20,000 files allocates nothing per file.
func eachIndexEntry(b []byte, fn func(path []byte, gitlink bool) error) error {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return errors.New("statuscache: not an index file")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("statuscache: index version %d", version)
	}
	n := binary.BigEndian.Uint32(b[8:12])
	if uint64(n) > uint64(len(b))/40 {
		return errors.New("statuscache: index entry count exceeds its size")
	}
	off := 12
	var prev, v4 []byte // the previous entry's path; version 4's path buffer
	for range n {
		const fixed = 62 // ctime, mtime, dev, ino, mode, uid, gid, size (40), oid (20), flags (2)
		if off+fixed > len(b) {
			return errors.New("statuscache: index truncated")
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		p := off + fixed
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			if version < 3 {
				return errors.New("statuscache: extended flags in a version 2 index")
			}
			p += 2
		}
		if p > len(b) {
			return errors.New("statuscache: index truncated")
		}
		var path []byte
		if version == 4 {
			// The path is the previous one minus its last strip bytes, plus a NUL-terminated
			// suffix; no padding.
			strip, used := varint(b[p:])
			if used == 0 || strip > uint64(len(v4)) {
				return errors.New("statuscache: bad path prefix in index")
			}
			p += used
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return errors.New("statuscache: index truncated")
			}
			keep := len(v4) - int(strip)
			same := prev != nil && keep == len(v4) && end == 0 // the very path again
			v4 = append(v4[:keep], b[p:p+end]...)
			path = v4
			off = p + end + 1
			if len(path) == 0 || off > len(b) {
				return errors.New("statuscache: bad index entry")
			}
			if same {
				continue // another stage of a conflicted path
			}
			prev = path
		} else {
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return errors.New("statuscache: index truncated")
			}
			path = b[p : p+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			size := (p + end - off + 8) &^ 7
			off += size
			if len(path) == 0 || off > len(b) {
				return errors.New("statuscache: bad index entry")
			}
			if bytes.Equal(prev, path) {
				continue // another stage of a conflicted path
			}
			prev = path
		}
		if err := fn(path, mode&0o170000 == 0o160000); err != nil {
			return err
		}
	}
	// Extensions: a split index keeps its entries in a shared file ("link"), a sparse index
	// folds directories into one entry ("sdir"): neither is provable here.
	// The file ends in a checksum of at least 20 bytes, never read as an extension.
	for end := len(b) - 20; off+8 <= end; {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if off+8+size > end || size < 0 {
			break
		}
		if sig == "link" || sig == "sdir" {
			return errUnprovable
		}
		off += 8 + size
	}
	return nil
}

// varint is git's offset encoding (varint.c): 7 bits a byte, most significant first, each
// continuation adding one.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || v > 1<<56 {
			return 0, 0
		}
		c = b[i]
		i++
		v = (v+1)<<7 | uint64(c&127)
	}
	return v, i
}
