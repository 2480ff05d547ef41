package core

import (
	"context"
	"sync"
	"time"
)

// Refreshes runs and tracks the index refreshes copse starts after it checks files out
// (create, restore, the sync of a checked-out target during a land). A checkout writes the
// index in the same second as the files, which leaves its entries racily clean: git cannot
// trust their stat data and re-reads every such file on every status, for as long as the
// index is not rewritten (copse's own status runs never write it). Once the clock has
// passed that second, one refresh of the index's stat data fixes that for good. Where the
// repository allows it (core.untrackedCache not set false) the refresh also writes the
// untracked cache for the display status, so a listing's status skips its untracked scan
// too (gitx.Runner.RefreshStat).
//
// The refresh runs in the background, so no reply waits for the clock: the outcome is
// returned at once and the refresh follows within a second. A process that exits soon
// after (the CLI) calls Wait after writing its reply; a long-lived one (the picker, the
// MCP server) lets it run. A Service opened without Refreshes refreshes nothing.
type Refreshes struct {
	wg sync.WaitGroup
	// running is held while a refresh's git runs. A land's sync holds it too around its own
	// use of the target's index, so a refresh left by the previous land of a queue never
	// holds index.lock when the next one's read-tree needs it.
	running sync.Mutex
}

// NewRefreshes makes an empty tracker for Options.Refreshes.
func NewRefreshes() *Refreshes { return &Refreshes{} }

// Wait returns when every refresh started so far has run or been skipped. Each waits at
// most until the second after its checkout and runs git for at most refreshTimeout.
func (r *Refreshes) Wait() {
	if r != nil {
		r.wg.Wait()
	}
}

// refreshMargin is added to the next second: file times come from the kernel's coarse
// clock, which can lag the wall clock by a tick, and an index written inside the margin
// could still carry the files' second.
const refreshMargin = 20 * time.Millisecond

// refreshTimeout bounds the one git process of a refresh.
const refreshTimeout = 10 * time.Second

// RefreshAfterCheckout refreshes the index of the worktree at dir once the clock has passed
// the current second (the checkout has just finished). Its result changes nothing the
// caller reports: a held index.lock or a failure leaves the index as git left it, which is
// correct, only slower to read.
func (s *Env) RefreshAfterCheckout(dir string) {
	r := s.Opts.Refreshes
	if r == nil {
		return
	}
	due := time.Now().Truncate(time.Second).Add(time.Second + refreshMargin)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		time.Sleep(time.Until(due))
		ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
		defer cancel()
		_, untracked := s.untrackedCache(ctx)
		r.running.Lock()
		defer r.running.Unlock()
		_, _ = s.Git.RefreshStat(ctx, dir, untracked)
	}()
}

// holdRefreshes keeps this process's refreshes from running git until the returned func is
// called (a land's sync, which must find the target's index unlocked).
func (s *Env) HoldRefreshes() func() {
	r := s.Opts.Refreshes
	if r == nil {
		return func() {}
	}
	r.running.Lock()
	return r.running.Unlock
}
