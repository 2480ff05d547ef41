package core

import "sync"

// StatusQueue is the order in which a status pool works through worktrees. Workers take
// paths from the front; Prioritize moves paths to the front while the pool runs, so the
// picker gets the rows on screen first, and again first for rows that scroll into view.
// It is safe for concurrent use.
type StatusQueue struct {
	mu      sync.Mutex
	pending []string
}

// NewStatusQueue queues paths in the order given.
func NewStatusQueue(paths []string) *StatusQueue {
	return &StatusQueue{pending: append([]string(nil), paths...)}
}

// Prioritize moves those of paths still waiting to the front, in the order given. Paths
// already taken (or never queued) are ignored.
func (q *StatusQueue) Prioritize(paths []string) {
	if len(paths) == 0 {
		return
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting := make(map[string]bool, len(paths))
	rest := make([]string, 0, len(q.pending))
	for _, p := range q.pending {
		if want[p] {
			waiting[p] = true
		} else {
			rest = append(rest, p)
		}
	}
	front := make([]string, 0, len(waiting)+len(rest))
	for _, p := range paths {
		if waiting[p] {
			front = append(front, p)
			delete(waiting, p) // a path given twice is queued once
		}
	}
	q.pending = append(front, rest...)
}

// Len is how many paths are still waiting.
func (q *StatusQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// Waiting is a copy of the paths still waiting, in the order they will be taken.
func (q *StatusQueue) Waiting() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.pending...)
}

// next takes the first waiting path.
func (q *StatusQueue) next() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return "", false
	}
	p := q.pending[0]
	q.pending = q.pending[1:]
	return p, true
}
