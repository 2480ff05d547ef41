package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Undo of a forced remove. Before copse deletes anything git does not hold (a forced
// remove, a remove that deletes a branch, later a prune), it records the worktree as
// commits under refs/copse/removed/<id>:
//
//	snapshot commit: tree = the working files (untracked included, ignored not)
//	  parent 1: HEAD (absent when HEAD was unborn)
//	  parent 2: index commit (tree = the index as it was; HEAD's tree when it had conflicts)
//	  parent 3: the branch tip, when it differs from HEAD
//	  message: a subject line, then "copse-removed: {json}" (removedMeta)
//
// `copse restore` registers a worktree without checking anything out, writes the
// recorded files with a one-tree read-tree, then puts the recorded index back, and
// proves both by recording the restored worktree again and comparing trees. The ref is
// deleted only after that proof. Everything lives in git: no file outside it.

// RemovedEntry is one recorded worktree (`copse restore --list`, and the record a remove made).
type RemovedEntry struct {
	ID              string    `json:"id"`
	Path            string    `json:"path"`             // where the worktree was
	Branch          string    `json:"branch,omitempty"` // its branch (absent when detached)
	Head            string    `json:"head,omitempty"`   // HEAD then (absent when unborn)
	BranchTip       string    `json:"branch_tip,omitempty"`
	BranchDeleted   bool      `json:"branch_deleted"` // the remove was asked to delete the branch too
	Time            time.Time `json:"time"`           // when it was recorded
	Expires         time.Time `json:"expires,omitzero"`
	Files           int       `json:"files"` // paths that differed from HEAD (working files or index)
	Bytes           int64     `json:"bytes"` // size on disk of the changed working files
	IndexConflicted bool      `json:"index_conflicted,omitempty"`
	DirMissing      bool      `json:"directory_missing,omitempty"` // nothing on disk to record (a prunable worktree)
	NotRecorded     []string  `json:"not_recorded,omitempty"`      // nested repositories: their files are not recorded (their commits are, in Kept)
	// Kept are the commits only the worktree held (its HEAD reflog, per-worktree refs,
	// submodules' and nested repositories' commits on no remote): parents of the record,
	// and after a restore refs under refs/copse/kept/<id>/.
	Kept   []KeptCommit `json:"kept,omitempty"`
	Commit string       `json:"commit"` // the snapshot commit

	worktreeTree, indexTree, indexCommit string
	meta                                 *worktreeMeta
}

// RemovedListing is the reply to `restore --list`: newest first.
type RemovedListing struct {
	Removed  []RemovedEntry `json:"removed"`
	Keep     string         `json:"keep"` // copse.keepRemoved as people write it ("14d", "36h", "never"): how long entries are kept
	Warnings []string       `json:"warnings,omitempty"`
}

// removedMeta is the JSON line in the snapshot commit's message.
type removedMeta struct {
	V               int          `json:"v"`
	Path            string       `json:"path"`
	Branch          string       `json:"branch,omitempty"`
	Head            string       `json:"head,omitempty"`
	BranchTip       string       `json:"branch_tip,omitempty"`
	DeleteBranch    bool         `json:"delete_branch,omitempty"`
	Time            time.Time    `json:"time"`
	Files           int          `json:"files"`
	Bytes           int64        `json:"bytes"`
	WorktreeTree    string       `json:"worktree_tree"`
	IndexTree       string       `json:"index_tree"`
	IndexCommit     string       `json:"index_commit"`
	IndexConflicted bool         `json:"index_conflicted,omitempty"`
	DirMissing      bool         `json:"directory_missing,omitempty"`
	NotRecorded     []string     `json:"not_recorded,omitempty"`
	Kept            []KeptCommit `json:"kept,omitempty"`
	// Meta is the worktree's own metadata (copse.json: its base), which goes with its
	// admin directory; a restore writes it back, so land's default target survives.
	Meta *worktreeMeta `json:"meta,omitempty"`
}

const (
	metaKey        = "copse-removed: "
	idLen          = 12
	defaultKeep    = 14 * 24 * time.Hour
	keepRemovedKey = "copse.keepRemoved"
	keepLandsKey   = "copse.keepLands"
	// keptRefPrefix holds, after a restore, the commits the record kept that only the
	// removed worktree held: refs/copse/kept/<id>/<n>.
	keptRefPrefix = "refs/copse/kept/"
)

// restoreCmd restores one entry; restoreListCmd lists them.
type restoreCmd struct {
	entry  RemovedEntry
	path   AbsPath
	mode   int    // gitx.AddDetached, AddNewBranch or AddExistingRef
	branch string // for AddNewBranch / AddExistingRef
	// recreate is the tip to recreate the deleted branch at when it was not at HEAD (a
	// worktree mid-rebase): the worktree comes back detached, the branch where it was.
	recreate string
	cwd      string
}

type restoreListCmd struct{}

func (restoreCmd) op() Operation     { return OpRestore }
func (restoreListCmd) op() Operation { return OpRestore }

// expectedStateToken lets prepareWith check restore's token like every mutation's.
func (r RestoreRequest) expectedStateToken() *string { return r.ExpectedStateToken }

// snapshotBeforeRemove records what a remove would delete when it would delete anything
// git does not hold: a forced remove of a worktree on disk, or any remove that deletes
// the branch. nil when there is nothing to record.
func (s *service) snapshotBeforeRemove(ctx context.Context, c *removeCmd) (*RemovedEntry, error) {
	onDisk := c.target.Prunable == nil && exists(c.target.Path)
	if !c.deleteBranch && !(c.force && onDisk) {
		return nil, nil
	}
	e, err := s.snapshotForRemoval(ctx, c.target, c.deleteBranch)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// dropSnapshot forgets a record whose remove did not happen (best effort: an entry left
// behind only clutters the list until it expires).
func (s *service) dropSnapshot(ctx context.Context, e *RemovedEntry) {
	if e == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	if c, err := gitx.UpdateRefDelete(s.root(), gitx.RemovedRefPrefix+e.ID, e.Commit); err == nil {
		_, _ = s.git.Run(rctx, c)
	}
}

// snapshotForRemoval records the worktree t (HEAD, index, working files including
// untracked but not ignored ones; the branch tip when deleteBranch) under
// refs/copse/removed/<id>. The caller holds the repository lock. Nothing in the worktree
// changes: the record is made with temporary index files. An error means nothing was
// recorded, and the caller must not delete anything.
func (s *service) snapshotForRemoval(ctx context.Context, t gitx.Worktree, deleteBranch bool) (RemovedEntry, error) {
	e, err := s.recordWorktree(ctx, t, deleteBranch)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && (ce.Kind == KindCancelled || ce.Code == CodeNotRecordable) {
			return RemovedEntry{}, ce
		}
		if errors.Is(err, context.Canceled) || isGitKind(err, gitx.ErrCanceled) {
			return RemovedEntry{}, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: err,
				Message: "cancelled while recording " + Escape(t.Path) + "; nothing was removed"}
		}
		msg := err.Error()
		var ge *gitx.Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
			msg = firstLine(ge.Stderr)
		}
		return RemovedEntry{}, &Error{Kind: KindFailed, Code: CodeSnapshotFailed, Err: err,
			Message: "cannot record what the remove would delete from " + Escape(t.Path) + " (" + Escape(msg) + "); nothing was removed",
			Hint:    "fix the cause, or commit or stash the changes and remove without --force"}
	}
	return e, nil
}

func (s *service) recordWorktree(ctx context.Context, t gitx.Worktree, deleteBranch bool) (RemovedEntry, error) {
	root := s.root()
	now := time.Now().UTC() // full precision: the newest record must sort first
	meta := removedMeta{V: 1, Path: t.Path, Branch: t.Branch, DeleteBranch: deleteBranch, Time: now}
	if cd, err := s.commonDir(ctx); err == nil {
		if m, ok := readWorktreeMeta(cd, idOf(worktreeIDs(cd), t.Path)); ok {
			meta.Meta = &m
		}
	}
	if t.Head != "" && strings.Trim(t.Head, "0") != "" {
		meta.Head = t.Head
	}
	tmp, err := os.MkdirTemp("", "copse-snapshot-")
	if err != nil {
		return RemovedEntry{}, err
	}
	defer os.RemoveAll(tmp)

	base, err := s.treeOf(ctx, root, meta.Head, tmp)
	if err != nil {
		return RemovedEntry{}, err
	}
	if t.Prunable != nil || !exists(t.Path) {
		// The directory is gone: only HEAD and the branch can be recorded.
		meta.DirMissing = true
		meta.WorktreeTree, meta.IndexTree = base, base
	} else {
		nested, err := s.git.Nested(ctx, t.Path)
		if err != nil {
			return RemovedEntry{}, err
		}
		meta.NotRecorded = nested
		if meta.Kept, err = s.keepHeld(ctx, t); err != nil {
			return RemovedEntry{}, err
		}
		if meta.WorktreeTree, meta.IndexTree, meta.IndexConflicted, err = s.recordTrees(ctx, t.Path, tmp, base, nested); err != nil {
			return RemovedEntry{}, err
		}
		if meta.Files, meta.Bytes, err = s.measure(ctx, root, t.Path, base, meta.WorktreeTree, meta.IndexTree); err != nil {
			return RemovedEntry{}, err
		}
	}
	if t.Branch != "" {
		if tip, err := s.git.ResolveCommit(ctx, root, "refs/heads/"+t.Branch); err == nil {
			meta.BranchTip = tip
		} else if _, exited := gitx.ExitCode(err); !exited {
			return RemovedEntry{}, err
		} // exit status: the branch is unborn, there is no tip to keep
	}
	var parents []string
	if meta.Head != "" {
		parents = append(parents, meta.Head)
	}
	ic, err := gitx.CommitTree(root, meta.IndexTree, parents, "copse: index of "+Escape(t.Path))
	if err != nil {
		return RemovedEntry{}, err
	}
	if meta.IndexCommit, err = s.git.OutputOID(ctx, ic); err != nil {
		return RemovedEntry{}, err
	}
	parents = append(parents, meta.IndexCommit)
	if meta.BranchTip != "" && meta.BranchTip != meta.Head {
		parents = append(parents, meta.BranchTip)
	}
	for _, k := range meta.Kept {
		if !slices.Contains(parents, k.Commit) {
			parents = append(parents, k.Commit)
		}
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return RemovedEntry{}, err
	}
	msg := "copse: removed worktree " + Escape(t.Path) + "\n\n" + metaKey + string(js) + "\n"
	sc, err := gitx.CommitTree(root, meta.WorktreeTree, parents, msg)
	if err != nil {
		return RemovedEntry{}, err
	}
	commit, err := s.git.OutputOID(ctx, sc)
	if err != nil {
		return RemovedEntry{}, err
	}
	id := commit[:idLen]
	ref, err := gitx.UpdateRefCreate(root, gitx.RemovedRefPrefix+id, commit)
	if err != nil {
		return RemovedEntry{}, err
	}
	if _, err := s.git.Run(ctx, ref); err != nil {
		return RemovedEntry{}, err
	}
	return entryOf(id, commit, meta), nil
}

// keepHeld finds the commits only t holds (what losses reads: its HEAD reflog, its
// per-worktree refs, its submodules' and nested repositories' commits on no remote) and
// brings the foreign ones into this repository, so the record can keep them all as its
// parents. What a record cannot keep (uncommitted changes inside a submodule or a nested
// repository) is an error: nothing may be removed then.
func (s *service) keepHeld(ctx context.Context, t gitx.Worktree) ([]KeptCommit, error) {
	l := s.losses(ctx, t)
	if l.Status.Error != "" {
		return nil, errors.New("cannot read what it holds: " + l.Status.Error)
	}
	if e := ruleRecordable(t, l); e != nil {
		return nil, e
	}
	for _, r := range append(append([]HeldRepo(nil), l.Submodules...), l.NestedHeld...) {
		if r.Unpushed == 0 || len(r.tips) == 0 {
			continue
		}
		var oids []string
		for _, tip := range r.tips {
			if !slices.Contains(oids, tip.Commit) {
				oids = append(oids, tip.Commit)
			}
		}
		f, err := gitx.FetchObjects(s.root(), r.dir, oids)
		if err != nil {
			return nil, err
		}
		if _, err := s.git.Run(ctx, f); err != nil {
			return nil, err
		}
	}
	return l.keep, nil
}

// treeOf is the tree of commit, or the empty tree when there is no commit (unborn HEAD).
func (s *service) treeOf(ctx context.Context, dir, commit, tmp string) (string, error) {
	if commit == "" {
		c, err := gitx.WriteTreeFrom(dir, filepath.Join(tmp, "empty.index"))
		if err != nil {
			return "", err
		}
		return s.git.OutputOID(ctx, c)
	}
	c, err := gitx.RevParseTree(dir, commit)
	if err != nil {
		return "", err
	}
	return s.git.OutputOID(ctx, c)
}

// recordTrees writes the tree of the working files (untracked included) and of the
// index of the worktree at dir, each from a copy of its index so the real one is never
// written. An index with conflicts has no tree: it is recorded as base, and said so.
// Nested repositories (skip) are left out: git could only record their HEAD commit.
func (s *service) recordTrees(ctx context.Context, dir, tmp, base string, skip []string) (wtree, itree string, conflicted bool, err error) {
	wIndex, iIndex := filepath.Join(tmp, "worktree.index"), filepath.Join(tmp, "index")
	if err := s.copyIndex(ctx, dir, wIndex, iIndex); err != nil {
		return "", "", false, err
	}
	if err := s.clearFlags(ctx, dir, wIndex); err != nil {
		return "", "", false, err
	}
	add, err := gitx.AddAllTo(dir, wIndex, skip...)
	if err != nil {
		return "", "", false, err
	}
	if _, err := s.git.Run(ctx, add); err != nil {
		return "", "", false, err
	}
	wt, err := gitx.WriteTreeFrom(dir, wIndex)
	if err != nil {
		return "", "", false, err
	}
	if wtree, err = s.git.OutputOID(ctx, wt); err != nil {
		return "", "", false, err
	}
	it, err := gitx.WriteTreeFrom(dir, iIndex)
	if err != nil {
		return "", "", false, err
	}
	itree, err = s.git.OutputOID(ctx, it)
	var ge *gitx.Error
	if err != nil && errors.As(err, &ge) && ge.Kind == gitx.ErrExit && strings.Contains(ge.Stderr, "unmerged") {
		return wtree, base, true, nil
	}
	return wtree, itree, false, err
}

// clearFlags clears the assume-unchanged and skip-worktree flags in the temporary index:
// git add skips flagged files, so a changed assume-unchanged file, or a skip-worktree file
// that differs or is absent, would otherwise be recorded as the index has it, not as it
// is on disk. The flags themselves are not recorded (a tree has no room for them).
func (s *service) clearFlags(ctx context.Context, dir, index string) error {
	flagged, err := s.git.FlaggedFiles(ctx, dir, index)
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
			c, err := gitx.ClearIndexFlag(dir, index, set.skip, batch)
			if err != nil {
				return err
			}
			if _, err := s.git.Run(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyIndex copies the worktree's index to each of dst. A worktree without an index
// (never checked out) has an empty one: no copy, git reads a missing file as empty.
func (s *service) copyIndex(ctx context.Context, dir string, dst ...string) error {
	c, err := gitx.IndexPath(dir)
	if err != nil {
		return err
	}
	src, err := s.git.OutputPath(ctx, c)
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

// measure counts the paths whose working file or index entry differs from base, and
// the bytes of the changed working files still on disk.
func (s *service) measure(ctx context.Context, root, dir, base, wtree, itree string) (int, int64, error) {
	changed, err := s.git.ChangedPaths(ctx, root, base, wtree)
	if err != nil {
		return 0, 0, err
	}
	var size int64
	for _, p := range changed {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err == nil && !fi.IsDir() {
			size += fi.Size()
		}
	}
	if itree != wtree {
		staged, err := s.git.ChangedPaths(ctx, root, base, itree)
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

func entryOf(id, commit string, m removedMeta) RemovedEntry {
	return RemovedEntry{ID: id, Path: m.Path, Branch: m.Branch, Head: m.Head, BranchTip: m.BranchTip,
		BranchDeleted: m.DeleteBranch, Time: m.Time, Files: m.Files, Bytes: m.Bytes,
		IndexConflicted: m.IndexConflicted, DirMissing: m.DirMissing, NotRecorded: m.NotRecorded, Kept: m.Kept, Commit: commit,
		worktreeTree: m.WorktreeTree, indexTree: m.IndexTree, indexCommit: m.IndexCommit, meta: m.Meta}
}

// parseEntry reads a record back from its ref and commit message.
func parseEntry(ref gitx.RemovedRef) (RemovedEntry, error) {
	id := strings.TrimPrefix(ref.Name, gitx.RemovedRefPrefix)
	var line string
	for l := range strings.SplitSeq(ref.Message, "\n") {
		if v, ok := strings.CutPrefix(l, metaKey); ok {
			line = v
		}
	}
	if line == "" {
		return RemovedEntry{}, fmt.Errorf("%s has no %q line", ref.Name, strings.TrimSpace(metaKey))
	}
	var m removedMeta
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return RemovedEntry{}, fmt.Errorf("%s: unreadable record: %v", ref.Name, err)
	}
	// A ref anyone could have written: every value is checked as copse would write it.
	if checkID(id) != nil || len(id) != idLen || !strings.HasPrefix(ref.Commit, id) {
		return RemovedEntry{}, fmt.Errorf("%s is not a name copse gives a record", ref.Name)
	}
	oids := []string{m.WorktreeTree, m.IndexTree, m.IndexCommit}
	for _, o := range []string{m.Head, m.BranchTip} {
		if o != "" {
			oids = append(oids, o)
		}
	}
	for _, k := range m.Kept {
		oids = append(oids, k.Commit)
	}
	// The path is git's own record of the worktree and may hold any byte but NUL (a
	// newline included): it is shown escaped, and a restore there goes through ParseAbsPath.
	bad := m.V != 1 || !filepath.IsAbs(m.Path) || filepath.Clean(m.Path) != m.Path || strings.IndexByte(m.Path, 0) >= 0 ||
		(m.Branch != "" && checkText("branch", m.Branch, maxBranch) != nil) || m.Time.IsZero()
	for _, o := range oids {
		if len(o) != len(ref.Commit) || strings.Trim(o, "0123456789abcdef") != "" {
			bad = true
		}
	}
	if bad {
		return RemovedEntry{}, fmt.Errorf("%s: incomplete or malformed record", ref.Name)
	}
	return entryOf(id, ref.Commit, m), nil
}

// removedEntries lists the records, newest first, with the ones that cannot be read as
// warnings (they are never dropped or restored: copse does not guess).
func (s *service) removedEntries(ctx context.Context) ([]RemovedEntry, []string, error) {
	refs, err := s.git.ListRemoved(ctx, s.root())
	if err != nil {
		return nil, nil, gitFailure(CodeListRemovedFailed, err, "cannot list removed worktrees")
	}
	var out []RemovedEntry
	var warnings []string
	for _, r := range refs {
		e, err := parseEntry(r)
		if err != nil {
			warnings = append(warnings, Escape(err.Error()))
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b RemovedEntry) int { return b.Time.Compare(a.Time) })
	return out, warnings, nil
}

// keepRemoved reads copse.keepRemoved: how long records are kept (default 14 days).
// Accepted: "<n>d", "<n>w", a Go duration ("36h"), at most 100 years, or "never".
func (s *service) keepRemoved(ctx context.Context) (time.Duration, error) {
	return s.keepFor(ctx, keepRemovedKey)
}

// keepFor reads a retention setting (copse.keepRemoved, copse.keepLands): default 14 days.
func (s *service) keepFor(ctx context.Context, key string) (time.Duration, error) {
	v, ok, err := s.git.ConfigValue(ctx, s.root(), key)
	if err != nil {
		return 0, gitFailure(CodeConfigFailed, err, "cannot read git config "+key)
	}
	if !ok {
		return defaultKeep, nil
	}
	d, err := parseSpan(v, keepRule)
	if err != nil {
		return 0, spanError(CodeBadConfig, key, v, keepRule, err, "set a duration such as 14d, 2w or 36h, or never: git config "+key+" 14d")
	}
	return d, nil
}

// dropExpiredRemoved deletes the records older than copse.keepRemoved (prune calls it
// under the repository lock) and returns their ids. Each ref is deleted with a
// compare-and-swap on the commit it was read at.
func (s *service) dropExpiredRemoved(ctx context.Context) ([]string, error) {
	return s.dropRemovedBefore(ctx, time.Now(), false)
}

// dropRemovedBefore drops the records expired at now; with dry, it only names them.
func (s *service) dropRemovedBefore(ctx context.Context, now time.Time, dry bool) ([]string, error) {
	keep, err := s.keepRemoved(ctx)
	if err != nil {
		return nil, err
	}
	entries, _, err := s.removedEntries(ctx)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, e := range entries {
		if now.Sub(e.Time) <= keep {
			continue
		}
		if dry {
			dropped = append(dropped, e.ID)
			continue
		}
		c, err := gitx.UpdateRefDelete(s.root(), gitx.RemovedRefPrefix+e.ID, e.Commit)
		if err != nil {
			return dropped, builderErr(err)
		}
		if _, err := s.git.Run(ctx, c); err != nil {
			return dropped, gitFailure(CodeDropRemovedFailed, err, "cannot drop the expired record "+e.ID)
		}
		dropped = append(dropped, e.ID)
	}
	return dropped, nil
}

func (s *service) restoreList(ctx context.Context) (*Outcome, error) {
	keep, err := s.keepRemoved(ctx)
	if err != nil {
		return nil, err
	}
	entries, warnings, err := s.removedEntries(ctx)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if keep != Never {
			entries[i].Expires = entries[i].Time.Add(keep)
		}
	}
	if entries == nil {
		entries = []RemovedEntry{}
	}
	l := &RemovedListing{Removed: entries, Keep: FormatSpan(keep), Warnings: warnings}
	return &Outcome{Operation: OpRestore, RemovedList: l, Warnings: warnings}, nil
}

// findRemoved picks the record named by raw (its id, or a unique prefix of at least 4
// characters), or the newest when raw is nil.
func (s *service) findRemoved(ctx context.Context, raw *string) (RemovedEntry, error) {
	entries, _, err := s.removedEntries(ctx)
	if err != nil {
		return RemovedEntry{}, err
	}
	if raw == nil {
		if len(entries) == 0 {
			return RemovedEntry{}, refused(CodeNothingToRestore, "`copse restore --list` shows what can be restored",
				"no removed worktree is recorded in this repository")
		}
		return entries[0], nil
	}
	id := *raw
	if err := checkID(id); err != nil {
		return RemovedEntry{}, err
	}
	var found []RemovedEntry
	for _, e := range entries {
		if strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return RemovedEntry{}, refused(CodeNoSuchRemoved, "`copse restore --list` shows what can be restored",
			"no removed worktree has id %s", quote(id))
	case 1:
		return found[0], nil
	}
	return RemovedEntry{}, usage(CodeAmbiguousID, "id", "give more characters of the id (`copse restore --list`)",
		"id %s matches %d removed worktrees", quote(id), len(found))
}

// checkID accepts a restore id or a prefix of one: 4 to 64 characters of 0-9a-f.
func checkID(id string) error {
	if err := checkText("id", id, 64); err != nil {
		return err
	}
	if len(id) < 4 || strings.Trim(id, "0123456789abcdef") != "" {
		return usage(CodeInvalidID, "id", "`copse restore --list` shows the ids",
			"id %s is not a restore id (at least 4 characters of 0-9a-f)", quote(id))
	}
	return nil
}

func (s *service) prepareRestore(ctx context.Context, r RestoreRequest, snap snapshot) (*Plan, error) {
	// Every raw value is checked before anything is looked up: bad input is exit 2.
	// (expected_state_token is checked by prepareWith, through expectedStateToken.)
	var path AbsPath
	if r.Path != nil {
		var err error
		if path, err = ParseAbsPath("path", *r.Path); err != nil {
			return nil, err
		}
	}
	if r.ID != nil {
		if err := checkID(*r.ID); err != nil {
			return nil, err
		}
	}
	if r.List {
		if r.ID != nil || r.Path != nil {
			return nil, usage(CodeListWithID, "list", "pass either list or an id (and path), not both",
				"list shows every removed worktree; it takes no id or path")
		}
		return &Plan{Request: r, cmd: restoreListCmd{}}, nil
	}
	e, err := s.findRemoved(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if e := ruleRecordedHead(e); e != nil {
		return nil, e
	}
	c := &restoreCmd{entry: e, cwd: s.root(), path: path}
	if r.Path != nil {
		if err := s.checkNewPath(ctx, snap, c.path); err != nil {
			return nil, err
		}
	} else {
		// git's own record of where the worktree was: absolute and clean (parseEntry), and
		// like every path git lists it may hold a newline, which a typed path may not.
		c.path = AbsPath{e.Path}
		err = s.checkNewPath(ctx, snap, c.path)
		if err != nil {
			ce := AsError(err)
			return nil, &Error{Kind: KindRefused, Code: CodeOriginalPathTaken, Err: err, Field: "path",
				Message: "cannot restore to " + Escape(e.Path) + ", where it was: " + ce.Message,
				Hint:    "restore it elsewhere: `copse restore " + e.ID + " --path /abs/new/path`"}
		}
	}
	var warnings []string
	c.mode = gitx.AddDetached
	if e.Branch != "" {
		c.mode, c.recreate, warnings, err = s.restoreBranchMode(ctx, snap, e)
		if err != nil {
			return nil, err
		}
		c.branch = e.Branch
	}
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.s, c.mode, c.branch, e.Head)
	if err != nil {
		return nil, builderErr(err)
	}
	files, err := gitx.ReadTreeCheckout(c.path.s, e.worktreeTree)
	if err != nil {
		return nil, builderErr(err)
	}
	index, err := gitx.ReadTreeIndex(c.path.s, e.indexTree)
	if err != nil {
		return nil, builderErr(err)
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err != nil {
		return nil, builderErr(err)
	}
	if len(e.NotRecorded) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s could not be recorded and will not come back: %s",
			plural(len(e.NotRecorded), "nested repository"), sample(e.NotRecorded, len(e.NotRecorded))))
	}
	if len(e.Kept) > 0 {
		warnings = append(warnings, keptText(e))
	}
	if e.IndexConflicted {
		warnings = append(warnings, "the index had conflicts when it was recorded; it comes back as HEAD's tree (the files keep their conflict markers)")
	}
	cmds := []string{add.String(), files.String(), index.String()}
	if c.recreate != "" {
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err != nil {
			return nil, builderErr(err)
		}
		cmds = append(cmds, branch.String())
	}
	p := &Plan{Request: r, cmd: c, Warnings: warnings, Commands: append(cmds, drop.String())}
	// Restoring only adds a worktree; it asks when the place was chosen by the caller
	// or is an existing (empty) directory, as create does.
	if r.Path != nil || exists(c.path.s) {
		conf := &Confirmation{Title: "Restore this removed worktree?"}
		conf.add("id", e.ID)
		conf.add("path", c.path.s)
		switch c.mode {
		case gitx.AddDetached:
			conf.add("head", "detached at "+short(e.Head))
		case gitx.AddNewBranch:
			conf.add("branch", e.Branch+" (recreated)")
		default:
			conf.add("branch", e.Branch)
		}
		conf.add("changes", changesText(e))
		if exists(c.path.s) {
			conf.Warnings = append(conf.Warnings, "restores into the existing empty directory "+Escape(c.path.s))
		}
		conf.Warnings = append(conf.Warnings, warnings...)
		p.Confirm = conf
	}
	return p, nil
}

// restoreBranchMode: the recorded branch when it is free (checked out nowhere, and
// either gone, to be recreated at the recorded tip, or still at the recorded HEAD), else
// a detached HEAD, with a warning saying why.
func (s *service) restoreBranchMode(ctx context.Context, snap snapshot, e RemovedEntry) (int, string, []string, error) {
	for _, t := range snap.trees {
		if t.Branch == e.Branch {
			return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s is checked out at %s; restoring detached at %s",
				Escape(e.Branch), Escape(t.Path), short(e.Head))}, nil
		}
	}
	tip, err := s.git.ResolveCommit(ctx, s.root(), "refs/heads/"+e.Branch)
	if _, exited := gitx.ExitCode(err); err != nil && exited {
		if e.BranchTip != "" && e.BranchTip != e.Head {
			return gitx.AddDetached, e.BranchTip, []string{fmt.Sprintf("branch %s was at %s, not at HEAD %s: it is recreated there, and the worktree comes back detached at %s",
				Escape(e.Branch), short(e.BranchTip), short(e.Head), short(e.Head))}, nil
		}
		return gitx.AddNewBranch, "", nil, nil
	}
	if err != nil {
		return 0, "", nil, gitFailure(CodeBranchLookupFailed, err, "cannot read branch "+Escape(e.Branch))
	}
	if tip == e.Head {
		return gitx.AddExistingRef, "", nil, nil
	}
	return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s has moved to %s since it was recorded at %s; restoring detached",
		Escape(e.Branch), short(tip), short(e.Head))}, nil
}

func changesText(e RemovedEntry) string {
	if e.DirMissing {
		return "none (the directory was already gone)"
	}
	return plural(e.Files, "file") + " changed, " + plural(int(e.Bytes), "byte")
}

func (s *service) runRestore(ctx context.Context, c *restoreCmd, before snapshot, warnings []string) (*Outcome, error) {
	e := c.entry
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.s, c.mode, c.branch, e.Head)
	if err != nil {
		return nil, builderErr(err)
	}
	made := missingParents(c.path.s)
	_, runErr := s.git.Run(ctx, add)
	after, err := s.readBack(ctx)
	if err != nil {
		return nil, uncertain(CodeRestoreUnverified, err, "run `copse list` to see what exists",
			"restore to %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	s.learn(after)
	t, listed := find(after, c.path.s)
	if runErr != nil {
		if !listed && after.token == before.token {
			removeIfEmpty(made)
			if errors.Is(runErr, context.Canceled) || isGitKind(runErr, gitx.ErrCanceled) {
				return nil, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr,
					Message: "restore of " + e.ID + " cancelled; nothing was restored"}
			}
			return nil, gitFailure(CodeRestoreFailed, runErr, "git could not add the worktree")
		}
		return nil, uncertain(CodeRestoreUncertain, runErr, "run `copse list` and check "+quoteDisplay(c.path.s),
			"restore failed (%s) but the worktree list changed", Escape(firstLine(runErr.Error())))
	}
	keep := "the record " + e.ID + " is kept: move " + quoteDisplay(c.path.s) + " away, then run `copse restore " + e.ID + "` again"
	switch {
	case !listed:
		return nil, uncertain(CodeRestoreNotListed, nil, "run `copse list`; do not retry blindly",
			"git reported success but does not list %s", Escape(c.path.s))
	case t.Head != e.Head:
		return nil, uncertain(CodeRestoreWrongCommit, nil, keep,
			"git lists %s at %s, not at %s", Escape(c.path.s), short(t.Head), short(e.Head))
	case c.mode == gitx.AddDetached && !t.Detached, c.mode != gitx.AddDetached && t.Branch != c.branch:
		return nil, uncertain(CodeRestoreWrongBranch, nil, keep,
			"git lists %s on %s, not as asked", Escape(c.path.s), describe(t))
	}
	// The worktree is registered; writing its files back is not cut short by a cancel, so
	// the result is either complete or reported precisely.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.restoreTimeout())
	defer cancel()
	if err := s.writeBack(wctx, c.path.s, e); err != nil {
		return nil, uncertain(CodeRestoreIncomplete, err, keep,
			"the worktree %s was added but its recorded files could not all be written back: %s", Escape(c.path.s), Escape(firstLine(err.Error())))
	}
	if err := s.verifyRestored(wctx, c.path.s, e); err != nil {
		return nil, uncertain(CodeRestoreDiffers, err, keep,
			"the worktree %s was restored but does not match the record: %s", Escape(c.path.s), Escape(firstLine(err.Error())))
	}
	s.refreshAfterCheckout(c.path.s)
	if c.recreate != "" {
		// Create-only: a branch of that name made meanwhile is never moved.
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err == nil {
			_, err = s.git.Run(wctx, branch)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("branch %s could not be recreated at %s (%s); the record %s is kept",
				Escape(e.Branch), short(c.recreate), Escape(firstLine(err.Error())), e.ID))
			return &Outcome{Operation: OpRestore, Worktree: s.row(t, ""), Path: t.Path, Restored: &e, Warnings: warnings}, nil
		}
	}
	if e.meta != nil {
		// The base it was created from comes back with it (land's default --into).
		cd, err := s.commonDir(ctx)
		id := ""
		if err == nil {
			if id = idOf(worktreeIDs(cd), t.Path); id == "" {
				err = os.ErrNotExist
			}
		}
		if err == nil {
			err = writeWorktreeMeta(cd, id, *e.meta)
		}
		if err != nil && e.meta.Base != nil && e.meta.Base.Branch != "" {
			warnings = append(warnings, "restored, but the base "+Escape(e.meta.Base.Branch)+" it was created from could not be recorded again ("+
				Escape(firstLine(err.Error()))+"): land it with --into "+quoteDisplay(e.meta.Base.Branch))
		}
	}
	if err := s.restoreKept(wctx, c.path.s, e); err != nil {
		warnings = append(warnings, "restored, but the commits only the worktree held could not all be given refs ("+
			Escape(firstLine(err.Error()))+"); the record "+e.ID+" is kept and keeps them")
		return &Outcome{Operation: OpRestore, Worktree: s.row(t, ""), Path: t.Path, Restored: &e, Warnings: warnings}, nil
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err == nil {
		_, err = s.git.Run(wctx, drop)
	}
	if err != nil {
		warnings = append(warnings, "restored, but the record "+e.ID+" could not be deleted: "+Escape(firstLine(err.Error())))
	}
	return &Outcome{Operation: OpRestore, Worktree: s.row(t, ""), Path: t.Path, Restored: &e, Warnings: warnings}, nil
}

// keptText says where the commits only the removed worktree held come back.
func keptText(e RemovedEntry) string {
	var what []string
	for _, k := range e.Kept {
		what = append(what, k.What+" "+short(k.Commit))
	}
	return fmt.Sprintf("%s only the worktree held (%s) are kept as %s<n>; its refs/worktree/* refs are put back",
		plural(len(e.Kept), "commit"), sample(what, len(what)), keptRefPrefix+e.ID+"/")
}

// restoreKept gives each commit the record kept a ref of its own before the record goes
// (refs/copse/kept/<id>/<n>, create-only), and puts the worktree's refs/worktree/* refs
// back in the restored worktree. Refs of an operation (refs/bisect, refs/rewritten) are
// not put back: the operation itself did not survive the remove.
func (s *service) restoreKept(ctx context.Context, dir string, e RemovedEntry) error {
	for i, k := range e.Kept {
		c, err := gitx.UpdateRefCreate(s.root(), keptRefPrefix+e.ID+"/"+strconv.Itoa(i+1), k.Commit)
		if err != nil {
			return err
		}
		if _, err := s.git.Run(ctx, c); err != nil {
			return err
		}
		if strings.HasPrefix(k.What, "refs/worktree/") {
			c, err := gitx.UpdateRefCreate(dir, k.What, k.Commit)
			if err != nil {
				return err
			}
			if _, err := s.git.Run(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *service) restoreTimeout() time.Duration {
	if s.opts.Timeout > 0 {
		return 4 * s.opts.Timeout
	}
	return 4 * time.Minute
}

// writeBack writes the recorded working files (a one-tree read-tree onto the empty
// index of a worktree added without checkout), then puts the recorded index back.
func (s *service) writeBack(ctx context.Context, dir string, e RemovedEntry) error {
	files, err := gitx.ReadTreeCheckout(dir, e.worktreeTree)
	if err != nil {
		return err
	}
	if _, err := s.git.Run(ctx, files); err != nil {
		return err
	}
	index, err := gitx.ReadTreeIndex(dir, e.indexTree)
	if err != nil {
		return err
	}
	_, err = s.git.Run(ctx, index)
	return err
}

// verifyRestored records the restored worktree again and compares: the index must give
// the recorded index tree and the working files the recorded worktree tree.
func (s *service) verifyRestored(ctx context.Context, dir string, e RemovedEntry) error {
	tmp, err := os.MkdirTemp("", "copse-restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	base, err := s.treeOf(ctx, s.root(), e.Head, tmp)
	if err != nil {
		return err
	}
	wtree, itree, _, err := s.recordTrees(ctx, dir, tmp, base, nil)
	if err != nil {
		return err
	}
	if wtree != e.worktreeTree {
		return fmt.Errorf("working files give tree %s, recorded %s", short(wtree), short(e.worktreeTree))
	}
	if itree != e.indexTree {
		return fmt.Errorf("index gives tree %s, recorded %s", short(itree), short(e.indexTree))
	}
	return nil
}
