//go:build !linux

package liveproc

import (
	"runtime"
	"time"
)

// read: without /proc copse would have to run a program (lsof) to know, and core runs no
// program of its own; it says it cannot tell.
func read(roots []string, envKeys []string) (*Scan, error) {
	return nil, &unknownOS{runtime.GOOS}
}

type unknownOS struct{ goos string }

func (e *unknownOS) Error() string { return ErrUnknown.Error() + " on " + e.goos }
func (e *unknownOS) Unwrap() error { return ErrUnknown }

func marked(key, value string) ([]Proc, error) { return nil, &unknownOS{runtime.GOOS} }

func readingTerminal(int) bool { return false }

func foreground(int) Foreground { return Foreground{Children: -1} }

func stopped(int) bool { return false }

func ancestors() []int { return nil }
