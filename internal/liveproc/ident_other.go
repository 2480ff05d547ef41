//go:build !linux

package liveproc

func canIdentify() bool { return false }

func identify(int) (Ident, bool) { return Ident{}, false }

func childrenOf(int) []int { return nil }
