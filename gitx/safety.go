package gitx

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// What removing a worktree would lose is computed here from git's own answers, whatever
// the user's git config says: the commands force the modes they need instead of
// inheriting status.showUntrackedFiles, diff.ignoreSubmodules and the like.

// safetyOutputLimit is the cap for the safety status, which lists every untracked and
// ignored file: a worktree with a large node_modules legitimately prints megabytes, and
// refusing it for that would leave the user no way to remove it but --force.
const safetyOutputLimit = 256 << 20

// SafetyStatusCmd is the status copse decides a remove on: every untracked file one by
// one (so a directory git does not enter is a nested repository), every ignored file,
// and submodule changes, whatever the configuration hides.
func SafetyStatusCmd(dir string) (Cmd, error) {
	if err := check("status", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	// core.fsmonitor=false: a file-system monitor (or a hook posing as one) answers
	// "nothing changed" from its own cache, and in a nested repository its command is
	// that repository's config, not the user's; copse asks the disk. The untracked cache
	// is off for the same reason (a stale record in the index would hide a file).
	return Cmd{dir: dir, args: []string{"-c", "core.fsmonitor=false", "status", "--porcelain=v2", "--branch", "-z",
		"--untracked-files=all", "--ignored=traditional", "--ignore-submodules=none"}, read: true, limit: safetyOutputLimit,
		untracked: UntrackedCacheOff}, nil
}

// SafetyStatus runs SafetyStatusCmd and adds the operation in progress, if any.
func (r *Runner) SafetyStatus(ctx context.Context, dir string) (Status, string, error) {
	c, err := SafetyStatusCmd(dir)
	if err != nil {
		return Status{}, "", err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return Status{}, "", err
	}
	s, err := ParseStatus(out)
	if err != nil {
		return Status{}, "", err
	}
	op, err := OperationInProgress(dir)
	if err != nil {
		return Status{}, "", err
	}
	s.Rebasing, s.Merging = op == OpRebase, op == OpMerge
	return s, op, nil
}

// Operations that can be in progress in a worktree (its own git directory records them).
const (
	OpRebase     = "rebase"
	OpMerge      = "merge"
	OpCherryPick = "cherry-pick"
	OpRevert     = "revert"
	OpBisect     = "bisect"
	OpSequence   = "cherry-pick or revert sequence"
)

// operationMarkers are checked in order; the first present names the operation.
var operationMarkers = []struct{ file, op string }{
	{"rebase-merge", OpRebase}, {"rebase-apply", OpRebase},
	{"MERGE_HEAD", OpMerge},
	{"CHERRY_PICK_HEAD", OpCherryPick},
	{"REVERT_HEAD", OpRevert},
	{"BISECT_LOG", OpBisect},
	{"sequencer", OpSequence},
}

// OperationInProgress names the rebase, merge, cherry-pick, revert or bisect under way in
// the worktree at dir ("" when none), read from the worktree's own git directory without
// starting a process.
func OperationInProgress(dir string) (string, error) {
	gitDir, err := worktreeGitDir(dir)
	if err != nil {
		return "", err
	}
	for _, m := range operationMarkers {
		ok, err := anyExists(gitDir, m.file)
		if err != nil {
			return "", err
		}
		if ok {
			return m.op, nil
		}
	}
	return "", nil
}

// FlaggedFilesCmd lists the index entries git is told not to look at: assume-unchanged
// (lower-case tag) and skip-worktree ("S"). Their changes never show in git status.
// Only those records are kept, so a large index costs no memory.
func FlaggedFilesCmd(dir string) (Cmd, error) {
	if err := check("ls-files", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	keep := func(rec []byte) bool {
		return len(rec) > 0 && (rec[0] == 'S' || (rec[0] >= 'a' && rec[0] <= 'z'))
	}
	return Cmd{dir: dir, args: []string{"ls-files", "-z", "-s", "-v"}, read: true, keep: keep}, nil
}

// FlaggedFile is one assume-unchanged or skip-worktree index entry.
type FlaggedFile struct {
	Path         string // relative to the worktree
	Mode         string // e.g. 100644, 100755, 120000
	OID          string
	SkipWorktree bool
}

// ParseFlaggedFiles parses FlaggedFilesCmd's output: "<tag> <mode> <oid> <stage>\t<path>\0".
func ParseFlaggedFiles(b []byte) ([]FlaggedFile, error) {
	var out []FlaggedFile
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, errors.New("gitx: ls-files: record is not NUL-terminated")
		}
		rec := string(b[:i])
		b = b[i+1:]
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || path == "" || len(f) != 4 || len(f[0]) != 1 || !isOID(f[2]) || !isDigits(f[1]) {
			return nil, fmt.Errorf("gitx: ls-files: malformed record %q", clip(rec))
		}
		out = append(out, FlaggedFile{Path: path, Mode: f[1], OID: f[2], SkipWorktree: f[0] == "S" || f[0] == "s"})
	}
	return out, nil
}

// HiddenChanges lists the assume-unchanged and skip-worktree files of the worktree at dir
// whose contents differ from the index: changes git status does not show but a remove
// deletes. A skip-worktree file that is absent is what sparse checkout means, not a
// change; an assume-unchanged file that is absent was deleted. The comparison hashes the
// file as git would without filters, so a file under a clean filter may be counted as
// changed when it is not: that errs towards keeping work.
func (r *Runner) HiddenChanges(ctx context.Context, dir string) ([]string, error) {
	c, err := FlaggedFilesCmd(dir)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	files, err := ParseFlaggedFiles(out)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range files {
		same, err := matchesIndex(filepath.Join(dir, filepath.FromSlash(f.Path)), f)
		if err != nil {
			return nil, err
		}
		if !same {
			changed = append(changed, f.Path)
		}
	}
	return changed, nil
}

// matchesIndex reports whether the file at p has the index entry's content and mode.
func matchesIndex(p string, f FlaggedFile) (bool, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f.SkipWorktree, nil
	}
	if err != nil {
		return false, fmt.Errorf("gitx: %w", err)
	}
	var data []byte
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if f.Mode != "120000" {
			return false, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return false, fmt.Errorf("gitx: %w", err)
		}
		data = []byte(target)
	case fi.Mode().IsRegular():
		exec := fi.Mode()&0o111 != 0
		if (f.Mode == "100755") != exec || (f.Mode != "100755" && f.Mode != "100644") {
			return false, nil
		}
		if data, err = os.ReadFile(p); err != nil {
			return false, fmt.Errorf("gitx: %w", err)
		}
	default:
		return false, nil // a directory or device where a file was: changed
	}
	return blobID(data, len(f.OID)) == f.OID, nil
}

// blobID is git's object id of a blob holding data (SHA-1, or SHA-256 for 64-digit ids).
func blobID(data []byte, hexLen int) string {
	var h hash.Hash
	if hexLen == 64 {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	io.WriteString(h, "blob "+strconv.Itoa(len(data))+"\x00")
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// UnreachableCountCmd counts the commits reachable from oid but from no branch, tag or
// remote-tracking ref: what a detached worktree holds that nothing else does.
func UnreachableCountCmd(dir, oid string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkOID("commit", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--count", oid, "--not", "--branches", "--tags", "--remotes"}, read: true}, nil
}

// UnreachableCommits runs UnreachableCountCmd.
func (r *Runner) UnreachableCommits(ctx context.Context, dir, oid string) (int, error) {
	c, err := UnreachableCountCmd(dir, oid)
	if err != nil {
		return 0, err
	}
	return r.count(ctx, c)
}

// count runs a command that prints one decimal count.
func (r *Runner) count(ctx context.Context, c Cmd) (int, error) {
	out, err := r.Run(ctx, c)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSuffix(string(out), "\n")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || !isDigits(s) {
		return 0, fmt.Errorf("gitx: %s printed %q, not a count", c.args[0], clip(s))
	}
	return n, nil
}
