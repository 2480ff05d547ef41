package core_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// Two requests of one process (the picker, the MCP server): the second waits on the
// in-process half of the lock, is told who holds it (this process) after a second through
// WithLockWait, and gives up after copse.lockTimeout with lock_timeout, having run nothing.
func TestLockWaitInProcess(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marks := t.TempDir()
	hooks := filepath.Join(r.Base, "hooks")
	coretest.WriteFile(t, filepath.Join(hooks, "post-checkout"), `#!/bin/sh
touch "`+marks+`/started"
while [ ! -e "`+marks+`/release" ]; do sleep 0.05; done
`)
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "config", "core.hooksPath", hooks)
	r.Git(r.Root, "config", "copse.lockTimeout", "1500ms")
	s := open(t, r, r.Root)

	holderDone := make(chan error, 1)
	go func() {
		_, err := s.Do(context.Background(), core.CreateRequest{Branch: "feat/slow"}, true)
		holderDone <- err
	}()
	release := func() { os.WriteFile(filepath.Join(marks, "release"), nil, 0o644) }
	defer release()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(marks, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the holder's hook never ran")
		}
	}

	var mu sync.Mutex
	var told []core.LockHolder
	start := time.Now()
	ctx := core.WithLockWait(context.Background(), func(h core.LockHolder) {
		mu.Lock()
		told = append(told, h)
		mu.Unlock()
	})
	_, err := s.Do(ctx, core.CreateRequest{Branch: "feat/other"}, true)
	waited := time.Since(start)
	var e *core.Error
	if !errors.As(err, &e) || e.Code != "lock_timeout" || core.ExitCode(err) != 1 {
		t.Fatalf("want lock_timeout (exit 1), got %v", err)
	}
	pid := strconv.Itoa(os.Getpid())
	if !strings.Contains(e.Message, "pid "+pid) || !strings.Contains(e.Message, "1.5s") || !strings.Contains(e.Hint, "copse.lockTimeout") {
		t.Fatalf("the error does not name the holder and the bound: %v", e)
	}
	if waited < 1500*time.Millisecond {
		t.Fatalf("gave up after %s, before copse.lockTimeout", waited)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || told[0].PID != os.Getpid() || told[0].Command == "" || told[0].Since.IsZero() {
		t.Fatalf("told %+v, want this process once", told)
	}
	if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/feat/other"); err == nil {
		t.Fatal("feat/other was created without the lock")
	}
	release()
	if err := <-holderDone; err != nil {
		t.Fatalf("holder: %v", err)
	}
}
