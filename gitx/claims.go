package gitx

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Builders for claims (a claim is a worktree lock with a reason copse writes), and the
// count of the commits only a detached HEAD holds.

// WorktreeLock locks the worktree at path with reason. The reason must be one line with
// no control characters: git stores it verbatim in the worktree's admin "locked" file and
// `worktree list --porcelain` prints it back.
func WorktreeLock(dir, path, reason string) (Cmd, error) {
	if err := check("worktree lock", checkDir(dir), checkPath("path", path), checkReason(reason)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "lock", "--reason", reason, "--", path}}, nil
}

// WorktreeUnlock unlocks the worktree at path.
func WorktreeUnlock(dir, path string) (Cmd, error) {
	if err := check("worktree unlock", checkDir(dir), checkPath("path", path)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "unlock", "--", path}}, nil
}

// UniqueCommitCountOf counts commits reachable from oid (a detached HEAD) but from no
// local branch and no remote-tracking branch: what would be lost with the worktree.
func UniqueCommitCountOf(dir, oid string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkOID("commit", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--count", oid, "--not", "--branches", "--remotes"}, read: true}, nil
}

// UniqueCommitsOf runs UniqueCommitCountOf.
func (r *Runner) UniqueCommitsOf(ctx context.Context, dir, oid string) (int, error) {
	c, err := UniqueCommitCountOf(dir, oid)
	if err != nil {
		return 0, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSuffix(string(out), "\n")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || !isDigits(s) {
		return 0, fmt.Errorf("gitx: rev-list --count printed %q, not a count", clip(s))
	}
	return n, nil
}

func checkReason(v string) string {
	switch {
	case v == "":
		return "reason is empty"
	case textsafe.HiddenKind(v) != "":
		return "reason " + strconv.Quote(v) + " contains " + textsafe.HiddenKind(v)
	}
	return ""
}
