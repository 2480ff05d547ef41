package core

import (
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Claim is a session's hold on a worktree: a git worktree lock whose reason copse wrote.
// Every git tool sees the lock; `git worktree remove` and `git worktree prune` respect it.
type Claim struct {
	Session string    `json:"session"`
	Since   time.Time `json:"since"`
	// Agent and PID, on a lock an agent wrote itself (Claude Code's "claude session <name>
	// (pid N)", see agentlock.go): which agent, and the process that holds it.
	Agent string `json:"agent,omitempty"`
	PID   int    `json:"pid,omitempty"`
	// Ended: the session is a create --run command's and the command ended (or its window
	// closed): the claim binds nothing, and remove, prune and land go ahead without
	// --force (the lock goes with the worktree). Listings only; never in a lock reason.
	Ended bool `json:"ended,omitempty"`
}

const (
	claimPrefix = "copse claim: session="
	claimSince  = " since="
)

// FormatClaim is the lock reason for c: "copse claim: session=<id> since=<RFC3339>".
func FormatClaim(c Claim) string {
	return claimPrefix + c.Session + claimSince + c.Since.UTC().Format(time.RFC3339)
}

// ParseClaim reads a lock reason that FormatClaim wrote. Any other reason (a human's
// `git worktree lock`, a lock with no reason) is not a claim: ok is false.
func ParseClaim(reason string) (Claim, bool) {
	rest, ok := strings.CutPrefix(reason, claimPrefix)
	if !ok {
		return Claim{}, false
	}
	sess, since, ok := strings.Cut(rest, claimSince)
	if !ok || sess == "" {
		return Claim{}, false
	}
	for _, r := range sess {
		if !sessionRune(r) {
			return Claim{}, false
		}
	}
	t, err := time.Parse(time.RFC3339, since)
	if err != nil {
		return Claim{}, false
	}
	return Claim{Session: sess, Since: t.UTC()}, true
}

// claimOf is the claim a worktree's lock records, if copse wrote it.
func ClaimOf(locked *string) *Claim {
	if locked == nil {
		return nil
	}
	if c, ok := ParseClaim(*locked); ok {
		return &c
	}
	return nil
}

// ClaimSpec is a claim or a release of one worktree, as the claim family prepared it.
type ClaimSpec struct {
	Release bool
	Target  gitx.Worktree
	Session SessionID // the requesting session (zero only for a forced release without one)
	Force   bool
	Held    *Claim  // the claim held before, if copse wrote the lock
	Human   *string // the reason of a lock copse did not write
	Already bool    // claim: this session holds it already; nothing to do
	Cwd     string
}

func LockedReason(r string) string {
	if r == "" {
		return "no reason given"
	}
	return r
}

// lockHolder is who holds a lock: a session's claim copse wrote, or the reason of a lock
// it did not write (both nil when unlocked).
func ClaimHolder(locked *string) (*Claim, *string) {
	if locked == nil {
		return nil, nil
	}
	if cl, ok := ParseClaim(*locked); ok {
		return &cl, nil
	}
	r := *locked
	return nil, &r
}

func LockUnchanged(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
