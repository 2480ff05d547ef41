package gitx

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// CommonDir returns the repository's common git directory (where copse keeps its lock),
// from any worktree or from a bare repository. Only git's final newline is removed.
func (r *Runner) CommonDir(ctx context.Context, dir string) (string, error) {
	c, err := RevParseCommonDir(dir)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	commonDir := strings.TrimSuffix(string(out), "\n")
	if !filepath.IsAbs(commonDir) {
		return "", fmt.Errorf("gitx: rev-parse printed %q, not an absolute path", clip(commonDir))
	}
	return commonDir, nil
}

// ConfigValue reads one config value; ok is false when the key is unset.
// Only the final newline git adds is removed; the value is otherwise verbatim.
func (r *Runner) ConfigValue(ctx context.Context, dir, key string) (string, bool, error) {
	if configFromFiles[key] {
		if v, found, ok := r.readConfigFromFiles(dir, key); ok {
			return v, found, nil
		}
	}
	c, err := ConfigGet(dir, key)
	if err != nil {
		return "", false, err
	}
	return r.configGet(ctx, c)
}

// configGet runs a git config --get of one key: its value without the final newline git
// adds, ok false when git says (exit 1, silently) that no config sets it.
func (r *Runner) configGet(ctx context.Context, c Cmd) (string, bool, error) {
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(string(out), "\n"), true, nil
}

// BranchExists reports whether refs/heads/<branch> exists.
func (r *Runner) BranchExists(ctx context.Context, dir, branch string) (bool, error) {
	c, err := LocalBranchExists(dir, branch)
	if err != nil {
		return false, err
	}
	return r.yesNo(ctx, c)
}

// Branches lists local branch names in git's (byte-wise) order.
func (r *Runner) Branches(ctx context.Context, dir string) ([]string, error) {
	c, err := LocalBranches(dir)
	if err != nil {
		return nil, err
	}
	return r.lines(ctx, c)
}

// lines runs a command that prints ref names, one per line. Ref names cannot contain
// newlines (check-ref-format forbids control characters), so lines are unambiguous.
func (r *Runner) lines(ctx context.Context, c Cmd) ([]string, error) {
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			names = append(names, l)
		}
	}
	return names, nil
}

// ResolveBranchName runs `git check-ref-format --branch` and returns the name
// git prints back (e.g. "@{-1}" becomes the branch checked out before).
// Added beyond the brief: it pairs the builder with its output parsing.
func (r *Runner) ResolveBranchName(ctx context.Context, dir, name string) (string, error) {
	c, err := CheckRefFormatBranch(dir, name)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	got := strings.TrimSuffix(string(out), "\n")
	if why := checkBranch("branch", got); why != "" {
		return "", fmt.Errorf("gitx: check-ref-format returned an unusable name: %s", why)
	}
	return got, nil
}

// ResolveCommit returns the full object id of the commit ref names.
func (r *Runner) ResolveCommit(ctx context.Context, dir, ref string) (string, error) {
	c, err := RevParseCommit(dir, ref)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	oid := strings.TrimSuffix(string(out), "\n")
	if !isOID(oid) {
		return "", fmt.Errorf("gitx: rev-parse printed %q, not an object id", clip(oid))
	}
	return oid, nil
}

// Ancestor reports whether ancestor is an ancestor of (or equal to) descendant.
func (r *Runner) Ancestor(ctx context.Context, dir, ancestor, descendant string) (bool, error) {
	c, err := IsAncestor(dir, ancestor, descendant)
	if err != nil {
		return false, err
	}
	return r.yesNo(ctx, c)
}

// UniqueCommits counts the commits only branch holds (see UniqueCommitCount) whose change
// is on no other branch or remote either: a branch landed as rebased copies holds commits
// no other ref reaches, but each copy's patch (git patch-id, as git cherry compares) is on
// the target, so deleting the branch loses no work. A commit whose change differs from
// every copy still counts, and so does a merge commit (it has no single patch to compare).
// When the comparison itself fails the reachability count stands: it can only say more.
func (r *Runner) UniqueCommits(ctx context.Context, dir, branch string) (int, error) {
	c, err := UniqueCommitCount(dir, branch)
	if err != nil {
		return 0, err
	}
	n, err := r.count(ctx, c)
	if err != nil || n == 0 {
		return n, err
	}
	copied, err := r.patchesElsewhere(ctx, dir, branch)
	if err != nil || copied > n {
		return n, nil
	}
	return n - copied, nil
}

// patchesElsewhere counts the non-merge commits only branch reaches whose patch some other
// branch or remote-tracking ref holds, in one walk: with several symmetric differences
// (R1...tip R2...tip) --cherry-pick compares tip's side against all the others at once.
// It can only find fewer copies than there are (a merge base of one pair may hide another
// ref's older commits), never more: each copy it finds is on some ref.
func (r *Runner) patchesElsewhere(ctx context.Context, dir, branch string) (int, error) {
	tip, err := r.ResolveCommit(ctx, dir, "refs/heads/"+branch)
	if err != nil {
		return 0, err
	}
	c, err := UniqueNonMergeCommits(dir, branch, tip)
	if err != nil {
		return 0, err
	}
	own, err := r.oidLines(ctx, c)
	if err != nil || len(own) == 0 {
		return 0, err
	}
	c, err = BranchAndRemoteTipsCmd(dir)
	if err != nil {
		return 0, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return 0, err
	}
	refs, err := ParseRefLines(out)
	if err != nil {
		return 0, err
	}
	var others []string
	seen := map[string]bool{tip: true}
	for _, ref := range refs {
		if !seen[ref.Commit] && ref.Name != "refs/heads/"+branch {
			seen[ref.Commit] = true
			others = append(others, ref.Commit)
		}
	}
	if len(others) == 0 {
		return 0, nil
	}
	c, err = NewPatchesAgainstCmd(dir, others, tip)
	if err != nil {
		return 0, err
	}
	fresh, err := r.oidLines(ctx, c)
	if err != nil {
		return 0, err
	}
	still := make(map[string]bool, len(fresh))
	for _, o := range fresh {
		still[o] = true
	}
	copied := 0
	for _, o := range own {
		if !still[o] {
			copied++ // its patch is on another ref
		}
	}
	return copied, nil
}

// yesNo runs a command whose exit status is the answer: 0 yes, 1 (silent) no.
func (r *Runner) yesNo(ctx context.Context, c Cmd) (bool, error) {
	_, err := r.Run(ctx, c)
	switch {
	case err == nil:
		return true, nil
	case exitedOneSilently(err):
		return false, nil
	}
	return false, err
}

// ConfigGetAll reads every value of a multi-valued key (copse.copy, copse.setup); git
// exits 1 with no output when it is unset. -z keeps a value with a newline whole.
func ConfigGetAll(dir, key string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkConfigKey(key)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "-z", "--get-all", "--end-of-options", key}, read: true}, nil
}

// ConfigValues runs ConfigGetAll; an unset key is no values.
func (r *Runner) ConfigValues(ctx context.Context, dir, key string) ([]string, error) {
	c, err := ConfigGetAll(dir, key)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return nulFields(out), nil
}

// ConfigFileGetAll reads every value of a multi-valued key from the config file at file
// only (a repository's committed project config), never from the repository's or the
// user's config. --no-includes: a committed file must not pull in other files.
func ConfigFileGetAll(dir, file, key string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkPath("file", file), checkConfigKey(key)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--file", file, "--no-includes", "-z", "--get-all", "--end-of-options", key}, read: true}, nil
}

// ConfigFileValues runs ConfigFileGetAll; an unset key is no values.
func (r *Runner) ConfigFileValues(ctx context.Context, dir, file, key string) ([]string, error) {
	c, err := ConfigFileGetAll(dir, file, key)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return nulFields(out), nil
}

// nulFields splits NUL-terminated output into its non-empty fields.
func nulFields(out []byte) []string {
	var fields []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

// UntrackedMatching lists the untracked and ignored files of the worktree at dir that match
// any of the glob pathspecs (git's :(glob) magic: ** crosses directories), one relative
// path per NUL. git does not enter nested repositories.
func UntrackedMatching(dir string, globs []string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	for _, g := range globs {
		reasons = append(reasons, checkRef("pattern", g))
	}
	if err := check("ls-files", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"ls-files", "-z", "--others", "--"}
	for _, g := range globs {
		args = append(args, ":(glob)"+g)
	}
	return Cmd{dir: dir, args: args, read: true}, nil
}

// UntrackedIncluded lists the untracked and ignored files of the worktree at dir that the
// gitignore-syntax patterns select (a .worktreeinclude file's lines, in order, so "!"
// negates an earlier line), one relative path per NUL. git itself matches them: --others
// --ignored with the patterns as the only excludes lists exactly the files git does not
// track that the patterns name, files inside a named directory included.
func UntrackedIncluded(dir string, patterns []string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	for _, p := range patterns {
		if p == "" || strings.IndexByte(p, 0) >= 0 || strings.ContainsAny(p, "\n") {
			reasons = append(reasons, "pattern "+strconv.Quote(p)+" is not one line")
		}
	}
	if err := check("ls-files", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"ls-files", "-z", "--others", "--ignored"}
	for _, p := range patterns {
		args = append(args, "--exclude="+p)
	}
	return Cmd{dir: dir, args: args, read: true}, nil
}

// FilesIncluded runs UntrackedIncluded.
func (r *Runner) FilesIncluded(ctx context.Context, dir string, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	c, err := UntrackedIncluded(dir, patterns)
	return output(ctx, r, c, err, plain(nulFields))
}

// FilesMatching runs UntrackedMatching.
func (r *Runner) FilesMatching(ctx context.Context, dir string, globs []string) ([]string, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	c, err := UntrackedMatching(dir, globs)
	return output(ctx, r, c, err, plain(nulFields))
}
