package assets

import (
	_ "embed"
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

// piMarker is compiled on first use (see markerPattern).
var piMarker = sync.OnceValue(func() *regexp.Regexp { return markerPattern("pi") })

// PiExtension returns the extension as copse writes it: a marker line with the sha256 of
// the body, then the body.
func PiExtension() []byte { return withMarker("pi", piExtension) }

// PiExtensionUnchanged reports whether content is a file copse wrote and nobody edited
// since: its marker line is intact and the hash in it matches the body. The body may come
// from another copse version.
func PiExtensionUnchanged(content []byte) bool { return markerIntact(piMarker(), content) }
