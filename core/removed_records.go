package core

import (
	"context"
	"encoding/json"
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
func (s *Env) removedEntries(ctx context.Context) ([]RemovedEntry, []string, error) {
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
	return s.dropRemovedBefore(ctx, time.Now(), false)
}

// dropRemovedBefore drops the records expired at now; with dry, it only names them.
func (s *Env) dropRemovedBefore(ctx context.Context, now time.Time, dry bool) ([]string, error) {
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
