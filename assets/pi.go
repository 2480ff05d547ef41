package assets

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"regexp"
	"sync"
)

// The pi extension (`/worktree` and the git_worktree_* tools) that `copse init pi` prints
// and `copse init pi --install` writes into pi's extensions folder.
//
//go:embed pi/worktree.ts
var piExtension []byte

// PiExtensionFile is the file name `copse init pi --install` writes in pi's extensions folder.
const PiExtensionFile = "copse-worktree.ts"

// The first line of the file copse writes carries a hash of the rest, so a later install
// can tell a copy copse wrote (safe to replace, even from an older copse) from one the
// user edited (kept unless --force).
// piMarker is compiled on first use: compiling it at package init cost every copse
// command a tenth of a millisecond.
var piMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^// copse pi extension sha256:([0-9a-f]{64})\b[^\n]*\n`)
})

// PiExtension returns the extension as copse writes it: a marker line with the sha256 of
// the body, then the body.
func PiExtension() []byte {
	sum := sha256.Sum256(piExtension)
	header := "// copse pi extension sha256:" + hex.EncodeToString(sum[:]) +
		" (written by copse init pi; edit it and copse init pi --install keeps your copy unless --force)\n"
	return append([]byte(header), piExtension...)
}

// PiExtensionUnchanged reports whether content is a file copse wrote and nobody edited
// since: its marker line is intact and the hash in it matches the body. The body may come
// from another copse version.
func PiExtensionUnchanged(content []byte) bool {
	m := piMarker().FindSubmatchIndex(content)
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
