package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// The store of removed-worktree records: one ref refs/copse/removed/<id> per record
// (gitx.RecordWorktree writes it), whose commit message carries the record's metadata
// (removedMeta) on its "copse-removed: " line. This file is its whole API: the message
// written (recordMessage) and read back (parseEntry), the listing (removedEntries) and
// the drops (dropSnapshot, dropRemovedBefore). Everything lives in git: no file outside it.

const (
	metaKey = "copse-removed: "
	idLen   = gitx.RemovedIDLen
)

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
	Meta *WorktreeMeta `json:"meta,omitempty"`
}

// recordMessage is the record commit's message for meta: a subject line naming the
// worktree, then the metadata line parseEntry reads back.
func recordMessage(meta removedMeta) (string, error) {
	js, err := json.Marshal(meta)
	if err != nil {
		return "", err
	}
	return "copse: removed worktree " + Escape(meta.Path) + "\n\n" + metaKey + string(js) + "\n", nil
}

func entryOf(id, commit string, m removedMeta) RemovedEntry {
	return RemovedEntry{ID: id, Path: m.Path, Branch: m.Branch, Head: m.Head, BranchTip: m.BranchTip,
		BranchDeleted: m.DeleteBranch, Time: m.Time, Files: m.Files, Bytes: m.Bytes,
		IndexConflicted: m.IndexConflicted, DirMissing: m.DirMissing, NotRecorded: m.NotRecorded, Kept: m.Kept, Commit: commit,
		WorktreeTree: m.WorktreeTree, IndexTree: m.IndexTree, indexCommit: m.IndexCommit, Meta: m.Meta}
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
	if CheckID(id) != nil || len(id) != idLen || !strings.HasPrefix(ref.Commit, id) {
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
		(m.Branch != "" && CheckText("branch", m.Branch, MaxBranch) != nil) || m.Time.IsZero()
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
func (s *Env) RemovedEntries(ctx context.Context) ([]RemovedEntry, []string, error) {
	refs, err := s.Git.ListRemoved(ctx, s.Root())
	if err != nil {
		return nil, nil, GitFailure(CodeListRemovedFailed, err, "cannot list removed worktrees")
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

// dropSnapshot forgets a record whose remove did not happen (best effort: an entry left
// behind only clutters the list until it expires).
func (s *Env) dropSnapshot(ctx context.Context, e *RemovedEntry) {
	if e == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
	defer cancel()
	if c, err := gitx.UpdateRefDelete(s.Root(), gitx.RemovedRefPrefix+e.ID, e.Commit); err == nil {
		_, _ = s.Git.Run(rctx, c)
	}
}

// dropExpiredRemoved deletes the records older than copse.keepRemoved (prune calls it
// under the repository lock) and returns their ids. Each ref is deleted with a
// compare-and-swap on the commit it was read at.
func (s *Env) dropExpiredRemoved(ctx context.Context) ([]string, error) {
	return s.DropRemovedBefore(ctx, time.Now(), false)
}

// dropRemovedBefore drops the records expired at now; with dry, it only names them.
func (s *Env) DropRemovedBefore(ctx context.Context, now time.Time, dry bool) ([]string, error) {
	keep, err := s.KeepRemoved(ctx)
	if err != nil {
		return nil, err
	}
	entries, _, err := s.RemovedEntries(ctx)
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
		c, err := gitx.UpdateRefDelete(s.Root(), gitx.RemovedRefPrefix+e.ID, e.Commit)
		if err != nil {
			return dropped, BuilderErr(err)
		}
		if _, err := s.Git.Run(ctx, c); err != nil {
			return dropped, GitFailure(CodeDropRemovedFailed, err, "cannot drop the expired record "+e.ID)
		}
		dropped = append(dropped, e.ID)
	}
	return dropped, nil
}

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

	WorktreeTree, IndexTree, indexCommit string
	Meta                                 *WorktreeMeta
}

// RemovedListing is the reply to `restore --list`: newest first.
type RemovedListing struct {
	Removed  []RemovedEntry `json:"removed"`
	Keep     string         `json:"keep"` // copse.keepRemoved as people write it ("14d", "36h", "never"): how long entries are kept
	Warnings []string       `json:"warnings,omitempty"`
}

// snapshotForRemoval records the worktree t (HEAD, index, working files including
// untracked but not ignored ones; the branch tip when deleteBranch) under
// refs/copse/removed/<id>. The caller holds the repository lock. Nothing in the worktree
// changes: the record is made with temporary index files. An error means nothing was
// recorded, and the caller must not delete anything.
func (s *Env) snapshotForRemoval(ctx context.Context, t gitx.Worktree, deleteBranch bool) (RemovedEntry, error) {
	e, err := s.recordWorktree(ctx, t, deleteBranch)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && (ce.Kind == KindCancelled || ce.Code == CodeNotRecordable) {
			return RemovedEntry{}, ce
		}
		if errors.Is(err, context.Canceled) || IsGitKind(err, gitx.ErrCanceled) {
			return RemovedEntry{}, &Error{Kind: KindCancelled, Code: CodeCancelled, Err: err,
				Message: "cancelled while recording " + Escape(t.Path) + "; nothing was removed"}
		}
		msg := err.Error()
		var ge *gitx.Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
			msg = FirstLine(ge.Stderr)
		}
		return RemovedEntry{}, &Error{Kind: KindFailed, Code: CodeSnapshotFailed, Err: err,
			Message: "cannot record what the remove would delete from " + Escape(t.Path) + " (" + Escape(msg) + "); nothing was removed",
			Hint:    "fix the cause, or commit or stash the changes and remove without --force"}
	}
	return e, nil
}

// recordWorktree decides what the record of t holds (its metadata, the nested
// repositories left out, the commits only it holds, the branch tip) and refuses what
// cannot be recorded (not_recordable); gitx.RecordWorktree writes it.
func (s *Env) recordWorktree(ctx context.Context, t gitx.Worktree, deleteBranch bool) (RemovedEntry, error) {
	root := s.Root()
	now := time.Now().UTC() // full precision: the newest record must sort first
	meta := removedMeta{V: 1, Path: t.Path, Branch: t.Branch, DeleteBranch: deleteBranch, Time: now}
	if commonDir, err := s.CommonDir(ctx); err == nil {
		if m, ok := readWorktreeMeta(commonDir, IdOf(WorktreeIDs(commonDir), t.Path)); ok {
			meta.Meta = &m
		}
	}
	if t.Head != "" && strings.Trim(t.Head, "0") != "" {
		meta.Head = t.Head
	}
	// The directory is gone: only HEAD and the branch can be recorded.
	meta.DirMissing = t.Prunable != nil || !Exists(t.Path)
	if !meta.DirMissing {
		nested, err := s.Git.Nested(ctx, t.Path)
		if err != nil {
			return RemovedEntry{}, err
		}
		meta.NotRecorded = nested
	}
	// A worktree whose directory is gone still has its admin directory (a detached HEAD,
	// the HEAD reflog, refs/worktree/*): those commits are kept too. One that vanished
	// without git knowing cannot be read, so it is not recorded (and not removed).
	var err error
	if meta.Kept, err = s.keepHeld(ctx, t); err != nil {
		return RemovedEntry{}, err
	}
	if t.Branch != "" {
		if tip, err := s.Git.ResolveCommit(ctx, root, "refs/heads/"+t.Branch); err == nil {
			meta.BranchTip = tip
		} else if _, exited := gitx.ExitCode(err); !exited {
			return RemovedEntry{}, err
		} // exit status: the branch is unborn, there is no tip to keep
	}
	var keep []string
	for _, k := range meta.Kept {
		keep = append(keep, k.Commit)
	}
	rec, err := s.Git.RecordWorktree(ctx, gitx.WorktreeRecord{
		Root: root, Dir: t.Path, Missing: meta.DirMissing, Head: meta.Head, BranchTip: meta.BranchTip,
		Skip: meta.NotRecorded, Keep: keep, IndexMessage: "copse: index of " + Escape(t.Path),
		Message: func(rec gitx.RecordedWorktree) (string, error) {
			meta.WorktreeTree, meta.IndexTree, meta.IndexCommit = rec.Worktree, rec.Index, rec.IndexCommit
			meta.IndexConflicted, meta.Files, meta.Bytes = rec.IndexConflicted, rec.Files, rec.Bytes
			return recordMessage(meta)
		},
	})
	if err != nil {
		return RemovedEntry{}, err
	}
	return entryOf(rec.ID, rec.Commit, meta), nil
}

// keepHeld finds the commits only t holds (what losses reads: its HEAD reflog, its
// per-worktree refs, its submodules' and nested repositories' commits on no remote) and
// brings the foreign ones into this repository, so the record can keep them all as its
// parents. What a record cannot keep (uncommitted changes inside a submodule or a nested
// repository) is an error: nothing may be removed then.
func (s *Env) keepHeld(ctx context.Context, t gitx.Worktree) ([]KeptCommit, error) {
	l := s.Losses(ctx, t)
	if l.Status.Error != "" {
		return nil, errors.New("cannot read what it holds: " + l.Status.Error)
	}
	if e := RuleRecordable(t, l); e != nil {
		return nil, e
	}
	for _, r := range append(append([]HeldRepo(nil), l.Submodules...), l.NestedHeld...) {
		if len(r.tips) == 0 {
			continue
		}
		var oids []string
		for _, tip := range r.tips {
			if !slices.Contains(oids, tip.Commit) {
				oids = append(oids, tip.Commit)
			}
		}
		f, err := gitx.FetchObjects(s.Root(), r.dir, oids)
		if err != nil {
			return nil, err
		}
		if _, err := s.Git.Run(ctx, f); err != nil {
			return nil, err
		}
	}
	return l.Keep, nil
}

// keepRemoved reads copse.keepRemoved: how long records are kept (default 14 days).
// Accepted: "<n>d", "<n>w", a Go duration ("36h"), at most 100 years, or "never".
func (s *Env) KeepRemoved(ctx context.Context) (time.Duration, error) {
	return s.KeepFor(ctx, KeepRemovedKey)
}

// keepFor reads a retention setting (copse.keepRemoved, copse.keepLands): default 14 days.
func (s *Env) KeepFor(ctx context.Context, key string) (time.Duration, error) {
	v, ok, err := s.Git.ConfigValue(ctx, s.Root(), key)
	if err != nil {
		return 0, GitFailure(CodeConfigFailed, err, "cannot read git config "+key)
	}
	if !ok {
		return defaultKeep, nil
	}
	d, err := ParseSpan(v, keepRule)
	if err != nil {
		return 0, SpanError(CodeBadConfig, key, v, keepRule, err, "set a duration such as 14d, 2w or 36h, or never: git config "+key+" 14d")
	}
	return d, nil
}

// checkID accepts a restore id or a prefix of one: 4 to 64 characters of 0-9a-f.
func CheckID(id string) error {
	if err := CheckText("id", id, 64); err != nil {
		return err
	}
	if len(id) < 4 || strings.Trim(id, "0123456789abcdef") != "" {
		return Usage(CodeInvalidID, "id", "`copse restore --list` shows the ids",
			"id %s is not a restore id (at least 4 characters of 0-9a-f)", Quote(id))
	}
	return nil
}

// ReadBackAdded reads the worktree list back after an add (even if ctx was cancelled),
// and finds the worktree at path in it.
func (s *Env) ReadBackAdded(ctx context.Context, path string) (gitx.Worktree, bool, Snapshot, error) {
	after, err := s.ReadBack(ctx)
	if err != nil {
		return gitx.Worktree{}, false, after, err
	}
	s.Learn(after)
	t, listed := Find(after, path)
	return t, listed, after, nil
}

const (
	defaultKeep    = 14 * 24 * time.Hour
	KeepRemovedKey = "copse.keepRemoved"
	KeepLandsKey   = "copse.keepLands"
	// keptRefPrefix holds, after a restore, the commits the record kept that only the
	// removed worktree held: refs/copse/kept/<id>/<n>.
	KeptRefPrefix = "refs/copse/kept/"
)
