package gitx

// Builders and small helpers for `copse land`: rebase, compare-and-swap ref updates, the
// read-tree sync of a checkout of the target, and the per-worktree state files git keeps
// (rebase-merge/head-name and friends). Each choice was checked on git 2.39; docs/land.md
// says what each step does and refuses.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Rebase rebases the branch checked out at dir onto the commit onto. --no-autostash keeps
// git from stashing into the repository-wide stash; --no-update-refs keeps it from moving
// other branches that point into the rebased range (rebase.updateRefs=true does).
func Rebase(dir, onto string) (Cmd, error) {
	if err := check("rebase", checkDir(dir), checkOID("onto", onto)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rebase", "--no-autostash", "--no-update-refs", onto}}, nil
}

// RebaseAbort aborts the rebase in progress at dir (the branch returns to orig-head).
func RebaseAbort(dir string) (Cmd, error) {
	if err := check("rebase", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rebase", "--abort"}}, nil
}

// UpdateRefCAS moves refs/heads/<branch> from old to new atomically: git refuses when the
// ref is not at old ("cannot lock ref … is at X but expected Y"). It does not check
// ancestry; callers run IsAncestor first.
func UpdateRefCAS(dir, branch, newOID, oldOID, msg string) (Cmd, error) {
	if err := check("update-ref", checkDir(dir), checkBranch("branch", branch),
		checkOID("new", newOID), checkOID("old", oldOID), checkReflogMessage(msg)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-ref", "-m", msg, "refs/heads/" + branch, newOID, oldOID}}, nil
}

// DeleteRefCAS deletes refs/heads/<branch> only while it still points at oldOID.
func DeleteRefCAS(dir, branch, oldOID string) (Cmd, error) {
	if err := check("update-ref", checkDir(dir), checkBranch("branch", branch), checkOID("old", oldOID)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-ref", "-d", "refs/heads/" + branch, oldOID}}, nil
}

// RefreshIndex refreshes the stat information of the index at dir, so read-tree does not
// mistake a file that was merely touched for a modified one. -q: files that need an update
// are not an error.
func RefreshIndex(dir string) (Cmd, error) {
	if err := check("update-index", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-index", "-q", "--refresh"}}, nil
}

// ReadTreeSync moves the checkout at dir from tree old to tree new, carrying local changes
// that do not touch the changed paths (two-tree merge, -m -u) and refusing when they do.
// Hooks and submodule recursion are turned off: this is copse keeping a checkout in step
// with a ref it moved, not a checkout the user asked for.
func ReadTreeSync(dir, oldOID, newOID string) (Cmd, error) {
	if err := check("read-tree", checkDir(dir), checkOID("old", oldOID), checkOID("new", newOID)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"-c", "submodule.recurse=false", "-c", "core.hooksPath=/dev/null",
		"read-tree", "-m", "-u", oldOID, newOID}}, nil
}

// SymbolicHead prints the ref HEAD points at in the worktree at dir; exit 1 when detached.
func SymbolicHead(dir string) (Cmd, error) {
	if err := check("symbolic-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"symbolic-ref", "-q", "HEAD"}, read: true}, nil
}

// ConflictedNames lists unmerged paths of the worktree at dir, NUL-terminated.
func ConflictedNames(dir string) (Cmd, error) {
	if err := check("diff", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"diff", "--name-only", "--diff-filter=U", "-z", "--"}, read: true}, nil
}

// DirtyNames lists every path with a change at dir (staged, unstaged, untracked, each
// untracked file on its own), in short porcelain -z form. It is read-only, so it runs
// without optional locks and does not refresh the index (its mtime stays an idle mark), and
// with the untracked cache off, as every status copse decides on.
func DirtyNames(dir string) (Cmd, error) {
	if err := check("status", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"status", "--porcelain", "-z", "-uall"}, read: true, untracked: UntrackedCacheOff}, nil
}

// checkReflogMessage keeps a reflog message to one plain line.
func checkReflogMessage(msg string) string {
	switch kind := textsafe.HiddenKind(msg); {
	case msg == "":
		return "message is empty"
	case kind != "":
		return "message " + fmt.Sprintf("%q", msg) + " contains " + kind
	}
	return ""
}

// ---- runners ----

// SymbolicHeadRef returns the ref HEAD points at in the worktree at dir ("" when detached).
func (r *Runner) SymbolicHeadRef(ctx context.Context, dir string) (string, error) {
	c, err := SymbolicHead(dir)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// Conflicted lists the unmerged paths of the worktree at dir.
func (r *Runner) Conflicted(ctx context.Context, dir string) ([]string, error) {
	c, err := ConflictedNames(dir)
	return output(ctx, r, c, err, plain(splitNUL))
}

// DirtyPaths lists every path with a change at dir; a rename or copy contributes both of
// its paths.
func (r *Runner) DirtyPaths(ctx context.Context, dir string) ([]string, error) {
	c, err := DirtyNames(dir)
	return output(ctx, r, c, err, ParseDirtyNames)
}

// ParseDirtyNames parses `status --porcelain -z`: "XY path\0", and for a rename or copy
// (X or Y is R or C) one more NUL-terminated field, the original path.
func ParseDirtyNames(b []byte) ([]string, error) {
	var paths []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, fmt.Errorf("gitx: status: entry %q is not NUL-terminated", clip(string(b)))
		}
		e := string(b[:i])
		b = b[i+1:]
		if len(e) < 4 || e[2] != ' ' {
			return nil, fmt.Errorf("gitx: status: malformed entry %q", clip(e))
		}
		paths = append(paths, e[3:])
		if strings.ContainsAny(e[:2], "RC") {
			j := bytes.IndexByte(b, 0)
			if j < 0 {
				return nil, fmt.Errorf("gitx: status: rename entry %q lacks its original path", clip(e))
			}
			paths = append(paths, string(b[:j]))
			b = b[j+1:]
		}
	}
	return paths, nil
}

func splitNUL(b []byte) []string {
	var out []string
	for _, p := range bytes.Split(b, []byte{0}) {
		if len(p) > 0 {
			out = append(out, string(p))
		}
	}
	return out
}

// ---- per-worktree state files ----

// WorktreeGitDir returns the git directory of the worktree at dir (the main checkout's
// .git, or <common>/worktrees/<id> of a linked one), found the way git finds it.
func WorktreeGitDir(dir string) (string, error) { return worktreeGitDir(dir) }

// RebaseState is what git records of a rebase in progress in one worktree.
type RebaseState struct {
	Dir      string // rebase-merge or rebase-apply directory
	HeadName string // "refs/heads/<branch>" being rebased ("detached HEAD" when none)
	OrigHead string // the branch's commit before the rebase started
	Onto     string // the commit it is being rebased onto
}

// ReadRebase reports the rebase in progress in the worktree whose git directory is
// gitDir, or nil when there is none.
func ReadRebase(gitDir string) (*RebaseState, error) {
	for _, name := range []string{"rebase-merge", "rebase-apply"} {
		d := filepath.Join(gitDir, name)
		fi, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("gitx: %w", err)
		}
		if !fi.IsDir() {
			continue
		}
		st := &RebaseState{Dir: d}
		st.HeadName = readLine(filepath.Join(d, "head-name"))
		st.OrigHead = readLine(filepath.Join(d, "orig-head"))
		st.Onto = readLine(filepath.Join(d, "onto"))
		return st, nil
	}
	return nil, nil
}

// Operation names what is in progress in the worktree whose git directory is gitDir:
// "rebase", "merge", "cherry-pick", "revert", "sequencer", "bisect", or "" for nothing.
func Operation(gitDir string) (string, error) {
	for _, m := range []struct{ file, what string }{
		{"rebase-merge", "rebase"}, {"rebase-apply", "rebase"}, {"MERGE_HEAD", "merge"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"}, {"sequencer", "sequencer"},
		{"BISECT_LOG", "bisect"},
	} {
		ok, err := anyExists(gitDir, m.file)
		if err != nil {
			return "", err
		}
		if ok {
			return m.what, nil
		}
	}
	return "", nil
}

// BusyBranch reports the branch a rebase or bisect in the worktree whose git directory is
// gitDir will return to ("refs/heads/<b>"): git lists such a worktree as detached, but
// `rebase --abort` or `bisect reset` would move that branch back.
func BusyBranch(gitDir string) string {
	for _, f := range []string{filepath.Join("rebase-merge", "head-name"), filepath.Join("rebase-apply", "head-name")} {
		if s := readLine(filepath.Join(gitDir, f)); strings.HasPrefix(s, "refs/heads/") {
			return s
		}
	}
	if s := readLine(filepath.Join(gitDir, "BISECT_START")); s != "" {
		if strings.HasPrefix(s, "refs/heads/") {
			return s
		}
		if !isOID(s) {
			return "refs/heads/" + s
		}
	}
	return ""
}

// readLine returns a small state file's first line, "" when it is missing.
func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// ConfigGetRegexp reads every config entry whose (lower-cased) key matches pattern, as
// "key\nvalue\0" records; git exits 1 with no output when none matches.
func ConfigGetRegexp(dir, pattern string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkRef("pattern", pattern)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--null", "--get-regexp", "--end-of-options", pattern}, read: true}, nil
}

// ConfigMatching returns the entries whose key matches pattern, keys lower-cased as git
// prints them; a key set several times keeps its last value, as `git config --get` does.
func (r *Runner) ConfigMatching(ctx context.Context, dir, pattern string) (map[string]string, error) {
	c, err := ConfigGetRegexp(dir, pattern)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := strings.Cut(string(rec), "\n")
		vals[k] = v
	}
	return vals, nil
}

// ---- what lands is what was on the branch ----

// RebaseKeepingMerges is Rebase for a branch with merge commits: plain rebase drops them,
// and with them any change made inside one. --rebase-merges=rebase-cousins recreates each
// merge on the new base; a merge of the target itself has nothing left to bring and
// vanishes, so the target's first-parent history stays its own. git does not carry over
// changes made inside a merge (conflict resolutions, edits): the caller proves the result.
func RebaseKeepingMerges(dir, onto string) (Cmd, error) {
	if err := check("rebase", checkDir(dir), checkOID("onto", onto)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rebase", "--no-autostash", "--no-update-refs", "--rebase-merges=rebase-cousins", onto}}, nil
}

// maxMergesListed bounds MergeCommits: a message names a few; more only cost memory.
const maxMergesListed = 20

// MergeCommitsCmd lists the merge commits reachable from tip but not from base, newest
// first, at most maxMergesListed.
func MergeCommitsCmd(dir, base, tip string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkOID("base", base), checkOID("tip", tip)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--merges", fmt.Sprintf("--max-count=%d", maxMergesListed), tip, "^" + base}, read: true}, nil
}

// MergeTreeCmd merges the commits a and b in memory (their merge base found by git) and
// prints the resulting tree; it writes tree objects but touches no ref, index or file.
// Exit 1 (nothing on stderr with --no-messages) means the merge has conflicts.
func MergeTreeCmd(dir, a, b string) (Cmd, error) {
	if err := check("merge-tree", checkDir(dir), checkOID("first", a), checkOID("second", b)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"merge-tree", "--write-tree", "--no-messages", a, b}}, nil
}

// ResetKeep moves the branch checked out at dir back to oid, updating the files that
// differ and refusing (changing nothing) when a local change is in the way. Land uses it
// to put a branch back where it was when what a rebase made cannot land.
func ResetKeep(dir, oid string) (Cmd, error) {
	if err := check("reset", checkDir(dir), checkOID("commit", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"-c", "submodule.recurse=false", "-c", "core.hooksPath=/dev/null",
		"reset", "--quiet", "--keep", oid, "--"}}, nil
}

// StatusWithIgnoredCmd lists every changed, untracked and ignored path of the worktree at
// dir (porcelain v1, -z), whatever status.showUntrackedFiles says and with the untracked
// cache off: land checks a checkout it is about to rewrite (git overwrites ignored files)
// against it. --ignored=matching names an ignored directory once ("build/") rather than every file
// in it, so a large ignored tree stays one entry.
func StatusWithIgnoredCmd(dir string) (Cmd, error) {
	if err := check("status", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"status", "--porcelain", "-z", "--untracked-files=all", "--ignored=matching",
		"--ignore-submodules=none"}, read: true, limit: safetyOutputLimit, untracked: UntrackedCacheOff}, nil
}

// TouchedNamesCmd lists every path that a commit reachable from tip but not from base
// changes (merges show none: their changes are in the trees of their children), NUL-separated.
func TouchedNamesCmd(dir, base, tip string) (Cmd, error) {
	if err := check("log", checkDir(dir), checkOID("base", base), checkOID("tip", tip)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"log", "--format=", "--name-only", "--no-renames", "-z", tip, "^" + base}, read: true}, nil
}

// TouchedPaths runs TouchedNamesCmd.
func (r *Runner) TouchedPaths(ctx context.Context, dir, base, tip string) ([]string, error) {
	c, err := TouchedNamesCmd(dir, base, tip)
	return output(ctx, r, c, err, plain(splitNUL))
}

// MergeCommits runs MergeCommitsCmd.
func (r *Runner) MergeCommits(ctx context.Context, dir, base, tip string) ([]string, error) {
	c, err := MergeCommitsCmd(dir, base, tip)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// MergeTree runs MergeTreeCmd: the merged tree, or clean false when the merge conflicts.
func (r *Runner) MergeTree(ctx context.Context, dir, a, b string) (tree string, clean bool, err error) {
	c, err := MergeTreeCmd(dir, a, b)
	if err != nil {
		return "", false, err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	tree, _, _ = strings.Cut(string(out), "\n")
	if !isOID(tree) {
		return "", false, fmt.Errorf("gitx: merge-tree printed %q, not a tree id", clip(tree))
	}
	return tree, true, nil
}

// TreeOf resolves a commit to the id of its tree.
func (r *Runner) TreeOf(ctx context.Context, dir, commit string) (string, error) {
	c, err := RevParseTree(dir, commit)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// ChangedAndIgnored runs StatusWithIgnoredCmd: dirty holds every changed or untracked path (a rename
// both of its paths), ignored every ignored path; a directory keeps its trailing "/".
func (r *Runner) ChangedAndIgnored(ctx context.Context, dir string) (dirty, ignored []string, err error) {
	c, err := StatusWithIgnoredCmd(dir)
	if err != nil {
		return nil, nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return ParseStatusWithIgnored(out)
}

// ParseStatusWithIgnored splits `status --porcelain -z --ignored` into the ignored entries
// ("!!") and all the others.
func ParseStatusWithIgnored(b []byte) (dirty, ignored []string, err error) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, nil, fmt.Errorf("gitx: status: entry %q is not NUL-terminated", clip(string(b)))
		}
		e := string(b[:i])
		b = b[i+1:]
		if len(e) < 4 || e[2] != ' ' {
			return nil, nil, fmt.Errorf("gitx: status: malformed entry %q", clip(e))
		}
		if e[:2] == "!!" {
			ignored = append(ignored, e[3:])
			continue
		}
		dirty = append(dirty, e[3:])
		if strings.ContainsAny(e[:2], "RC") {
			j := bytes.IndexByte(b, 0)
			if j < 0 {
				return nil, nil, fmt.Errorf("gitx: status: rename entry %q lacks its original path", clip(e))
			}
			dirty = append(dirty, string(b[:j]))
			b = b[j+1:]
		}
	}
	return dirty, ignored, nil
}

// StatusEntry is one entry of `status --porcelain=v2 -z` (StatusCmd): its path, its line
// as git printed it (a rename's original path appended), and whether its worktree side
// differs from the index (an unmerged or untracked path included), where the line alone
// does not say what the file holds.
type StatusEntry struct {
	Path, Line   string
	WorktreeSide bool
}

// ParseStatusEntries parses `status --porcelain=v2 --branch -z`: the HEAD commit (its
// "# branch.oid" header; "" when unborn) and each entry.
func ParseStatusEntries(b []byte) (head string, entries []StatusEntry, err error) {
	fields := bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if f == "" {
			continue
		}
		if oid, ok := strings.CutPrefix(f, "# branch.oid "); ok && oid != "(initial)" {
			head = oid
		}
		n := map[byte]int{'1': 9, '2': 10, 'u': 11}[f[0]]
		switch {
		case f[0] == '#' || f[0] == '!':
			continue
		case f[0] == '?':
			entries = append(entries, StatusEntry{Path: strings.TrimPrefix(f, "? "), Line: f, WorktreeSide: true})
			continue
		case n == 0:
			return "", nil, fmt.Errorf("gitx: status: unknown entry %q", clip(f))
		}
		parts := strings.SplitN(f, " ", n)
		if len(parts) != n || len(parts[1]) != 2 {
			return "", nil, fmt.Errorf("gitx: status: malformed entry %q", clip(f))
		}
		e := StatusEntry{Path: parts[n-1], Line: f, WorktreeSide: f[0] == 'u' || parts[1][1] != '.'}
		if f[0] == '2' {
			if i+1 >= len(fields) {
				return "", nil, fmt.Errorf("gitx: status: rename entry %q lacks its original path", clip(f))
			}
			i++
			e.Line += "\x00" + string(fields[i])
		}
		entries = append(entries, e)
	}
	return head, entries, nil
}

// StatusEntries runs StatusCmd at dir and parses it (ParseStatusEntries).
func (r *Runner) StatusEntries(ctx context.Context, dir string) (string, []StatusEntry, error) {
	c, err := StatusCmd(dir)
	if err != nil {
		return "", nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", nil, err
	}
	return ParseStatusEntries(out)
}
