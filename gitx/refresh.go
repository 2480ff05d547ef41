package gitx

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RefreshStat refreshes the stat data of the index of the worktree at dir: files whose
// content matches the index get their current mtime, size and inode recorded, and no entry
// changes otherwise. A checkout leaves most entries racily clean (written in the same second
// as the index), and git status, which copse runs with optional locks off and so never
// writes the index itself, then re-reads each of them on every call. Run once the clock has
// passed the checkout's second, the rewritten index is newer than every file and the
// entries are clean for good.
//
// untracked says what happens to the untracked cache, the index's record of untracked files
// that spares a status its scan of every directory:
//
//   - UntrackedCacheOff: `git update-index -q --refresh`, stat data only (the repository
//     turned the cache off; git drops a cache it finds in the index then, as any git that
//     writes the index would).
//   - UntrackedCacheOn: DisplayStatusCmd's status with -c core.untrackedCache=true and
//     optional locks on. It refreshes the stat data as update-index does and writes the
//     untracked cache for the very arguments (and so the untracked-files mode) of the
//     display status, which is the only status that reuses it.
//   - UntrackedCacheAsConfigured: the same status with the repository's own setting
//     (true writes the cache, "keep" keeps what is there).
//
// Another git's index.lock is respected: when it is held RefreshStat does nothing and
// reports false (never waits for the lock, never removes it). git takes the lock itself
// without waiting, so a lock taken between the check and git's start is also a skip:
// update-index fails (reported as a skip), status leaves the index unwritten.
func (r *Runner) RefreshStat(ctx context.Context, dir string, untracked UntrackedCache) (bool, error) {
	if err := check("update-index", checkDir(dir)); err != nil {
		return false, err
	}
	gitDir, err := worktreeGitDir(dir)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "index.lock")); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	c, err := refreshCmd(dir, untracked)
	if err != nil {
		return false, err
	}
	if _, err := r.Run(ctx, c); err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.Kind == ErrExit && strings.Contains(ge.Stderr, "index.lock") {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// refreshCmd is the one git command of RefreshStat.
func refreshCmd(dir string, untracked UntrackedCache) (Cmd, error) {
	if untracked == UntrackedCacheOff {
		return Cmd{dir: dir, args: []string{"update-index", "-q", "--refresh"}, gentle: true}, nil
	}
	c, err := DisplayStatusCmd(dir, untracked)
	if err != nil {
		return Cmd{}, err
	}
	// Optional locks on: this status writes the index (it takes index.lock without
	// waiting, and writes nothing when another git holds it). Its output is dropped as it
	// comes, so no number of untracked files can pass the output cap, which would kill git
	// while it holds index.lock.
	c.read = false
	c.keep = func([]byte) bool { return false }
	c.gentle = true
	return c, nil
}
