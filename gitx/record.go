package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The recipe that records a worktree as commits (the undo of a forced remove) lives here
// in one verb, RecordWorktree, so core decides only what to record and whether it may:
//
//	record commit: tree = the working files (untracked included, ignored not)
//	  parent 1: HEAD (absent when HEAD was unborn)
//	  parent 2: index commit (tree = the index as it was; HEAD's tree when it had conflicts)
//	  parent 3: the branch tip, when it differs from HEAD
//	  then the commits the caller keeps, each once
//	ref: RemovedRefPrefix + the record commit's first RemovedIDLen hex digits
//
// The worktree's own index is never written: the trees come from copies of it in a
// temporary directory that is removed before the verb returns.

// RemovedIDLen is how many hex digits of the record commit name its ref.
const RemovedIDLen = 12

// WorktreeTrees is what a worktree holds, as trees.
type WorktreeTrees struct {
	Base            string // HEAD's tree; the empty tree when HEAD is unborn
	Worktree        string // the working files, untracked included, ignored and skipped ones not
	Index           string // the index; Base when the index has conflicts (it has no tree then)
	IndexConflicted bool
}

// WorktreeRecord says what RecordWorktree records.
type WorktreeRecord struct {
	Root      string   // the repository the commits and the ref are written in
	Dir       string   // the worktree
	Missing   bool     // the directory is gone: only HEAD and the branch tip are recorded
	Head      string   // HEAD's commit, "" when unborn
	BranchTip string   // the branch's tip, "" for none; a parent when it is not HEAD
	Skip      []string // nested repositories (as Nested prints them): left out of the trees
	Keep      []string // further commits the record keeps as parents
	// IndexMessage is the index commit's message; Message makes the record commit's from
	// what was recorded (its trees and sizes go into the record's metadata).
	IndexMessage string
	Message      func(RecordedWorktree) (string, error)
}

// RecordedWorktree is what RecordWorktree wrote.
type RecordedWorktree struct {
	WorktreeTrees
	IndexCommit string
	Files       int   // paths whose working file or index entry differs from HEAD
	Bytes       int64 // size on disk of the changed working files
	Commit      string
	ID          string // the record's name: its ref is RemovedRefPrefix + ID
}

// RecordWorktree records the worktree w describes as commits under RemovedRefPrefix (see
// the recipe above). The ref is created only if absent, so a record is never replaced.
// An error means no ref was written (objects git wrote stay unreferenced until gc).
func (r *Runner) RecordWorktree(ctx context.Context, w WorktreeRecord) (RecordedWorktree, error) {
	if w.Message == nil {
		return RecordedWorktree{}, &BuildError{Action: "record worktree", Reason: "no message"}
	}
	var rec RecordedWorktree
	if w.Missing {
		base, err := r.headTree(ctx, w.Root, w.Head)
		if err != nil {
			return RecordedWorktree{}, err
		}
		rec.WorktreeTrees = WorktreeTrees{Base: base, Worktree: base, Index: base}
	} else {
		trees, err := r.RecordTrees(ctx, w.Root, w.Dir, w.Head, w.Skip)
		if err != nil {
			return RecordedWorktree{}, err
		}
		rec.WorktreeTrees = trees
		if rec.Files, rec.Bytes, err = r.measure(ctx, w.Root, w.Dir, trees); err != nil {
			return RecordedWorktree{}, err
		}
	}
	var parents []string
	if w.Head != "" {
		parents = append(parents, w.Head)
	}
	ic, err := CommitTree(w.Root, rec.Index, parents, w.IndexMessage)
	if err != nil {
		return RecordedWorktree{}, err
	}
	if rec.IndexCommit, err = r.OutputOID(ctx, ic); err != nil {
		return RecordedWorktree{}, err
	}
	parents = append(parents, rec.IndexCommit)
	if w.BranchTip != "" && w.BranchTip != w.Head {
		parents = append(parents, w.BranchTip)
	}
	for _, k := range w.Keep {
		if !slices.Contains(parents, k) {
			parents = append(parents, k)
		}
	}
	msg, err := w.Message(rec)
	if err != nil {
		return RecordedWorktree{}, err
	}
	sc, err := CommitTree(w.Root, rec.Worktree, parents, msg)
	if err != nil {
		return RecordedWorktree{}, err
	}
	if rec.Commit, err = r.OutputOID(ctx, sc); err != nil {
		return RecordedWorktree{}, err
	}
	rec.ID = rec.Commit[:RemovedIDLen]
	ref, err := UpdateRefCreate(w.Root, RemovedRefPrefix+rec.ID, rec.Commit)
	if err != nil {
		return RecordedWorktree{}, err
	}
	if _, err := r.Run(ctx, ref); err != nil {
		return RecordedWorktree{}, err
	}
	return rec, nil
}

// RecordTrees writes the trees of the working files (untracked included) and of the index
// of the worktree at dir, each from a copy of its index so the real one is never written,
// and HEAD's tree (head "" is unborn: the empty tree) from the repository at root. An
// index with conflicts has no tree: it is recorded as Base, and said so. The paths in
// skip (nested repositories) are left out: git could only record their HEAD commit.
// A restore records the restored worktree again with it to prove the files came back.
func (r *Runner) RecordTrees(ctx context.Context, root, dir, head string, skip []string) (WorktreeTrees, error) {
	tmp, err := os.MkdirTemp("", "copse-snapshot-")
	if err != nil {
		return WorktreeTrees{}, err
	}
	defer os.RemoveAll(tmp)
	t := WorktreeTrees{}
	if t.Base, err = r.treeOf(ctx, root, head, tmp); err != nil {
		return WorktreeTrees{}, err
	}
	wIndex, iIndex := filepath.Join(tmp, "worktree.index"), filepath.Join(tmp, "index")
	if err := r.copyIndex(ctx, dir, wIndex, iIndex); err != nil {
		return WorktreeTrees{}, err
	}
	if err := r.clearFlags(ctx, dir, wIndex); err != nil {
		return WorktreeTrees{}, err
	}
	add, err := AddAllTo(dir, wIndex, skip...)
	if err != nil {
		return WorktreeTrees{}, err
	}
	if _, err := r.Run(ctx, add); err != nil {
		return WorktreeTrees{}, err
	}
	wt, err := WriteTreeFrom(dir, wIndex)
	if err != nil {
		return WorktreeTrees{}, err
	}
	if t.Worktree, err = r.OutputOID(ctx, wt); err != nil {
		return WorktreeTrees{}, err
	}
	it, err := WriteTreeFrom(dir, iIndex)
	if err != nil {
		return WorktreeTrees{}, err
	}
	t.Index, err = r.OutputOID(ctx, it)
	var ge *Error
	if err != nil && errors.As(err, &ge) && ge.Kind == ErrExit && strings.Contains(ge.Stderr, "unmerged") {
		t.Index, t.IndexConflicted = t.Base, true
		return t, nil
	}
	if err != nil {
		return WorktreeTrees{}, err
	}
	return t, nil
}

// headTree is RecordTrees' Base alone, for a worktree whose directory is gone.
func (r *Runner) headTree(ctx context.Context, root, head string) (string, error) {
	tmp, err := os.MkdirTemp("", "copse-snapshot-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	return r.treeOf(ctx, root, head, tmp)
}

// treeOf is the tree of commit, or the empty tree when there is no commit (unborn HEAD):
// write-tree of an index file that does not exist, in tmp.
func (r *Runner) treeOf(ctx context.Context, dir, commit, tmp string) (string, error) {
	if commit == "" {
		c, err := WriteTreeFrom(dir, filepath.Join(tmp, "empty.index"))
		if err != nil {
			return "", err
		}
		return r.OutputOID(ctx, c)
	}
	c, err := RevParseTree(dir, commit)
	if err != nil {
		return "", err
	}
	return r.OutputOID(ctx, c)
}

// clearFlags clears the assume-unchanged and skip-worktree flags in the temporary index:
// git add skips flagged files, so a changed assume-unchanged file, or a skip-worktree file
// that differs or is absent, would otherwise be recorded as the index has it, not as it
// is on disk. The flags themselves are not recorded (a tree has no room for them).
func (r *Runner) clearFlags(ctx context.Context, dir, index string) error {
	flagged, err := r.FlaggedFiles(ctx, dir, index)
	if err != nil {
		return err
	}
	var assumed, skipped []string
	for _, f := range flagged {
		// Every flagged path: a tag "s" is both flags, and clearing an unset one is harmless.
		assumed = append(assumed, f.Path)
		if f.SkipWorktree {
			skipped = append(skipped, f.Path)
		}
	}
	for _, set := range []struct {
		skip  bool
		paths []string
	}{{false, assumed}, {true, skipped}} {
		// In batches: a sparse checkout can flag many thousands of paths.
		for batch := range slices.Chunk(set.paths, 500) {
			c, err := ClearIndexFlag(dir, index, set.skip, batch)
			if err != nil {
				return err
			}
			if _, err := r.Run(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyIndex copies the worktree's index to each of dst. A worktree without an index
// (never checked out) has an empty one: no copy, git reads a missing file as empty.
func (r *Runner) copyIndex(ctx context.Context, dir string, dst ...string) error {
	c, err := IndexPath(dir)
	if err != nil {
		return err
	}
	src, err := r.OutputPath(ctx, c)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, d := range dst {
		if err := os.WriteFile(d, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// measure counts the paths whose working file or index entry differs from HEAD's tree,
// and the bytes of the changed working files still on disk.
func (r *Runner) measure(ctx context.Context, root, dir string, t WorktreeTrees) (int, int64, error) {
	changed, err := r.ChangedPaths(ctx, root, t.Base, t.Worktree)
	if err != nil {
		return 0, 0, err
	}
	var size int64
	for _, p := range changed {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err == nil && !fi.IsDir() {
			size += fi.Size()
		}
	}
	if t.Index != t.Worktree {
		staged, err := r.ChangedPaths(ctx, root, t.Base, t.Index)
		if err != nil {
			return 0, 0, err
		}
		for _, p := range staged {
			if !slices.Contains(changed, p) {
				changed = append(changed, p)
			}
		}
	}
	return len(changed), size, nil
}
