// Package testexec writes the small programs tests run (fake git, herdr or editor
// scripts) so that running one right after cannot fail with "text file busy".
//
// Tests run in parallel, and a fork by another test can copy the write descriptor of a
// script into its child for the moment before that child's exec closes it; exec'ing the
// script in that moment fails with ETXTBSY (golang.org/issue/22315). Holding
// syscall.ForkLock while the file is open keeps every fork of this process out of that
// moment. Only tests import it.
package testexec

import (
	"os"
	"syscall"
)

// WriteFile is os.WriteFile with no fork of this process in between open and close.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	return os.WriteFile(name, data, perm)
}
