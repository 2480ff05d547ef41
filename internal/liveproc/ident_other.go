//go:build !linux

package liveproc

import "time"

func canIdentify() bool { return false }

func identify(int) (Ident, bool) { return Ident{}, false }

func childrenOf(int) []int { return nil }

func startedAt(uint64) time.Time { return time.Time{} }
