package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Status is a summary of `git status --porcelain=v2 --branch -z`.
type Status struct {
	OID         string // commit checked out; "" on an unborn branch
	Branch      string // "" when detached
	Upstream    string // "" when none
	HasUpstream bool
	// Ahead and Behind are 0 when there is no upstream or it is gone (git
	// prints no branch.ab line then).
	Ahead, Behind                           int
	Staged, Unstaged, Untracked, Conflicted int  // entry counts
	Rebasing, Merging                       bool // set by Runner.Status and StatusIn only

	// Ignored counts ignored entries ('!'), and IgnoredSample keeps the first few of them
	// (only a status run with --ignored prints any).
	Ignored       int
	IgnoredSample []string
	// UntrackedDirs and IgnoredDirs are entries printed as a directory ("sub/"); they are
	// counted in Untracked and Ignored too. With --untracked-files=all and
	// --ignored=traditional git lists every other file one by one and stops only at a
	// nested repository, so there each of these is a repository of its own.
	UntrackedDirs, IgnoredDirs []string
}

// ignoredSampleSize bounds Status.IgnoredSample: a confirmation names a few, then a count.
const ignoredSampleSize = 5

// Dirty reports any staged, unstaged, untracked or conflicted entry.
func (s Status) Dirty() bool {
	return s.Staged+s.Unstaged+s.Untracked+s.Conflicted > 0
}

// entryFields is the number of space-separated fields of each entry type in
// porcelain v2; the last one is the path, which may itself contain spaces.
var entryFields = map[byte]int{'1': 9, '2': 10, 'u': 11, '?': 2, '!': 2}

// ParseStatus parses `git status --porcelain=v2 --branch -z`. With -z every
// entry is NUL-terminated and paths are raw, and a rename/copy ('2') entry is
// followed by one more NUL-terminated field, the original path.
//
// An unknown entry type is an error rather than skipped: without knowing its
// shape we cannot know how many fields it spans, so everything after it would
// be guesswork.
func ParseStatus(b []byte) (Status, error) {
	var (
		s                 Status
		haveOID, haveHead bool
		seen              = map[string]bool{}
	)
	for len(b) > 0 {
		field, rest, err := nextField(b)
		if err != nil {
			return Status{}, err
		}
		b = rest
		if field == "" {
			return Status{}, errors.New("gitx: status: empty entry")
		}
		if field[0] == '#' {
			key, value, err := parseHeader(field)
			if err != nil {
				return Status{}, err
			}
			if seen[key] {
				return Status{}, fmt.Errorf("gitx: status: header %q repeated", key)
			}
			seen[key] = true
			switch key {
			case "branch.oid":
				haveOID = true
				if value != "(initial)" {
					if !isOID(value) {
						return Status{}, fmt.Errorf("gitx: status: branch.oid %q is not an object id", value)
					}
					s.OID = value
				}
			case "branch.head":
				haveHead = true
				if value != "(detached)" {
					s.Branch = value
				}
			case "branch.upstream":
				s.Upstream, s.HasUpstream = value, true
			case "branch.ab":
				if s.Ahead, s.Behind, err = parseAheadBehind(value); err != nil {
					return Status{}, err
				}
			}
			continue
		}
		n, ok := entryFields[field[0]]
		if !ok {
			return Status{}, fmt.Errorf("gitx: status: unknown entry %q", clip(field))
		}
		parts := strings.SplitN(field, " ", n)
		if len(parts) != n || parts[0] != field[:1] || parts[n-1] == "" {
			return Status{}, fmt.Errorf("gitx: status: malformed entry %q", clip(field))
		}
		switch field[0] {
		case '1', '2', 'u':
			if err := checkEntry(parts); err != nil {
				return Status{}, err
			}
		}
		switch field[0] {
		case '1', '2':
			if parts[1][0] != '.' {
				s.Staged++
			}
			if parts[1][1] != '.' {
				s.Unstaged++
			}
		case 'u':
			s.Conflicted++
		case '?', '!':
			p := parts[1]
			dir := strings.HasSuffix(p, "/")
			if field[0] == '?' {
				s.Untracked++
				if dir {
					s.UntrackedDirs = append(s.UntrackedDirs, p)
				}
			} else {
				if dir {
					s.IgnoredDirs = append(s.IgnoredDirs, p)
				}
				s.Ignored++
				if len(s.IgnoredSample) < ignoredSampleSize {
					s.IgnoredSample = append(s.IgnoredSample, p)
				}
			}
		}
		if field[0] == '2' { // the original path of the rename or copy
			orig, rest, err := nextField(b)
			if err != nil || orig == "" {
				return Status{}, fmt.Errorf("gitx: status: rename entry %q lacks its original path", clip(parts[n-1]))
			}
			b = rest
		}
	}
	if !haveOID || !haveHead {
		return Status{}, errors.New("gitx: status: missing branch.oid or branch.head header (was --branch given?)")
	}
	if seen["branch.ab"] && !s.HasUpstream {
		return Status{}, errors.New("gitx: status: branch.ab without branch.upstream")
	}
	return s, nil
}

func nextField(b []byte) (string, []byte, error) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, fmt.Errorf("gitx: status: entry %q is not NUL-terminated (truncated output?)", clip(string(b)))
	}
	return string(b[:i]), b[i+1:], nil
}

func parseHeader(field string) (key, value string, err error) {
	rest, ok := strings.CutPrefix(field, "# ")
	if !ok {
		return "", "", fmt.Errorf("gitx: status: malformed header %q", clip(field))
	}
	key, value, ok = strings.Cut(rest, " ")
	if !ok || key == "" || value == "" {
		return "", "", fmt.Errorf("gitx: status: malformed header %q", clip(field))
	}
	return key, value, nil
}

// parseAheadBehind parses "+A -B".
func parseAheadBehind(v string) (int, int, error) {
	a, b, ok := strings.Cut(v, " ")
	if ok && strings.HasPrefix(a, "+") && strings.HasPrefix(b, "-") && isDigits(a[1:]) && isDigits(b[1:]) {
		ahead, err1 := strconv.Atoi(a[1:])
		behind, err2 := strconv.Atoi(b[1:])
		if err1 == nil && err2 == nil {
			return ahead, behind, nil
		}
	}
	return 0, 0, fmt.Errorf("gitx: status: malformed branch.ab %q", v)
}

// checkEntry validates the XY and submodule fields shared by '1', '2' and 'u'.
func checkEntry(parts []string) error {
	xy, sub := parts[1], parts[2]
	if len(xy) != 2 || strings.Trim(xy, ".MTADRCU") != "" {
		return fmt.Errorf("gitx: status: malformed XY %q", xy)
	}
	if len(sub) != 4 || (sub[0] != 'N' && sub[0] != 'S') {
		return fmt.Errorf("gitx: status: malformed submodule field %q", sub)
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Status runs git status in the worktree at dir (StatusCmd: the untracked cache off, for
// a decision) and adds whether a rebase or merge is in progress, read from the worktree's
// own git directory (these markers are per worktree) without starting another process.
func (r *Runner) Status(ctx context.Context, dir string) (Status, error) {
	return r.StatusIn(ctx, dir, nil)
}

// GitDirState is what Status reads from a worktree's git directory besides git's output.
type GitDirState struct {
	Dir               string // the worktree's git directory
	Rebasing, Merging bool   // rebase-merge or rebase-apply, MERGE_HEAD exist
}

// StatusIn is Status for a caller that has just read the worktree's git directory (the
// status cache's proof, taken right before git runs): known is not read again. nil reads it
// after git, as Status does.
func (r *Runner) StatusIn(ctx context.Context, dir string, known *GitDirState) (Status, error) {
	c, err := StatusCmd(dir)
	return r.status(ctx, dir, c, err, known)
}

// DisplayStatus is StatusIn for a listing: git uses the untracked cache as untracked says.
func (r *Runner) DisplayStatus(ctx context.Context, dir string, untracked UntrackedCache, known *GitDirState) (Status, error) {
	c, err := DisplayStatusCmd(dir, untracked)
	return r.status(ctx, dir, c, err, known)
}

func (r *Runner) status(ctx context.Context, dir string, c Cmd, err error, known *GitDirState) (Status, error) {
	if err != nil {
		return Status{}, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return Status{}, err
	}
	s, err := ParseStatus(out)
	if err != nil {
		return Status{}, err
	}
	if known != nil {
		s.Rebasing, s.Merging = known.Rebasing, known.Merging
		return s, nil
	}
	gitDir, err := worktreeGitDir(dir)
	if err != nil {
		return Status{}, err
	}
	if s.Rebasing, err = anyExists(gitDir, "rebase-merge", "rebase-apply"); err != nil {
		return Status{}, err
	}
	if s.Merging, err = anyExists(gitDir, "MERGE_HEAD"); err != nil {
		return Status{}, err
	}
	return s, nil
}

// worktreeGitDir finds the git directory of the worktree containing dir the
// way git discovers it: the nearest ".git", which is a directory in the main
// worktree and a file "gitdir: <path>" in a linked one.
func worktreeGitDir(dir string) (string, error) {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return dotgit, nil
		case err == nil:
			return readGitFile(dotgit)
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("gitx: finding the git directory of %s: %w", dir, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("gitx: no .git found at or above %s", dir)
		}
		d = parent
	}
}

// readGitFile reads a ".git" file. git writes an absolute path today, but a
// relative one (worktree.useRelativePaths in newer git) is relative to the
// file's directory.
func readGitFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("gitx: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", fmt.Errorf("gitx: reading %s: %w", path, err)
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok || target == "" || strings.ContainsAny(target, "\x00\n") {
		return "", fmt.Errorf("gitx: %s is not a \"gitdir: <path>\" file", path)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return target, nil
}

func anyExists(dir string, names ...string) (bool, error) {
	for _, n := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("gitx: %w", err)
		}
	}
	return false, nil
}
