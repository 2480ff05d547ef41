package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What a worktree holds besides its files, which git deletes with it: its own HEAD
// reflog (<admin>/logs/HEAD), its per-worktree refs (refs/worktree/*, refs/bisect/*,
// refs/rewritten/*), and the git directories of its submodules (<admin>/modules/…).
// Everything here reads; nothing writes.

// unkeptBatch bounds the commits one rev-list of UnkeptCommits names on its command line
// (far below the kernel's argument limit); more are asked in further batches, so a long
// reflog is read whole, never cut to its newest entries.
const unkeptBatch = 1000

// perWorktreeRefs are the ref namespaces git keeps per worktree and deletes with it.
var perWorktreeRefs = []string{"refs/worktree/", "refs/bisect/", "refs/rewritten/"}

// ReflogCommits reads the commits a HEAD reflog file names (every entry's new and old
// value, newest first, each once, however many). A missing file is no reflog.
func ReflogCommits(logFile string) ([]string, error) {
	b, err := os.ReadFile(logFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gitx: %w", err)
	}
	return ParseReflog(b)
}

// ParseReflog parses a reflog file: "<old> <new> <ident> <time> <tz>\t<message>" per line.
func ParseReflog(b []byte) ([]string, error) {
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gitx: reflog: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.SplitN(string(lines[i]), " ", 3)
		if len(f) != 3 || !isOID(f[0]) || !isOID(f[1]) {
			return nil, fmt.Errorf("gitx: reflog: malformed entry %q", clip(string(lines[i])))
		}
		for _, oid := range []string{f[1], f[0]} {
			if strings.Trim(oid, "0") != "" && !seen[oid] {
				seen[oid] = true
				out = append(out, oid)
			}
		}
	}
	return out, nil
}

// UnkeptCommitsCmd lists the commits reachable from oids but from no branch, tag or
// remote-tracking ref: what nothing outside the worktree keeps.
func UnkeptCommitsCmd(dir string, oids []string) (Cmd, error) {
	return revListNotCmd(dir, oids, "--branches", "--tags", "--remotes")
}

// revListNotCmd lists the commits reachable from oids (at least one) but from none of the
// refs the options after --not name.
func revListNotCmd(dir string, oids []string, not ...string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	if len(oids) == 0 {
		reasons = append(reasons, "no commits")
	}
	for _, o := range oids {
		reasons = append(reasons, checkOID("commit", o))
	}
	if err := check("rev-list", reasons...); err != nil {
		return Cmd{}, err
	}
	args := append([]string{"rev-list", "--ignore-missing"}, oids...)
	args = append(append(args, "--not"), not...)
	return Cmd{dir: dir, args: args, read: true}, nil
}

// UnreferencedCommitsCmd lists the commits reachable from oids but from no ref at all (nor
// HEAD) of the repository at dir: in a submodule whose repository goes with the worktree,
// what only its reflogs still name.
func UnreferencedCommitsCmd(dir string, oids []string) (Cmd, error) {
	return revListNotCmd(dir, oids, "--all")
}

// UnreferencedCommits runs UnreferencedCommitsCmd in batches of unkeptBatch commits.
func (r *Runner) UnreferencedCommits(ctx context.Context, dir string, oids []string) ([]string, error) {
	return r.batchedOIDs(ctx, dir, oids, UnreferencedCommitsCmd)
}

// NewPatchesCmd lists the commits of tip that are not in against and whose change is in
// none of against's own commits either (a rebase or a message-only amend leaves the old
// commits in the reflog, but their changes are kept).
func NewPatchesCmd(dir, against, tip string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkOID("against", against), checkOID("tip", tip)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--cherry-pick", "--right-only", "--no-merges", against + "..." + tip}, read: true}, nil
}

// NewPatchesAgainstCmd is NewPatchesCmd against several commits at once: the commits of
// tip in none of against and whose change none of against's own commits has.
func NewPatchesAgainstCmd(dir string, against []string, tip string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkOID("tip", tip)}
	if len(against) == 0 {
		reasons = append(reasons, "nothing to compare against")
	}
	for _, a := range against {
		reasons = append(reasons, checkOID("against", a))
	}
	if err := check("rev-list", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"rev-list", "--cherry-pick", "--right-only", "--no-merges"}
	for _, a := range against {
		args = append(args, a+"..."+tip)
	}
	return Cmd{dir: dir, args: args, read: true}, nil
}

// UnkeptCommits runs UnkeptCommitsCmd, in batches of unkeptBatch commits.
func (r *Runner) UnkeptCommits(ctx context.Context, dir string, oids []string) ([]string, error) {
	return r.batchedOIDs(ctx, dir, oids, UnkeptCommitsCmd)
}

// batchedOIDs runs build over oids in batches of unkeptBatch: what is reachable from any
// of oids but kept by nothing is the union of each batch's answer (each commit once, in
// the order first printed).
func (r *Runner) batchedOIDs(ctx context.Context, dir string, oids []string, build func(string, []string) (Cmd, error)) ([]string, error) {
	if len(oids) == 0 {
		_, err := build(dir, oids)
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for batch := range slices.Chunk(oids, unkeptBatch) {
		c, err := build(dir, batch)
		if err != nil {
			return nil, err
		}
		got, err := r.oidLines(ctx, c)
		if err != nil {
			return nil, err
		}
		for _, o := range got {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// NewPatches runs NewPatchesCmd.
func (r *Runner) NewPatches(ctx context.Context, dir, against, tip string) ([]string, error) {
	c, err := NewPatchesCmd(dir, against, tip)
	if err != nil {
		return nil, err
	}
	return r.oidLines(ctx, c)
}

func (r *Runner) oidLines(ctx context.Context, c Cmd) ([]string, error) {
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return parseOIDLines(out, c.args[0])
}

func parseOIDLines(out []byte, what string) ([]string, error) {
	var oids []string
	for l := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !isOID(l) {
			return nil, fmt.Errorf("gitx: %s printed %q, not an object id", what, clip(l))
		}
		oids = append(oids, l)
	}
	return oids, nil
}

// HeldRef is one ref with the commit it points at.
type HeldRef struct {
	Name   string // full name
	Commit string
}

// WorktreeRefsCmd lists the per-worktree refs of the worktree at dir (refs/worktree/*,
// refs/bisect/*, refs/rewritten/*): git resolves them in the worktree it runs in.
func WorktreeRefsCmd(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	args := append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, perWorktreeRefs...)
	return Cmd{dir: dir, args: args, read: true}, nil
}

// AdminRefs reads the per-worktree refs (refs/worktree/*, refs/bisect/*, refs/rewritten/*)
// of the worktree whose admin directory is admin, from their files: for a worktree whose
// directory is gone, where no git command can run. git keeps per-worktree refs loose in
// the admin directory (never in packed-refs); symbolic ones point at another ref and hold
// no commit of their own. An admin directory of the reftable format is not read: an error.
func AdminRefs(admin string) ([]HeldRef, error) {
	if _, err := os.Lstat(filepath.Join(admin, "reftable")); err == nil {
		return nil, fmt.Errorf("gitx: %s keeps its refs in a reftable, which copse does not read", admin)
	}
	var refs []HeldRef
	for _, ns := range perWorktreeRefs {
		root := filepath.Join(admin, filepath.FromSlash(ns))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return filepath.SkipAll
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v := strings.TrimRight(string(b), "\n")
			if strings.HasPrefix(v, "ref: ") {
				return nil
			}
			rel, err := filepath.Rel(admin, p)
			if err != nil {
				return err
			}
			if !isOID(v) {
				return fmt.Errorf("%s is not a ref file (%q)", p, clip(v))
			}
			refs = append(refs, HeldRef{Name: filepath.ToSlash(rel), Commit: v})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("gitx: reading the per-worktree refs in %s: %w", admin, err)
		}
	}
	return refs, nil
}

// RepoTipsCmd lists the refs of the repository at dir that hold its own work (branches,
// the stash) for recording it elsewhere. Tags are left out: a tag may name a tree.
func RepoTipsCmd(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/stash"}, read: true}, nil
}

// ParseRefLines parses "<oid> <refname>" lines (for-each-ref as WorktreeRefsCmd asks).
// A tag may name a tree or blob: it is kept as it is, the caller peels what it needs.
func ParseRefLines(out []byte) ([]HeldRef, error) {
	var refs []HeldRef
	for l := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		if l == "" {
			continue
		}
		oid, name, ok := strings.Cut(l, " ")
		if !ok || !isOID(oid) || !strings.HasPrefix(name, "refs/") {
			return nil, fmt.Errorf("gitx: for-each-ref: malformed line %q", clip(l))
		}
		refs = append(refs, HeldRef{Name: name, Commit: oid})
	}
	return refs, nil
}

// WorktreeRefs runs WorktreeRefsCmd.
func (r *Runner) WorktreeRefs(ctx context.Context, dir string) ([]HeldRef, error) {
	c, err := WorktreeRefsCmd(dir)
	return output(ctx, r, c, err, ParseRefLines)
}

// RepoTips runs RepoTipsCmd.
func (r *Runner) RepoTips(ctx context.Context, dir string) ([]HeldRef, error) {
	c, err := RepoTipsCmd(dir)
	return output(ctx, r, c, err, ParseRefLines)
}

// UnpushedCountCmd counts the commits of the repository at dir (a submodule or a nested
// repository) that none of its remote-tracking refs holds: HEAD, branches, tags, stash.
func UnpushedCountCmd(dir string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--count", "--all", "--not", "--remotes"}, read: true}, nil
}

// UnpushedCount runs UnpushedCountCmd.
func (r *Runner) UnpushedCount(ctx context.Context, dir string) (int, error) {
	c, err := UnpushedCountCmd(dir)
	if err != nil {
		return 0, err
	}
	return r.count(ctx, c)
}

// AdminModules lists the submodule repositories a worktree's admin directory keeps under
// modules/ (the git directories of its submodules, and of theirs, inside each one's own
// modules/), as paths below the admin directory: "modules/lib",
// "modules/lib/modules/deep". For a worktree whose directory is gone they are all that is
// left of its submodules, and git deletes them with the admin directory. A git directory
// is a directory holding a HEAD; any other directory is part of a submodule name with a
// slash in it.
func AdminModules(admin string) ([]string, error) {
	var found []string
	if err := adminModules(admin, "modules", 0, &found); err != nil {
		return nil, fmt.Errorf("gitx: reading the submodule repositories in %s: %w", admin, err)
	}
	return found, nil
}

// maxModulesDepth bounds the directories adminModules descends: past it, an error.
const maxModulesDepth = 32

func adminModules(admin, rel string, depth int, found *[]string) error {
	if depth > maxModulesDepth {
		return fmt.Errorf("%s is nested more than %d directories deep", rel, maxModulesDepth)
	}
	entries, err := os.ReadDir(filepath.Join(admin, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no modules/ (of the admin directory, or of a submodule's git directory)
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := rel + "/" + e.Name()
		if _, err := os.Lstat(filepath.Join(admin, filepath.FromSlash(sub), "HEAD")); err == nil {
			*found = append(*found, sub)
			sub += "/modules" // only its own modules/ can hold more; its objects and refs cannot
		}
		if err := adminModules(admin, sub, depth+1, found); err != nil {
			return err
		}
	}
	return nil
}

// ModuleUnkeptCountCmd counts the commits the submodule repository at gitDir holds on no
// remote-tracking ref of its own, its reflogs' included: what is lost when that git
// directory goes. It is for a git directory whose checkout is gone (one AdminModules
// found): its core.worktree names that checkout, which git would fail to enter, so git is
// told the git directory is the work tree too (rev-list reads no work tree).
func ModuleUnkeptCountCmd(gitDir string) (Cmd, error) {
	if err := check("rev-list", checkDir(gitDir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: gitDir, args: []string{"rev-list", "--count", "--all", "--reflog", "--not", "--remotes"}, read: true,
		env: []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + gitDir}}, nil
}

// ModuleUnkeptCount runs ModuleUnkeptCountCmd.
func (r *Runner) ModuleUnkeptCount(ctx context.Context, gitDir string) (int, error) {
	c, err := ModuleUnkeptCountCmd(gitDir)
	if err != nil {
		return 0, err
	}
	return r.count(ctx, c)
}

// IndexChangesCmd lists (NUL-separated paths) the entries of the index file indexFile
// that differ from commit head's tree: for a worktree whose directory is gone, what its
// admin directory's index has staged, read from the main checkout dir without any
// checkout. git treats a missing index file as an empty one, so the caller reads only one
// that exists.
func IndexChangesCmd(dir, indexFile, head string) (Cmd, error) {
	if err := check("diff-index", checkDir(dir), checkPath("index file", indexFile), checkOID("commit", head)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"diff-index", "--cached", "--name-only", "-z", "--no-renames", head, "--"}, read: true,
		env: []string{"GIT_INDEX_FILE=" + indexFile}}, nil
}

// IndexChanges runs IndexChangesCmd and counts the paths.
func (r *Runner) IndexChanges(ctx context.Context, dir, indexFile, head string) (int, error) {
	c, err := IndexChangesCmd(dir, indexFile, head)
	if err != nil {
		return 0, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return 0, err
	}
	return bytes.Count(out, []byte{0}), nil
}

// GitlinksCmd lists the submodules of the worktree at dir: index entries of mode 160000.
// Only those records are kept, so a large index costs no memory.
func GitlinksCmd(dir string) (Cmd, error) {
	if err := check("ls-files", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	keep := func(rec []byte) bool { return bytes.HasPrefix(rec, []byte("160000 ")) }
	return Cmd{dir: dir, args: []string{"ls-files", "-z", "-s", "--full-name", "--", ":/"}, read: true, keep: keep}, nil
}

// ParseGitlinks parses GitlinksCmd's output ("160000 <oid> <stage>\t<path>\0") into
// paths, each once (a conflicted submodule has several stages).
func ParseGitlinks(b []byte) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, errors.New("gitx: ls-files: record is not NUL-terminated")
		}
		rec := string(b[:i])
		b = b[i+1:]
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || path == "" || len(f) != 3 || f[0] != "160000" || !isOID(f[1]) {
			return nil, fmt.Errorf("gitx: ls-files: malformed submodule record %q", clip(rec))
		}
		if !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	return out, nil
}

// Gitlinks runs GitlinksCmd.
func (r *Runner) Gitlinks(ctx context.Context, dir string) ([]string, error) {
	c, err := GitlinksCmd(dir)
	return output(ctx, r, c, err, ParseGitlinks)
}

// FetchObjects copies the commits oids (and what they reach) of the repository at src
// into the repository at dir without writing any ref or FETCH_HEAD: a record then keeps
// them reachable. No tags, no submodules, no hooks of src run (upload-pack runs none).
func FetchObjects(dir, src string, oids []string) (Cmd, error) {
	reasons := []string{checkDir(dir), checkPath("source", src)}
	if len(oids) == 0 {
		reasons = append(reasons, "no commits")
	}
	for _, o := range oids {
		reasons = append(reasons, checkOID("commit", o))
	}
	if err := check("fetch", reasons...); err != nil {
		return Cmd{}, err
	}
	args := []string{"-c", "protocol.file.allow=always", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-gc", "--", src}
	return Cmd{dir: dir, args: append(args, oids...)}, nil
}
