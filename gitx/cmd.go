// Package gitx is the only place in copse that runs git. It builds argument
// arrays (never shell strings), runs them with bounded resources, and parses
// git's machine-readable output into typed values. It imports only the
// standard library and internal/textsafe (itself standard library only). It must
// never decide policy (which worktree may be removed is core's business) and never
// run any program but git.
package gitx

import (
	"strings"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Cmd is one git invocation. Its fields are unexported so that a Cmd can only
// come from a builder below, which has checked every value; Runner.Run refuses
// the zero Cmd. It always runs as `git -C <dir> <args...>` so that the
// process's working directory never decides which repository is touched.
type Cmd struct {
	dir  string
	args []string
	read bool // read-only: run with GIT_OPTIONAL_LOCKS=0 so it never takes index.lock
	// env is extra environment for this one command (e.g. GIT_INDEX_FILE for a
	// snapshot's temporary index). It is set only by builders and wins over
	// everything else, including Runner.Env and the repository variables the
	// Runner drops from the inherited environment.
	env []string
	// limit overrides Runner.OutputLimit for commands whose legitimate output can be
	// large (a safety status listing every ignored file, a worktree list with long lock
	// reasons); 0 keeps the runner's cap.
	limit int64
	// keep, when set, filters stdout record by record (records end in NUL) before the
	// cap applies, so a command whose full output is huge but whose interesting part is
	// small (ls-files of a big index) never buffers the rest.
	keep func(record []byte) bool
	// untracked is the status's use of git's untracked cache (status builders only).
	untracked UntrackedCache
	// gentle stops git with SIGTERM, on a timeout or cancel and if copse dies, instead of
	// SIGKILL, as every command that is not a read is stopped: git removes its lock files
	// on SIGTERM, and a command copse runs for its own benefit (the refresh of an index,
	// run as a read) must never leave index.lock behind for the user's next git command to
	// trip over. SIGKILL follows after waitDelay if git lingers.
	gentle bool
	// stdin, when not nil, is what git reads on its standard input (a batch of merges for
	// merge-tree --stdin, hash-object --stdin, mktree, cat-file --batch); nil gives /dev/null.
	stdin []byte
}

// UntrackedCache is how a git status uses the untracked cache (core.untrackedCache): a
// record in the index of every directory's untracked files, trusted for as long as the
// directory's stat data is unchanged. It spares a status most of its untracked scan, but
// where a filesystem does not move a directory's mtime when an entry is added, it hides
// the new file; and git honours a cache found in the index even when the setting is unset.
type UntrackedCache uint8

const (
	// UntrackedCacheAsConfigured passes no setting: git does what the repository's config
	// (or its default, "keep") says.
	UntrackedCacheAsConfigured UntrackedCache = iota
	// UntrackedCacheOn runs git with -c core.untrackedCache=true: a display status, where
	// the repository does not set it.
	UntrackedCacheOn
	// UntrackedCacheOff runs git with -c core.untrackedCache=false: the cache is not
	// read, so no record in the index can hide an untracked file. Every status copse
	// decides on runs so (and read-only, so it never writes the index without the cache).
	UntrackedCacheOff
)

func (u UntrackedCache) String() string {
	switch u {
	case UntrackedCacheOn:
		return "on"
	case UntrackedCacheOff:
		return "off"
	}
	return "as-configured"
}

// option is the -c setting for u, or nil.
func (u UntrackedCache) option() []string {
	switch u {
	case UntrackedCacheOn:
		return []string{"-c", "core.untrackedCache=true"}
	case UntrackedCacheOff:
		return []string{"-c", "core.untrackedCache=false"}
	}
	return nil
}

// Env returns the extra environment entries this command runs with (dry runs show them).
func (c Cmd) Env() []string { return append([]string(nil), c.env...) }

// worktreeListLimit caps `git worktree list`: each lock reason is printed in full, and
// a repository whose worktrees were locked with long reasons (megabytes in all) must
// still list.
const worktreeListLimit = 64 << 20

// Argv returns exactly what is executed, starting with "git" (Runner.Bin
// replaces only the program that is started, not this display name).
func (c Cmd) Argv() []string {
	opt := c.untracked.option()
	argv := make([]string, 0, 3+len(opt)+len(c.args))
	argv = append(argv, "git", "-C", c.dir)
	argv = append(argv, opt...)
	return append(argv, c.args...)
}

// String is the command for humans (--dry-run output): each argument is
// shell-quoted only when needed, and control characters are escaped so a
// value can never start a new line of output.
func (c Cmd) String() string {
	if len(c.env) == 0 {
		return textsafe.ShellJoin(c.Argv())
	}
	// Shown as a shell would read it: NAME=value git -C … (values quoted).
	parts := make([]string, 0, len(c.env)+1)
	for _, kv := range c.env {
		name, value, _ := strings.Cut(kv, "=")
		parts = append(parts, name+"="+textsafe.ShellQuote(value))
	}
	return strings.Join(parts, " ") + " " + textsafe.ShellJoin(c.Argv())
}

// Name is the git command without its options and operands, for messages:
// "git worktree add", "git status".
func (c Cmd) Name() string { return commandName(c.Argv()) }

// commandName is "git" and the command after -C DIR, with its subcommand for the commands
// that have one ("git worktree add"). Operands are never included: they may be paths or
// branch names a message would have to escape.
func commandName(argv []string) string {
	// Settings for this one run (-c key=value) come before the command.
	for len(argv) >= 5 && argv[3] == "-c" {
		argv = append(argv[:3:3], argv[5:]...)
	}
	if len(argv) < 4 {
		return "git"
	}
	name := "git " + argv[3]
	switch argv[3] {
	case "worktree", "remote", "stash", "submodule", "notes":
		if len(argv) > 4 && argv[4] != "" && argv[4][0] != '-' {
			name += " " + argv[4]
		}
	}
	return name
}

// ReadOnly reports whether the command only reads repository state.
func (c Cmd) ReadOnly() bool { return c.read }

// WorktreeList lists every worktree; -z makes each attribute NUL-terminated so
// a path containing a newline cannot forge a record.
func WorktreeList(dir string) (Cmd, error) {
	if err := check("worktree list", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "list", "--porcelain", "-z"}, read: true, limit: worktreeListLimit}, nil
}

// WorktreeAddNew creates branch at baseOID and checks it out at path. The base
// must be a full object id (resolved earlier), so a ref moving between the
// check and the mutation cannot change what is checked out.
func WorktreeAddNew(dir, path, branch, baseOID string) (Cmd, error) {
	if err := check("worktree add", checkDir(dir), checkPath("path", path),
		checkBranch("branch", branch), checkOID("base", baseOID)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "add", "-b", branch, "--", path, baseOID}}, nil
}

// WorktreeAddExisting checks out an existing local branch at path. If no local
// branch of that name exists, git may instead create one from a uniquely named
// remote-tracking branch, so callers check LocalBranchExists first.
func WorktreeAddExisting(dir, path, branch string) (Cmd, error) {
	if err := check("worktree add", checkDir(dir), checkPath("path", path),
		checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "add", "--", path, branch}}, nil
}

// WorktreeRemove removes the worktree at path. git wants --force twice to
// remove a locked worktree, so locked only matters together with force.
func WorktreeRemove(dir, path string, force, locked bool) (Cmd, error) {
	if err := check("worktree remove", checkDir(dir), checkPath("path", path)); err != nil {
		return Cmd{}, err
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
		if locked {
			args = append(args, "--force")
		}
	}
	return Cmd{dir: dir, args: append(args, "--", path)}, nil
}

// StatusCmd reads the status of the worktree at dir in a stable machine format, for a
// decision: the untracked cache is off.
func StatusCmd(dir string) (Cmd, error) {
	return DisplayStatusCmd(dir, UntrackedCacheOff)
}

// DisplayStatusCmd is StatusCmd for a listing, which may use the untracked cache as
// untracked says. The arguments are the same, so the untracked cache a refresh writes
// (RefreshStat, for the same untracked-files mode) is the one this status reads.
func DisplayStatusCmd(dir string, untracked UntrackedCache) (Cmd, error) {
	if err := check("status", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"status", "--porcelain=v2", "--branch", "-z"}, read: true, untracked: untracked}, nil
}

// CheckRefFormatBranch validates name as a branch and prints the name git
// resolves it to (@{-1} becomes the real branch). check-ref-format parses its
// arguments by hand and rejects "--end-of-options" (exit 129 on git 2.39), so
// the leading-'-' check here is what keeps name from being read as an option.
func CheckRefFormatBranch(dir, name string) (Cmd, error) {
	if err := check("check-ref-format", checkDir(dir), checkRef("branch", name)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"check-ref-format", "--branch", name}, read: true}, nil
}

// RevParseCommit resolves ref to the full id of a commit (tags are peeled).
func RevParseCommit(dir, ref string) (Cmd, error) {
	if err := check("rev-parse", checkDir(dir), checkRef("ref", ref)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-parse", "--verify", "--end-of-options", ref + "^{commit}"}, read: true}, nil
}

// RevParseCommonDir prints the absolute common git directory. It works in a bare
// repository too, and one path on one line survives a newline inside it (rev-parse has no
// -z, so asking for several paths at once would be ambiguous).
func RevParseCommonDir(dir string) (Cmd, error) {
	if err := check("rev-parse", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-parse", "--path-format=absolute", "--git-common-dir"}, read: true}, nil
}

// ConfigGet reads one config value; git exits 1 with no output when it is unset.
func ConfigGet(dir, key string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkConfigKey(key)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--get", "--end-of-options", key}, read: true}, nil
}

// LocalBranchExists exits 0 when refs/heads/<branch> exists and 1 when not.
// The full ref name keeps a tag or remote of the same name from matching.
func LocalBranchExists(dir, branch string) (Cmd, error) {
	if err := check("show-ref", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"show-ref", "--verify", "--quiet", "--", "refs/heads/" + branch}, read: true}, nil
}

// LocalBranches prints every local branch name, one per line. It uses
// lstrip=2 rather than refname:short because :short prints "heads/x" when a
// tag x also exists, which is not the branch's name.
func LocalBranches(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"}, read: true}, nil
}

// BranchDelete deletes a local branch; -d refuses an unmerged one, -D does not.
func BranchDelete(dir, branch string, force bool) (Cmd, error) {
	if err := check("branch", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	flag := "-d"
	if force {
		flag = "-D"
	}
	return Cmd{dir: dir, args: []string{"branch", flag, "--", branch}}, nil
}

// IsAncestor exits 0 when ancestor is an ancestor of descendant, 1 when not.
func IsAncestor(dir, ancestor, descendant string) (Cmd, error) {
	if err := check("merge-base", checkDir(dir), checkRef("ancestor", ancestor),
		checkRef("descendant", descendant)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"merge-base", "--is-ancestor", "--end-of-options", ancestor, descendant}, read: true}, nil
}

// UniqueCommitCount counts commits reachable from the branch but from no other
// local branch and no remote-tracking branch: the work lost by deleting it.
//
// The --exclude pattern is the bare branch name on purpose: with --branches,
// git matches exclusions against names with refs/heads/ already stripped
// (documented in git-rev-list(1)), so "--exclude=refs/heads/x" excludes
// nothing and the count would always be 0. Branch names cannot contain glob
// characters (* ? [ \), which checkBranch enforces, so the pattern matches only
// this branch. The positional ref is prefixed with refs/heads/, so it can
// never be read as an option.
func UniqueCommitCount(dir, branch string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--count", "refs/heads/" + branch,
		"--not", "--exclude=" + branch, "--branches", "--remotes"}, read: true}, nil
}

// UniqueNonMergeCommits lists the non-merge commits reachable from tip (branch's resolved
// tip) but from no other local branch and no remote-tracking branch (the --exclude pattern
// is the bare name, as in UniqueCommitCount) that change something: the pathspec drops
// empty commits, whose patch id --cherry-pick finds equal to any other empty commit's, so
// an empty commit is never taken for a copy.
func UniqueNonMergeCommits(dir, branch, tip string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkBranch("branch", branch), checkOID("tip", tip)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--no-merges", tip,
		"--not", "--exclude=" + branch, "--branches", "--remotes", "--", ":(top)"}, read: true}, nil
}

// BranchAndRemoteTipsCmd lists every local branch and remote-tracking ref as
// "<oid> <refname>" lines (for-each-ref's --exclude is newer than the git copse supports,
// so callers drop what they do not want).
func BranchAndRemoteTipsCmd(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(objectname) %(refname)",
		"refs/heads/", "refs/remotes/"}, read: true}, nil
}
