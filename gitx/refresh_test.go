package gitx

import (
	"bytes"
	"context"
	"github.com/copse-dev/copse/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A held index.lock is another git at work: RefreshStat skips without waiting, and leaves
// the lock, the index and its time exactly as they were.
func TestRefreshStatSkipsHeldIndexLock(t *testing.T) {
	for _, untracked := range []UntrackedCache{UntrackedCacheOff, UntrackedCacheOn} {
		t.Run(untracked.String(), func(t *testing.T) { refreshSkipsHeldIndexLock(t, untracked) })
	}
}

func refreshSkipsHeldIndexLock(t *testing.T, untracked UntrackedCache) {
	s := newSandbox(t)
	repo := s.initRepo("app")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat/x", "--", wt, "main")
	gitDir := filepath.Join(repo, ".git", "worktrees", "wt")
	index := filepath.Join(gitDir, "index")
	lock := filepath.Join(gitDir, "index.lock")
	s.write(lock, "another git\n")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	stBefore, _ := os.Stat(index)
	// Past the checkout's second, a refresh would rewrite the index if it ran.
	time.Sleep(time.Until(stBefore.ModTime().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))

	ran, err := s.runner().RefreshStat(context.Background(), wt, untracked)
	if err != nil || ran {
		t.Fatalf("RefreshStat with index.lock held = %v, %v; want a skip", ran, err)
	}
	lockedIndexUntouched(t, index, lock, before, stBefore)

	// Once the lock is gone the same call refreshes: the index is rewritten newer.
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if ran, err := s.runner().RefreshStat(context.Background(), wt, untracked); err != nil || !ran {
		t.Fatalf("RefreshStat = %v, %v; want a refresh", ran, err)
	}
	if st, _ := os.Stat(index); !st.ModTime().After(stBefore.ModTime()) {
		t.Fatal("the index was not rewritten by the refresh")
	}
	if out := s.git(wt, "status", "--porcelain"); out != "" {
		t.Fatalf("the refresh changed the status: %q", out)
	}
}

// A refresh stopped half way (its timeout, a cancel) leaves no index.lock behind: git is
// stopped with SIGTERM, on which it removes its lock files, not SIGKILL, after which the
// user's next git command would find the index locked. The stall is a core.fsmonitor hook
// that sleeps while git holds the lock.
func TestRefreshStoppedHalfWayLeavesNoIndexLock(t *testing.T) {
	for _, untracked := range []UntrackedCache{UntrackedCacheOff, UntrackedCacheOn} {
		t.Run(untracked.String(), func(t *testing.T) {
			_, repo, r := stalledRepo(t)
			lock := filepath.Join(repo, ".git", "index.lock")
			ran, err := r.RefreshStat(context.Background(), repo, untracked)
			if err == nil || ran {
				t.Fatalf("RefreshStat under a stalled hook = %v, %v; want its timeout", ran, err)
			}
			// git is gone once RefreshStat returns; its lock must be too.
			if _, err := os.Lstat(lock); !os.IsNotExist(err) {
				t.Fatalf("a stopped refresh left %s behind (%v): the user's next git would fail", lock, err)
			}
		})
	}
}

// Every command that may write is stopped with SIGTERM, which git answers by removing its
// lock files: a change cut short (here by its timeout, under an fsmonitor hook that
// stalls while git holds index.lock) leaves no index.lock for the user's next git.
func TestAChangeStoppedHalfWayLeavesNoIndexLock(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  func(repo, head string) (Cmd, error)
	}{
		{"update-index", func(repo, _ string) (Cmd, error) { return RefreshIndex(repo) }},
		{"reset --keep", ResetKeep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, repo, r := stalledRepo(t)
			head := strings.TrimSpace(s.git(repo, "rev-parse", "HEAD"))
			index := filepath.Join(repo, ".git", "index")
			before, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			c, err := tc.cmd(repo, head)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(context.Background(), c); err == nil {
				t.Fatal("the command finished under a stalled hook; the test needs it stopped")
			}
			if _, err := os.Lstat(filepath.Join(repo, ".git", "index.lock")); !os.IsNotExist(err) {
				t.Fatalf("a stopped %s left index.lock behind (%v): the user's next git would fail", tc.name, err)
			}
			if after, err := os.ReadFile(index); err != nil || !bytes.Equal(before, after) {
				t.Fatalf("a stopped %s changed the index (%v)", tc.name, err)
			}
		})
	}
}

// stalledRepo is a repository whose core.fsmonitor hook sleeps (while git holds
// index.lock), and a Runner that stops git after half a second.
func stalledRepo(t *testing.T) (*sandbox, string, *Runner) {
	t.Helper()
	s := newSandbox(t)
	repo := s.initRepo("app")
	hook := s.path("fsmonitor-hook")
	if err := testexec.WriteFile(hook, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.git(repo, "config", "core.fsmonitor", hook)
	r := s.runner()
	r.Timeout = 500 * time.Millisecond
	return s, repo, r
}

// lockedIndexUntouched fails unless the index is as it was (content and mtime) and the
// lock another git holds ("another git\n") is still there as written.
func lockedIndexUntouched(t *testing.T, index, lock string, before []byte, stBefore os.FileInfo) {
	t.Helper()
	after, _ := os.ReadFile(index)
	stAfter, _ := os.Stat(index)
	if !bytes.Equal(before, after) || !stAfter.ModTime().Equal(stBefore.ModTime()) {
		t.Fatal("the index changed while another git held its lock")
	}
	if b, err := os.ReadFile(lock); err != nil || string(b) != "another git\n" {
		t.Fatalf("the lock was touched: %q, %v", b, err)
	}
}
