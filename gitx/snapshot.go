package gitx

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Builders for copse's undo of a forced remove: record a worktree (HEAD, index, working
// files including untracked ones) as commits under a ref, and bring it back.
//
// The record is made with a temporary index (GIT_INDEX_FILE, set per command), so the
// worktree's own index is never written. Commands that turn working files into blobs and
// back run with core.autocrlf=false: the bytes on disk are stored and written back as
// they are, whatever the user's line-ending setting (.gitattributes filters still apply).

// snapshotIdentity is who "commits" a snapshot: copse, not the user, so a missing
// user.name never stops a remove from recording what it deletes, and the record is never
// mistaken for the user's work.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=copse", "GIT_AUTHOR_EMAIL=copse@localhost",
	"GIT_COMMITTER_NAME=copse", "GIT_COMMITTER_EMAIL=copse@localhost",
}

// RemovedRefPrefix holds one ref per recorded worktree; refs/copse is shared by every
// worktree of the repository (only refs/worktree, refs/bisect and refs/rewritten are not).
const RemovedRefPrefix = "refs/copse/removed/"

// IndexPath prints the absolute path of the index file of the worktree at dir.
func IndexPath(dir string) (Cmd, error) {
	if err := check("rev-parse", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-parse", "--path-format=absolute", "--git-path", "index"}, read: true}, nil
}

// AddAllTo stages every change of the worktree at dir, untracked files and deletions
// included (ignored files are not), into indexFile instead of the worktree's index.
// The paths in skip (relative to the worktree's top, as NestedRepositories prints them)
// are left out: git cannot record a nested repository, only point at its commit.
func AddAllTo(dir, indexFile string, skip ...string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkPath("index file", indexFile)}
	for _, p := range skip {
		if p == "" || strings.IndexByte(p, 0) >= 0 || strings.HasPrefix(p, "/") {
			reasons = append(reasons, fmt.Sprintf("skipped path %q is not relative", p))
		}
	}
	if err := check("add", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"-c", "core.autocrlf=false", "add", "--all", "--", ":/"}
	for _, p := range skip {
		// literal: the path is not a pattern, whatever characters it holds.
		args = append(args, ":(top,exclude,literal)"+p)
	}
	return Cmd{dir: dir, args: args, env: []string{"GIT_INDEX_FILE=" + indexFile}}, nil
}

// NestedRepositories lists the untracked, not ignored, directories of the worktree at dir
// that hold a repository of their own: git lists every other untracked file one by one
// and stops only there, printing the directory with a trailing "/". Only those records
// are kept, so a worktree with many untracked files costs no memory.
func NestedRepositories(dir string) (Cmd, error) {
	if err := check("ls-files", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	keep := func(rec []byte) bool { return bytes.HasSuffix(rec, []byte("/")) }
	return Cmd{dir: dir, args: []string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", ":/"},
		read: true, keep: keep, limit: 256 << 20}, nil
}

// ClearIndexFlag clears the assume-unchanged (skipWorktree false) or skip-worktree flag of
// paths in indexFile, so that AddAllTo looks at those files like any other: with a flag
// set, git add skips a file and its changes would not be recorded. (update-index applies
// only one kind of mark per run, hence the choice.)
func ClearIndexFlag(dir, indexFile string, skipWorktree bool, paths []string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkPath("index file", indexFile)}
	if len(paths) == 0 {
		reasons = append(reasons, "no paths")
	}
	for _, p := range paths {
		if p == "" || strings.IndexByte(p, 0) >= 0 || strings.HasPrefix(p, "/") {
			reasons = append(reasons, fmt.Sprintf("path %q is not relative", p))
		}
	}
	if err := check("update-index", reasons...); err != nil {
		return Cmd{}, err
	}
	flag := "--no-assume-unchanged"
	if skipWorktree {
		flag = "--no-skip-worktree"
	}
	args := append([]string{"update-index", flag, "--"}, paths...)
	return Cmd{dir: dir, args: args, env: []string{"GIT_INDEX_FILE=" + indexFile}}, nil
}

// FlaggedFiles runs FlaggedFilesCmd on indexFile (or the worktree's own index when "").
func (r *Runner) FlaggedFiles(ctx context.Context, dir, indexFile string) ([]FlaggedFile, error) {
	c, err := FlaggedFilesCmd(dir)
	if err != nil {
		return nil, err
	}
	if indexFile != "" {
		if why := checkPath("index file", indexFile); why != "" {
			return nil, &BuildError{Action: "ls-files", Reason: why}
		}
		c.env = []string{"GIT_INDEX_FILE=" + indexFile}
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return ParseFlaggedFiles(out)
}

// WriteTreeFrom writes the tree of indexFile and prints its id. It fails (exit 128) when
// the index has unmerged entries.
func WriteTreeFrom(dir, indexFile string) (Cmd, error) {
	if err := check("write-tree", checkDir(dir), checkPath("index file", indexFile)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"write-tree"}, env: []string{"GIT_INDEX_FILE=" + indexFile}}, nil
}

// CommitTree makes a commit of tree with the given parents and message and prints its
// id. It runs no hooks, is never signed (commit.gpgSign would ask for a passphrase), and
// is authored by copse.
func CommitTree(dir, tree string, parents []string, message string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkOID("tree", tree), checkMessage(message)}
	for _, p := range parents {
		reasons = append(reasons, checkOID("parent", p))
	}
	if err := check("commit-tree", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"commit-tree", "--no-gpg-sign"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-m", message, tree)
	return Cmd{dir: dir, args: args, env: snapshotIdentity}, nil
}

// UpdateRefCreate creates ref at oid only if it does not exist yet (compare-and-swap
// against "absent"); ref must be a full name under refs/.
func UpdateRefCreate(dir, ref, oid string) (Cmd, error) {
	if err := check("update-ref", checkDir(dir), checkFullRef(ref), checkOID("new", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-ref", "--no-deref", "--", ref, oid, ""}}, nil
}

// UpdateRefDelete deletes ref only if it still points at old (compare-and-swap).
func UpdateRefDelete(dir, ref, old string) (Cmd, error) {
	if err := check("update-ref", checkDir(dir), checkFullRef(ref), checkOID("old", old)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-ref", "--no-deref", "-d", "--", ref, old}}, nil
}

// RemovedRefs lists the refs under RemovedRefPrefix with their commit and its message.
// Fields end in NUL and each record in NUL and newline: a commit message holds no NUL,
// so records cannot be forged by a message.
func RemovedRefs(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00",
		RemovedRefPrefix}, read: true}, nil
}

// DiffTreeNames lists the paths that differ between two trees (recursively, renames as
// delete plus add), NUL-terminated.
func DiffTreeNames(dir, from, to string) (Cmd, error) {
	if err := check("diff-tree", checkDir(dir), checkOID("from", from), checkOID("to", to)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to}, read: true}, nil
}

// Checkout modes of WorktreeAddNoCheckout.
const (
	AddDetached    = iota // detached HEAD at the commit
	AddNewBranch          // create branch at the commit
	AddExistingRef        // check out the existing branch (which must be at the commit)
)

// WorktreeAddNoCheckout registers a worktree at path without writing any file (and so
// without running the post-checkout hook): a restore writes the recorded files itself.
func WorktreeAddNoCheckout(dir, path string, mode int, branch, oid string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkPath("path", path), checkOID("commit", oid)}
	if mode != AddDetached {
		reasons = append(reasons, checkBranch("branch", branch))
	}
	if err := check("worktree add", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"worktree", "add", "--no-checkout"}
	switch mode {
	case AddDetached:
		args = append(args, "--detach", "--", path, oid)
	case AddNewBranch:
		args = append(args, "-b", branch, "--", path, oid)
	case AddExistingRef:
		args = append(args, "--", path, branch)
	default:
		return Cmd{}, &BuildError{Action: "worktree add", Reason: fmt.Sprintf("unknown mode %d", mode)}
	}
	return Cmd{dir: dir, args: args}, nil
}

// ReadTreeCheckout makes the index and the working files of the worktree at dir those
// of tree, as a checkout would (a one-tree merge: it refuses to overwrite an untracked
// file instead of losing it).
func ReadTreeCheckout(dir, tree string) (Cmd, error) {
	if err := check("read-tree", checkDir(dir), checkOID("tree", tree)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"-c", "core.autocrlf=false", "read-tree", "-m", "-u", tree}}, nil
}

// ReadTreeIndex replaces the index of the worktree at dir by treeish; no file changes.
func ReadTreeIndex(dir, treeish string) (Cmd, error) {
	if err := check("read-tree", checkDir(dir), checkOID("tree", treeish)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"read-tree", treeish}}, nil
}

func checkFullRef(ref string) string {
	if r := checkRef("ref", ref); r != "" {
		return r
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") || strings.ContainsAny(ref, " ~^:?*[\\") {
		return "ref " + fmt.Sprintf("%q", ref) + " is not a full ref name under refs/"
	}
	return ""
}

func checkMessage(m string) string {
	switch {
	case m == "":
		return "message is empty"
	case strings.IndexByte(m, 0) >= 0:
		return "message contains a NUL byte"
	}
	return ""
}

// RemovedRef is one record of RemovedRefs.
type RemovedRef struct {
	Name    string // full ref name
	Commit  string
	Message string
}

// ListRemoved runs RemovedRefs and parses its records.
func (r *Runner) ListRemoved(ctx context.Context, dir string) ([]RemovedRef, error) {
	c, err := RemovedRefs(dir)
	return output(ctx, r, c, err, parseRemovedRefs)
}

func parseRemovedRefs(out []byte) ([]RemovedRef, error) {
	var refs []RemovedRef
	for len(out) > 0 {
		i := bytes.Index(out, []byte("\x00\n"))
		if i < 0 {
			return nil, fmt.Errorf("gitx: for-each-ref: record %q is not terminated", clip(string(out)))
		}
		fields := strings.Split(string(out[:i]), "\x00")
		out = out[i+2:]
		if len(fields) != 3 || !strings.HasPrefix(fields[0], RemovedRefPrefix) || !isOID(fields[1]) {
			return nil, fmt.Errorf("gitx: for-each-ref: malformed record %q", clip(strings.Join(fields, "|")))
		}
		refs = append(refs, RemovedRef{Name: fields[0], Commit: fields[1], Message: fields[2]})
	}
	return refs, nil
}

// OutputOID runs c and returns the one object id it prints (write-tree, commit-tree).
func (r *Runner) OutputOID(ctx context.Context, c Cmd) (string, error) {
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	oid := strings.TrimSuffix(string(out), "\n")
	if !isOID(oid) {
		return "", fmt.Errorf("gitx: %s printed %q, not an object id", clip(c.String()), clip(oid))
	}
	return oid, nil
}

// OutputPath runs c and returns the one absolute path it prints (only git's final
// newline is removed, so a path ending in a newline survives).
func (r *Runner) OutputPath(ctx context.Context, c Cmd) (string, error) {
	out, err := r.Run(ctx, c)
	if err != nil {
		return "", err
	}
	p := strings.TrimSuffix(string(out), "\n")
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("gitx: rev-parse printed %q, not an absolute path", clip(p))
	}
	return p, nil
}

// Nested runs NestedRepositories and returns the directories (with their trailing "/").
func (r *Runner) Nested(ctx context.Context, dir string) ([]string, error) {
	c, err := NestedRepositories(dir)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			dirs = append(dirs, p)
		}
	}
	return dirs, nil
}

// ChangedPaths runs DiffTreeNames and returns the paths.
func (r *Runner) ChangedPaths(ctx context.Context, dir, from, to string) ([]string, error) {
	c, err := DiffTreeNames(dir, from, to)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// RevParseTree resolves oid (a commit or tree) to the full id of its tree.
func RevParseTree(dir, oid string) (Cmd, error) {
	if err := check("rev-parse", checkDir(dir), checkOID("object", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-parse", "--verify", "--end-of-options", oid + "^{tree}"}, read: true}, nil
}
