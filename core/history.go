package core

import "sync"

// History keeps, per session, the stack of worktrees visited, in memory only: a session is
// a Herdr workspace or a shell, and nothing about it is written to disk.
type History struct {
	mu     sync.Mutex
	stacks map[string][]string
}

// NewHistory returns an empty history.
func NewHistory() *History { return &History{stacks: map[string][]string{}} }

// Visit records that session left from and went to a worktree; going back pops from.
func (h *History) Visit(session, from string) {
	if from == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stacks[session]
	if n := len(st); n > 0 && st[n-1] == from {
		return
	}
	h.stacks[session] = append(st, from)
}

// Previous pops and returns the most recent worktree of session for which exists is true,
// skipping (and forgetting) entries whose worktree was removed.
func (h *History) Previous(session string, exists func(path string) bool) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stacks[session]
	for len(st) > 0 {
		p := st[len(st)-1]
		st = st[:len(st)-1]
		if exists(p) {
			h.stacks[session] = st
			return p, true
		}
	}
	h.stacks[session] = st
	return "", false
}

// Peek returns the most recent entry without removing it.
func (h *History) Peek(session string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stacks[session]
	if len(st) == 0 {
		return "", false
	}
	return st[len(st)-1], true
}

// Lookup is Previous without forgetting anything: Prepare must change nothing.
func (h *History) Lookup(session string, exists func(path string) bool) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stacks[session]
	for i := len(st) - 1; i >= 0; i-- {
		if exists(st[i]) {
			return st[i], true
		}
	}
	return "", false
}

// Has reports whether session has a worktree to go back to for which exists is true,
// forgetting nothing (a picker hides its back key when there is none).
func (h *History) Has(session string, exists func(path string) bool) bool {
	_, ok := h.Lookup(session, exists)
	return ok
}
