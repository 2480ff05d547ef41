package core

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/copse-dev/copse/gitx"
)

// untrackedSetting is the repository's core.untrackedCache as copse uses it, read once per
// Service and only when a status or a refresh is about to run git: a listing the status
// cache answers entirely starts no git for it.
type untrackedSetting struct {
	mu   sync.Mutex
	read bool
	// display is for listings' statuses, refresh for the refresh after a checkout. Every
	// status copse decides on runs with the cache off whatever this says (gitx's builders).
	display, refresh gitx.UntrackedCache
}

// untrackedCache says how display statuses and refreshes use git's untracked cache. Unset,
// copse turns it on for them: it spares a status its scan of every directory (a worktree
// of 20,000 files went from 168 to 40 ms of CPU). Set to anything, git does what it says:
// a false (the user knows this filesystem's directory times lie) turns the refresh into a
// plain stat refresh, and display statuses read no cache.
func (s *Env) untrackedCache(ctx context.Context) (display, refresh gitx.UntrackedCache) {
	u := &s.untracked
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.read {
		return u.display, u.refresh
	}
	v, set, err := s.Git.ConfigValue(ctx, s.Dir, "core.untrackedCache")
	if err != nil {
		// Unknown: the way that reads and writes no cache copse asked for. A cancelled read
		// is asked again by the next caller; another failure would fail again.
		if ctx.Err() == nil {
			u.read, u.display, u.refresh = true, gitx.UntrackedCacheAsConfigured, gitx.UntrackedCacheOff
		}
		return gitx.UntrackedCacheAsConfigured, gitx.UntrackedCacheOff
	}
	u.read = true
	switch {
	case !set:
		u.display, u.refresh = gitx.UntrackedCacheOn, gitx.UntrackedCacheOn
	case configFalse(v):
		u.display, u.refresh = gitx.UntrackedCacheAsConfigured, gitx.UntrackedCacheOff
	default: // true, or "keep": git follows it in both
		u.display, u.refresh = gitx.UntrackedCacheAsConfigured, gitx.UntrackedCacheAsConfigured
	}
	return u.display, u.refresh
}

// configFalse reports a config value git reads as false: false, no, off, an integer 0, or
// the empty string (which `git config --get` also prints for a key given without a value;
// either way copse then adds no cache).
func configFalse(v string) bool {
	switch strings.ToLower(v) {
	case "", "false", "no", "off":
		return true
	}
	n, err := strconv.ParseInt(v, 0, 64)
	return err == nil && n == 0
}
