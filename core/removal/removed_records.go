package removal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
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
	V               int               `json:"v"`
	Path            string            `json:"path"`
	Branch          string            `json:"branch,omitempty"`
	Head            string            `json:"head,omitempty"`
	BranchTip       string            `json:"branch_tip,omitempty"`
	DeleteBranch    bool              `json:"delete_branch,omitempty"`
	Time            time.Time         `json:"time"`
	Files           int               `json:"files"`
	Bytes           int64             `json:"bytes"`
	WorktreeTree    string            `json:"worktree_tree"`
	IndexTree       string            `json:"index_tree"`
	IndexCommit     string            `json:"index_commit"`
	IndexConflicted bool              `json:"index_conflicted,omitempty"`
	DirMissing      bool              `json:"directory_missing,omitempty"`
	NotRecorded     []string          `json:"not_recorded,omitempty"`
	Kept            []core.KeptCommit `json:"kept,omitempty"`
	// Meta is the worktree's own metadata (copse.json: its base), which goes with its
	// admin directory; a restore writes it back, so land's default target survives.
	Meta *core.WorktreeMeta `json:"meta,omitempty"`
}

// recordMessage is the record commit's message for meta: a subject line naming the
// worktree, then the metadata line parseEntry reads back.
func recordMessage(meta removedMeta) (string, error) {
	js, err := json.Marshal(meta)
	if err != nil {
		return "", err
	}
	return "copse: removed worktree " + core.Escape(meta.Path) + "\n\n" + metaKey + string(js) + "\n", nil
}

func entryOf(id, commit string, m removedMeta) core.RemovedEntry {
	return core.RemovedEntry{ID: id, Path: m.Path, Branch: m.Branch, Head: m.Head, BranchTip: m.BranchTip,
		BranchDeleted: m.DeleteBranch, Time: m.Time, Files: m.Files, Bytes: m.Bytes,
		IndexConflicted: m.IndexConflicted, DirMissing: m.DirMissing, NotRecorded: m.NotRecorded, Kept: m.Kept, Commit: commit,
		WorktreeTree: m.WorktreeTree, IndexTree: m.IndexTree, IndexCommit: m.IndexCommit, Meta: m.Meta}
}

// parseEntry reads a record back from its ref and commit message.
func parseEntry(ref gitx.RemovedRef) (core.RemovedEntry, error) {
	id := strings.TrimPrefix(ref.Name, gitx.RemovedRefPrefix)
	var line string
	for l := range strings.SplitSeq(ref.Message, "\n") {
		if v, ok := strings.CutPrefix(l, metaKey); ok {
			line = v
		}
	}
	if line == "" {
		return core.RemovedEntry{}, fmt.Errorf("%s has no %q line", ref.Name, strings.TrimSpace(metaKey))
	}
	var m removedMeta
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return core.RemovedEntry{}, fmt.Errorf("%s: unreadable record: %v", ref.Name, err)
	}
	// A ref anyone could have written: every value is checked as copse would write it.
	if core.CheckID(id) != nil || len(id) != idLen || !strings.HasPrefix(ref.Commit, id) {
		return core.RemovedEntry{}, fmt.Errorf("%s is not a name copse gives a record", ref.Name)
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
		(m.Branch != "" && core.CheckText("branch", m.Branch, core.MaxBranch) != nil) || m.Time.IsZero()
	for _, o := range oids {
		if len(o) != len(ref.Commit) || strings.Trim(o, "0123456789abcdef") != "" {
			bad = true
		}
	}
	if bad {
		return core.RemovedEntry{}, fmt.Errorf("%s: incomplete or malformed record", ref.Name)
	}
	return entryOf(id, ref.Commit, m), nil
}

// removedEntries lists the records, newest first, with the ones that cannot be read as
// warnings (they are never dropped or restored: copse does not guess).
func RemovedEntries(s *core.Env, ctx context.Context) ([]core.RemovedEntry, []string, error) {
	refs, err := s.Git.ListRemoved(ctx, s.Root())
	if err != nil {
		return nil, nil, core.GitFailure(core.CodeListRemovedFailed, err, "cannot list removed worktrees")
	}
	var out []core.RemovedEntry
	var warnings []string
	for _, r := range refs {
		e, err := parseEntry(r)
		if err != nil {
			warnings = append(warnings, core.Escape(err.Error()))
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b core.RemovedEntry) int { return b.Time.Compare(a.Time) })
	return out, warnings, nil
}

// dropSnapshot forgets a record whose remove did not happen (best effort: an entry left
// behind only clutters the list until it expires).
func dropSnapshot(s *core.Env, ctx context.Context, e *core.RemovedEntry) {
	if e == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), core.ReadBackTimeout)
	defer cancel()
	if c, err := gitx.UpdateRefDelete(s.Root(), gitx.RemovedRefPrefix+e.ID, e.Commit); err == nil {
		_, _ = s.Git.Run(rctx, c)
	}
}

// dropRemovedBefore drops the records expired at now; with dry, it only names them.
func DropRemovedBefore(s *core.Env, ctx context.Context, now time.Time, dry bool) ([]string, error) {
	keep, err := s.KeepRemoved(ctx)
	if err != nil {
		return nil, err
	}
	entries, _, err := RemovedEntries(s, ctx)
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
			return dropped, core.BuilderErr(err)
		}
		if _, err := s.Git.Run(ctx, c); err != nil {
			return dropped, core.GitFailure(core.CodeDropRemovedFailed, err, "cannot drop the expired record "+e.ID)
		}
		dropped = append(dropped, e.ID)
	}
	return dropped, nil
}

// snapshotForRemoval records the worktree t (HEAD, index, working files including
// untracked but not ignored ones; the branch tip when deleteBranch) under
// refs/copse/removed/<id>. The caller holds the repository lock. Nothing in the worktree
// changes: the record is made with temporary index files. An error means nothing was
// recorded, and the caller must not delete anything.
func SnapshotForRemoval(s *core.Env, ctx context.Context, t gitx.Worktree, deleteBranch bool) (core.RemovedEntry, error) {
	e, err := recordWorktree(s, ctx, t, deleteBranch)
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) && (ce.Kind == core.KindCancelled || ce.Code == core.CodeNotRecordable) {
			return core.RemovedEntry{}, ce
		}
		if errors.Is(err, context.Canceled) || core.IsGitKind(err, gitx.ErrCanceled) {
			return core.RemovedEntry{}, &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: err,
				Message: "cancelled while recording " + core.Escape(t.Path) + "; nothing was removed"}
		}
		msg := err.Error()
		var ge *gitx.Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
			msg = core.FirstLine(ge.Stderr)
		}
		return core.RemovedEntry{}, &core.Error{Kind: core.KindFailed, Code: core.CodeSnapshotFailed, Err: err,
			Message: "cannot record what the remove would delete from " + core.Escape(t.Path) + " (" + core.Escape(msg) + "); nothing was removed",
			Hint:    "fix the cause, or commit or stash the changes and remove without --force"}
	}
	return e, nil
}

// recordWorktree decides what the record of t holds (its metadata, the nested
// repositories left out, the commits only it holds, the branch tip) and refuses what
// cannot be recorded (not_recordable); gitx.RecordWorktree writes it.
func recordWorktree(s *core.Env, ctx context.Context, t gitx.Worktree, deleteBranch bool) (core.RemovedEntry, error) {
	root := s.Root()
	now := time.Now().UTC() // full precision: the newest record must sort first
	meta := removedMeta{V: 1, Path: t.Path, Branch: t.Branch, DeleteBranch: deleteBranch, Time: now}
	if commonDir, err := s.CommonDir(ctx); err == nil {
		if m, ok := core.ReadWorktreeMeta(commonDir, core.IdOf(core.WorktreeIDs(commonDir), t.Path)); ok {
			meta.Meta = &m
		}
	}
	if t.Head != "" && strings.Trim(t.Head, "0") != "" {
		meta.Head = t.Head
	}
	// The directory is gone: only HEAD and the branch can be recorded.
	meta.DirMissing = t.Prunable != nil || !core.Exists(t.Path)
	if !meta.DirMissing {
		nested, err := s.Git.Nested(ctx, t.Path)
		if err != nil {
			return core.RemovedEntry{}, err
		}
		meta.NotRecorded = nested
	}
	// A worktree whose directory is gone still has its admin directory (a detached HEAD,
	// the HEAD reflog, refs/worktree/*): those commits are kept too. One that vanished
	// without git knowing cannot be read, so it is not recorded (and not removed).
	var err error
	if meta.Kept, err = keepHeld(s, ctx, t); err != nil {
		return core.RemovedEntry{}, err
	}
	if t.Branch != "" {
		if tip, err := s.Git.ResolveCommit(ctx, root, "refs/heads/"+t.Branch); err == nil {
			meta.BranchTip = tip
		} else if _, exited := gitx.ExitCode(err); !exited {
			return core.RemovedEntry{}, err
		} // exit status: the branch is unborn, there is no tip to keep
	}
	var keep []string
	for _, k := range meta.Kept {
		keep = append(keep, k.Commit)
	}
	rec, err := s.Git.RecordWorktree(ctx, gitx.WorktreeRecord{
		Root: root, Dir: t.Path, Missing: meta.DirMissing, Head: meta.Head, BranchTip: meta.BranchTip,
		Skip: meta.NotRecorded, Keep: keep, IndexMessage: "copse: index of " + core.Escape(t.Path),
		Message: func(rec gitx.RecordedWorktree) (string, error) {
			meta.WorktreeTree, meta.IndexTree, meta.IndexCommit = rec.Worktree, rec.Index, rec.IndexCommit
			meta.IndexConflicted, meta.Files, meta.Bytes = rec.IndexConflicted, rec.Files, rec.Bytes
			return recordMessage(meta)
		},
	})
	if err != nil {
		return core.RemovedEntry{}, err
	}
	return entryOf(rec.ID, rec.Commit, meta), nil
}

// keepHeld finds the commits only t holds (what losses reads: its HEAD reflog, its
// per-worktree refs, its submodules' and nested repositories' commits on no remote) and
// brings the foreign ones into this repository, so the record can keep them all as its
// parents. What a record cannot keep (uncommitted changes inside a submodule or a nested
// repository) is an error: nothing may be removed then.
func keepHeld(s *core.Env, ctx context.Context, t gitx.Worktree) ([]core.KeptCommit, error) {
	l := Losses(s, ctx, t)
	if l.Status.Error != "" {
		return nil, errors.New("cannot read what it holds: " + l.Status.Error)
	}
	if e := core.RuleRecordable(t, l); e != nil {
		return nil, e
	}
	for _, r := range append(append([]core.HeldRepo(nil), l.Submodules...), l.NestedHeld...) {
		if len(r.Tips) == 0 {
			continue
		}
		var oids []string
		for _, tip := range r.Tips {
			if !slices.Contains(oids, tip.Commit) {
				oids = append(oids, tip.Commit)
			}
		}
		f, err := gitx.FetchObjects(s.Root(), r.Dir, oids)
		if err != nil {
			return nil, err
		}
		if _, err := s.Git.Run(ctx, f); err != nil {
			return nil, err
		}
	}
	return l.Keep, nil
}

// ReadBackAdded reads the worktree list back after an add (even if ctx was cancelled),
// and finds the worktree at path in it.
func ReadBackAdded(s *core.Env, ctx context.Context, path string) (gitx.Worktree, bool, core.Snapshot, error) {
	after, err := s.ReadBack(ctx)
	if err != nil {
		return gitx.Worktree{}, false, after, err
	}
	s.Learn(after)
	t, listed := core.Find(after, path)
	return t, listed, after, nil
}
