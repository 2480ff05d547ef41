// Package atomicfile replaces a file whole: the content goes to a temporary file in the
// same directory, which is renamed over the name, so a reader sees the old file or the new
// one, never half of one. The small state files copse keeps beside git's (agent records,
// the observers' last states, an agent's settings) are written this way.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces name with b, with permissions mode. The directory must exist.
func Write(name string, b []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing left after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
