package assets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
)

// The first line of an extension file copse writes carries a hash of the rest, so a later
// install can tell a copy copse wrote (safe to replace, even from an older copse) from one
// the user edited (kept unless --force). pi's and omp's files differ only in the host named.

// withMarker returns body behind host's marker line.
func withMarker(host string, body []byte) []byte {
	sum := sha256.Sum256(body)
	header := "// copse " + host + " extension sha256:" + hex.EncodeToString(sum[:]) +
		" (written by copse init " + host + "; edit it and copse init " + host + " --install keeps your copy unless --force)\n"
	return append([]byte(header), body...)
}

// markerPattern matches host's marker line; callers compile it on first use (at package
// init it cost every copse command a tenth of a millisecond).
func markerPattern(host string) *regexp.Regexp {
	return regexp.MustCompile(`^// copse ` + host + ` extension sha256:([0-9a-f]{64})\b[^\n]*\n`)
}

// markerIntact reports whether content starts with a marker line marker matches and the
// hash in it is the body's: a file copse wrote and nobody edited since.
func markerIntact(marker *regexp.Regexp, content []byte) bool {
	m := marker.FindSubmatchIndex(content)
	if m == nil {
		return false
	}
	want, err := hex.DecodeString(string(content[m[2]:m[3]]))
	if err != nil {
		return false
	}
	sum := sha256.Sum256(content[m[1]:])
	return bytes.Equal(sum[:], want)
}
