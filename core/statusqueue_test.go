package core

import (
	"slices"
	"testing"
)

func drain(q *StatusQueue) []string {
	var out []string
	for {
		p, ok := q.next()
		if !ok {
			return out
		}
		out = append(out, p)
	}
}

func TestStatusQueuePrioritizeMovesWaitingPathsToTheFront(t *testing.T) {
	t.Parallel()
	q := NewStatusQueue([]string{"/a", "/b", "/c", "/d", "/e"})
	if p, _ := q.next(); p != "/a" {
		t.Fatalf("first path %q, want /a", p)
	}
	// /a is taken already and /x was never queued: both ignored; /e given twice runs once.
	q.Prioritize([]string{"/e", "/a", "/x", "/c", "/e"})
	if got, want := drain(q), []string{"/e", "/c", "/b", "/d"}; !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	if q.Len() != 0 {
		t.Fatalf("Len %d after draining", q.Len())
	}
}
