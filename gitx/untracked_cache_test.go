package gitx

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// A stale untracked cache (a directory whose mtime did not move when an untracked file
// appeared, as on a filesystem whose directory times lie; core.trustctime=false as such a
// filesystem needs) hides that file from any status that reads the cache. Every status copse
// decides on runs with the cache off and sees it; the display status, which may use the
// cache, is shown to miss it (so the premise holds). With status.showUntrackedFiles=all the
// cache is built for -uall, which the decisions' -uall statuses would then read too.
func TestDecisionStatusesNeverReadTheUntrackedCache(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"normal", "all"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			repo := s.initRepo("app")
			s.commit(repo, ".gitignore", "*.log\n", "ignore logs")
			s.git(repo, "config", "core.trustctime", "false")
			s.git(repo, "config", "status.showUntrackedFiles", mode)
			s.write(filepath.Join(repo, "notes.log"), "kept out\n")
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(repo, old, old); err != nil {
				t.Fatal(err)
			}
			// The display status with optional locks on writes the cache into the index.
			s.git(repo, "-c", "core.untrackedCache=true", "status", "--porcelain=v2", "--branch", "-z")
			if ext := coretest.IndexExtensions(t, filepath.Join(repo, ".git", "index")); !slices.Contains(ext, "UNTR") {
				t.Fatalf("no untracked cache written: extensions %q", ext)
			}
			// An untracked file appears, and the directory keeps its mtime (and its size:
			// one name replaces another).
			if err := os.Rename(filepath.Join(repo, "notes.log"), filepath.Join(repo, "notes.txt")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(repo, old, old); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			r := s.runner()
			display, err := r.DisplayStatus(ctx, repo, UntrackedCacheOn, nil)
			if err != nil {
				t.Fatal(err)
			}
			if display.Untracked != 0 {
				t.Fatalf("the display status found %d untracked: the cache is not stale, the test proves nothing", display.Untracked)
			}
			if out := s.gitReadOnly(repo, "status", "--porcelain"); out != "" {
				t.Fatalf("plain git status (cache kept) = %q; want the file hidden", out)
			}

			st, err := r.Status(ctx, repo)
			if err != nil || st.Untracked != 1 {
				t.Errorf("Status: %d untracked, %v; want notes.txt", st.Untracked, err)
			}
			safety, _, err := r.SafetyStatus(ctx, repo)
			if err != nil || safety.Untracked != 1 {
				t.Errorf("SafetyStatus: %d untracked, %v; want notes.txt", safety.Untracked, err)
			}
			dirty, err := r.DirtyPaths(ctx, repo)
			if err != nil || !slices.Equal(dirty, []string{"notes.txt"}) {
				t.Errorf("DirtyPaths = %q, %v; want notes.txt", dirty, err)
			}
			changed, _, err := r.ChangedAndIgnored(ctx, repo)
			if err != nil || !slices.Equal(changed, []string{"notes.txt"}) {
				t.Errorf("ChangedAndIgnored = %q, %v; want notes.txt", changed, err)
			}
			// Read-only, the decisions left the cache where it was (they never strip it).
			if ext := coretest.IndexExtensions(t, filepath.Join(repo, ".git", "index")); !slices.Contains(ext, "UNTR") {
				t.Fatalf("a decision status rewrote the index: extensions %q", ext)
			}
		})
	}
}

// gitReadOnly runs git with optional locks off, as copse's reads do: it never writes the
// index, so it neither refreshes it nor updates its untracked cache.
func (s *sandbox) gitReadOnly(dir string, args ...string) string {
	s.t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(append(os.Environ(), s.env...), "GIT_OPTIONAL_LOCKS=0")
	out, err := c.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The refresh with the untracked cache on changes nothing but the index's stat data and
// its untracked cache: the entries (paths, modes, object ids, stages) and git's status are
// the same before and after, the cache is written, and the display status then reuses it
// (git opens no directory: trace2's read_directory opendir count is 0). With the cache off
// the refresh writes none.
func TestRefreshWritesTheDisplayStatusUntrackedCache(t *testing.T) {
	t.Parallel()
	for _, untracked := range []UntrackedCache{UntrackedCacheOn, UntrackedCacheOff} {
		t.Run(untracked.String(), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			repo := s.initRepo("app")
			for _, f := range []string{"a.txt", "src/b.txt", "src/deep/c.txt"} {
				s.write(filepath.Join(repo, f), f+"\n")
			}
			s.write(filepath.Join(repo, ".gitignore"), "*.log\n")
			s.git(repo, "add", ".")
			s.git(repo, "commit", "-q", "-m", "files")
			wt := s.path("wt")
			s.git(repo, "worktree", "add", "-q", "-b", "feat/x", "--", wt, "main")
			s.write(filepath.Join(wt, "src", "new.txt"), "untracked\n")
			s.write(filepath.Join(wt, "build", "out.txt"), "untracked dir\n")
			s.write(filepath.Join(wt, "src", "x.log"), "ignored\n")
			s.write(filepath.Join(wt, "a.txt"), "changed\n")
			index := filepath.Join(repo, ".git", "worktrees", "wt", "index")
			st, _ := os.Stat(index)
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))

			entries := s.gitReadOnly(wt, "ls-files", "--stage", "-z")
			status := s.gitReadOnly(wt, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignored")
			if ran, err := s.runner().RefreshStat(context.Background(), wt, untracked); err != nil || !ran {
				t.Fatalf("RefreshStat = %v, %v", ran, err)
			}
			if after, _ := os.Stat(index); !after.ModTime().After(st.ModTime()) {
				t.Fatal("the index was not rewritten")
			}
			if got := s.gitReadOnly(wt, "ls-files", "--stage", "-z"); got != entries {
				t.Fatalf("index entries changed:\n%q\n%q", entries, got)
			}
			if got := s.gitReadOnly(wt, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignored"); got != status {
				t.Fatalf("status changed:\n%q\n%q", status, got)
			}
			ext := coretest.IndexExtensions(t, index)
			if has := slices.Contains(ext, "UNTR"); has != (untracked == UntrackedCacheOn) {
				t.Fatalf("extensions %q after a refresh with the untracked cache %s", ext, untracked)
			}
			if untracked == UntrackedCacheOn {
				if n := displayOpendirs(t, s, wt); n != 0 {
					t.Fatalf("the display status opened %d directories; want the refresh's cache reused", n)
				}
			}
		})
	}
}

// displayOpendirs runs the display status with the untracked cache on and returns how many
// directories git opened for its untracked scan (trace2's read_directory/opendir).
func displayOpendirs(t *testing.T, s *sandbox, wt string) int {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace2.json")
	r := s.runner()
	// The statistics are nested deeper than the event target writes by default.
	r.Env = append(r.Env, "GIT_TRACE2_EVENT="+trace, "GIT_TRACE2_EVENT_NESTING=5")
	if _, err := r.DisplayStatus(context.Background(), wt, UntrackedCacheOn, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Event, Category, Key string
			Value                json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "data" && ev.Category == "read_directory" && ev.Key == "opendir" {
			var n json.Number
			if err := json.Unmarshal(bytes.Trim(ev.Value, `"`), &n); err != nil {
				t.Fatalf("opendir value %s", ev.Value)
			}
			i, _ := n.Int64()
			return int(i)
		}
	}
	t.Fatal("no read_directory/opendir in git's trace: the status used no untracked cache")
	return -1
}

// git's own behaviour, which the refresh relies on: the status it runs with optional locks
// on finds index.lock held, returns at once without error, and leaves the index and the
// lock exactly as they were (it never waits for the lock, never breaks it).
func TestRefreshStatusLeavesAHeldIndexLock(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	repo := s.initRepo("app")
	wt := s.path("wt")
	s.git(repo, "worktree", "add", "-q", "-b", "feat/x", "--", wt, "main")
	s.write(filepath.Join(wt, "new.txt"), "untracked\n")
	gitDir := filepath.Join(repo, ".git", "worktrees", "wt")
	index, lock := filepath.Join(gitDir, "index"), filepath.Join(gitDir, "index.lock")
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
	s.write(lock, "another git\n")
	before, _ := os.ReadFile(index)
	stBefore, _ := os.Stat(index)

	c, err := refreshCmd(wt, UntrackedCacheOn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := s.runner().Run(ctx, c); err != nil {
		t.Fatalf("the refresh's status with index.lock held: %v", err)
	}
	lockedIndexUntouched(t, index, lock, before, stBefore)
	// The same command without the lock writes the index (so the check above could fail).
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if _, err := s.runner().Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	if ext := coretest.IndexExtensions(t, index); !slices.Contains(ext, "UNTR") {
		t.Fatalf("the refresh's status wrote no untracked cache: %q", ext)
	}
}
