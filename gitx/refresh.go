package gitx

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RefreshStat refreshes the stat data of the index of the worktree at dir (`git
// update-index -q --refresh`): files whose content matches the index get their current
// mtime, size and inode recorded, and nothing else changes. A checkout leaves most entries
// racily clean (written in the same second as the index), and git status, which copse runs
// with optional locks off and so never writes the index itself, then re-reads each of them
// on every call. Run once the clock has passed the checkout's second, the rewritten index
// is newer than every file and the entries are clean for good.
//
// Another git's index.lock is respected: when it is held RefreshStat does nothing and
// reports false (never waits for the lock, never removes it). git takes the lock itself
// without waiting, so a lock taken between the check and git's start is also a skip.
func (r *Runner) RefreshStat(ctx context.Context, dir string) (bool, error) {
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
	c := Cmd{dir: dir, args: []string{"update-index", "-q", "--refresh"}}
	if _, err := r.Run(ctx, c); err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.Kind == ErrExit && strings.Contains(ge.Stderr, "index.lock") {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
