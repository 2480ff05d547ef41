package removal

import (
	"context"
	"errors"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/gitx"
)

// One worktree removal, the way remove, prune and land's clean-up all do it: record it
// first when asked, run the removal, read the worktree list back (even when cancelled),
// look at git's list and at the disk, and drop the record again when nothing was removed.
// What the outcome is called (which code, which reason) stays with each operation; what
// happened is judged here, once.

// removeStep is one removal to make.
type RemoveStep struct {
	Target gitx.Worktree
	// record: record it for `copse restore` first (deleteBranch: with its branch tip); an
	// error recording it means nothing is removed.
	Record, DeleteBranch bool
	// before is the worktree list's token the removal started from; nil when the list may
	// move for other reasons meanwhile (prune's run is long, and agents commit elsewhere).
	Before *core.StateToken
	Run    func(context.Context) error
}

// removal is what one removal did, as read back.
type Removal struct {
	Saved          *core.RemovedEntry // the record made first; nil when none, or dropped again
	RunErr         error              // what the removal itself returned
	after          core.Snapshot
	Listed, OnDisk bool
	Verdict        removalVerdict
}

// removalVerdict is what happened to the worktree, judged from git's list and the disk.
type removalVerdict int

const (
	RemovalDone       removalVerdict = iota // gone from git's list and from disk
	RemovalGoneAnyway                       // gone, though the removal reported a failure
	RemovalNothing                          // still listed, still there, the list unchanged: nothing was removed
	RemovalPartial                          // the removal failed and something changed
	RemovalIncomplete                       // the removal reported success but it is still listed or on disk
)

// judgeRemoval is the verdict on one removal. prunable: git already knew the directory
// was gone, so "still there" means still listed. sameList: the worktree list is the one
// the removal started from.
func judgeRemoval(failed, listed, onDisk, prunable, sameList bool) removalVerdict {
	switch {
	case listed && (onDisk || prunable) && sameList:
		if failed {
			return RemovalNothing
		}
		return RemovalIncomplete
	case !listed && !onDisk && failed:
		return RemovalGoneAnyway
	case !listed && !onDisk:
		return RemovalDone
	case failed:
		return RemovalPartial
	}
	return RemovalIncomplete
}

// removeOne makes one removal. Its error is the record's (nothing was removed) or the
// read back's (the removal ran; what it did is unknown): each caller names them in its
// own words.
func RemoveOne(s *core.Env, ctx context.Context, st RemoveStep) (Removal, error) {
	var r Removal
	if st.Record {
		saved, err := SnapshotForRemoval(s, ctx, st.Target, st.DeleteBranch)
		if err != nil {
			return r, err
		}
		r.Saved = &saved
	}
	r.RunErr = st.Run(ctx)
	after, err := s.ReadBack(ctx)
	if err != nil {
		return r, errReadBack{err}
	}
	s.Learn(after)
	r.after = after
	_, r.Listed = core.Find(after, st.Target.Path)
	r.OnDisk = core.Exists(st.Target.Path)
	same := st.Before == nil || after.Token == *st.Before
	r.Verdict = judgeRemoval(r.RunErr != nil, r.Listed, r.OnDisk, st.Target.Prunable != nil, same)
	if r.Verdict == RemovalDone {
		s.DropEmptyWorktreesDir(st.Target.Path)
	}
	// An uncertain failure may still act (a backend that lost its answer): its record stays.
	if r.Verdict == RemovalNothing && core.AsError(r.RunErr).Kind != core.KindUncertain {
		dropSnapshot(s, ctx, r.Saved) // nothing was removed: the record is not needed
		r.Saved = nil
	}
	return r, nil
}

// recordsRemove: a remove records what it deletes when it deletes anything git does not
// hold: a forced remove of a worktree on disk, or of one whose directory is gone but
// whose admin directory holds commits nothing else does (or could not be read: the
// record reads it again, and no record is no remove), or any remove that deletes the
// branch.
func RecordsRemove(c *core.RemoveSpec) bool {
	onDisk := c.Target.Prunable == nil && core.Exists(c.Target.Path)
	held := len(c.Losses.Keep) > 0 || c.Losses.Status.Error != ""
	return c.DeleteBranch || (c.Force && (onDisk || held))
}

// errReadBack is removeOne's read back that failed after the removal ran.
type errReadBack struct{ err error }

func (e errReadBack) Error() string { return e.err.Error() }
func (e errReadBack) Unwrap() error { return e.err }

func IsReadBack(err error) (error, bool) {
	var rb errReadBack
	if errors.As(err, &rb) {
		return rb.err, true
	}
	return nil, false
}

// cancelledRun: the removal (or any git run) ended because it was cancelled.
func CancelledRun(err error) bool {
	return errors.Is(err, context.Canceled) || core.IsGitKind(err, gitx.ErrCanceled)
}

func RemoveState(path string, listed, onDisk bool) string {
	switch {
	case listed && onDisk:
		return core.Escape(path) + " is still listed by git and still on disk"
	case listed:
		return core.Escape(path) + " is gone from disk but still listed by git"
	case onDisk:
		return "git no longer lists " + core.Escape(path) + " but its directory is still on disk"
	}
	return core.Escape(path) + " was removed"
}
