package coretest

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// IndexExtensions lists the signatures of the extensions of the index file at path, in
// order ("TREE", "UNTR" for the untracked cache…). It reads version 2 and 3 indexes, which
// git writes unless told otherwise; another version fails the test.
func IndexExtensions(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 32 || string(b[:4]) != "DIRC" {
		t.Fatalf("%s is not an index file", path)
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v != 2 && v != 3 {
		t.Fatalf("%s: index version %d", path, v)
	}
	off := 12
	for range binary.BigEndian.Uint32(b[8:12]) {
		if off+62 > len(b) {
			t.Fatalf("%s: truncated entry", path)
		}
		p := off + 62 // stat data, mode, object id, flags
		if binary.BigEndian.Uint16(b[off+60:off+62])&0x4000 != 0 {
			p += 2 // extended flags
		}
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			t.Fatalf("%s: truncated entry", path)
		}
		off += (p + end - off + 8) &^ 7 // padded with 1 to 8 NULs
	}
	var sigs []string
	for off+8 <= len(b)-20 { // the file ends with a SHA-1 of the rest
		sigs = append(sigs, string(b[off:off+4]))
		off += 8 + int(binary.BigEndian.Uint32(b[off+4:off+8]))
	}
	return sigs
}
