package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Mutations of one repository are serialised twice over: an in-process mutex (the picker
// and MCP server run several requests in one process) and an advisory flock on a file in
// the git common directory (two copse processes, or copse and an agent's copse, cannot race).

var (
	repoMuMu sync.Mutex
	repoMu   = map[string]*sync.Mutex{}
)

func processLock(commonDir string) *sync.Mutex {
	repoMuMu.Lock()
	defer repoMuMu.Unlock()
	m, ok := repoMu[commonDir]
	if !ok {
		m = &sync.Mutex{}
		repoMu[commonDir] = m
	}
	return m
}

// lockRepo takes both locks, waiting until ctx is done. The returned func releases them.
func lockRepo(ctx context.Context, commonDir string) (func(), error) {
	mu := processLock(commonDir)
	got := make(chan struct{})
	go func() { mu.Lock(); close(got) }()
	select {
	case <-got:
	case <-ctx.Done():
		// Release the mutex once the goroutine gets it, so it is not leaked.
		go func() { <-got; mu.Unlock() }()
		return nil, lockErr(ctx.Err())
	}
	f, err := os.OpenFile(filepath.Join(commonDir, "copse.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		mu.Unlock()
		return nil, failed("lock_failed", err, "check that the git directory is writable", "cannot open the copse lock in %s", commonDir)
	}
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			mu.Unlock()
			return nil, failed("lock_failed", err, "", "cannot lock %s", f.Name())
		}
		select {
		case <-ctx.Done():
			f.Close()
			mu.Unlock()
			return nil, lockErr(ctx.Err())
		case <-time.After(delay):
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		mu.Unlock()
	}, nil
}

func lockErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return failed("lock_timeout", err, "another copse is changing this repository; try again when it is done", "timed out waiting for the repository lock")
	}
	return &Error{Kind: KindCancelled, Code: "cancelled", Message: "cancelled while waiting for the repository lock; nothing changed", Err: err}
}
