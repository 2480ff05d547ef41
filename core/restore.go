package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// Undo of a forced remove. Before copse deletes anything git does not hold (a forced
// remove, a remove that deletes a branch, later a prune), it records the worktree as
// commits under refs/copse/removed/<id>. Here copse decides what a record holds and
// whether the worktree can be recorded at all; gitx.RecordWorktree writes it (the
// recipe: trees of the working files and the index, the index commit, the record commit
// with HEAD, the branch tip and the kept commits as parents, the create-only ref), and
// removed_records.go keeps the records (their message, listing and drops).
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
	meta                                 *WorktreeMeta
}

// RemovedListing is the reply to `restore --list`: newest first.
type RemovedListing struct {
	Removed  []RemovedEntry `json:"removed"`
	Keep     string         `json:"keep"` // copse.keepRemoved as people write it ("14d", "36h", "never"): how long entries are kept
	Warnings []string       `json:"warnings,omitempty"`
}

const (
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
			msg = firstLine(ge.Stderr)
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
	l := s.losses(ctx, t)
	if l.Status.Error != "" {
		return nil, errors.New("cannot read what it holds: " + l.Status.Error)
	}
	if e := ruleRecordable(t, l); e != nil {
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
	return l.keep, nil
}

// keepRemoved reads copse.keepRemoved: how long records are kept (default 14 days).
// Accepted: "<n>d", "<n>w", a Go duration ("36h"), at most 100 years, or "never".
func (s *Env) keepRemoved(ctx context.Context) (time.Duration, error) {
	return s.keepFor(ctx, keepRemovedKey)
}

// keepFor reads a retention setting (copse.keepRemoved, copse.keepLands): default 14 days.
func (s *Env) keepFor(ctx context.Context, key string) (time.Duration, error) {
	v, ok, err := s.Git.ConfigValue(ctx, s.Root(), key)
	if err != nil {
		return 0, GitFailure(CodeConfigFailed, err, "cannot read git config "+key)
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

func (s *Env) restoreList(ctx context.Context) (*Outcome, error) {
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
func (s *Env) findRemoved(ctx context.Context, raw *string) (RemovedEntry, error) {
	entries, _, err := s.removedEntries(ctx)
	if err != nil {
		return RemovedEntry{}, err
	}
	if raw == nil {
		if len(entries) == 0 {
			return RemovedEntry{}, Refused(CodeNothingToRestore, "`copse restore --list` shows what can be restored",
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
		return RemovedEntry{}, Refused(CodeNoSuchRemoved, "`copse restore --list` shows what can be restored",
			"no removed worktree has id %s", Quote(id))
	case 1:
		return found[0], nil
	}
	return RemovedEntry{}, Usage(CodeAmbiguousID, "id", "give more characters of the id (`copse restore --list`)",
		"id %s matches %d removed worktrees", Quote(id), len(found))
}

// checkID accepts a restore id or a prefix of one: 4 to 64 characters of 0-9a-f.
func checkID(id string) error {
	if err := CheckText("id", id, 64); err != nil {
		return err
	}
	if len(id) < 4 || strings.Trim(id, "0123456789abcdef") != "" {
		return Usage(CodeInvalidID, "id", "`copse restore --list` shows the ids",
			"id %s is not a restore id (at least 4 characters of 0-9a-f)", Quote(id))
	}
	return nil
}

func (s *Env) prepareRestore(ctx context.Context, r RestoreRequest, snap Snapshot) (*Plan, error) {
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
			return nil, Usage(CodeListWithID, "list", "pass either list or an id (and path), not both",
				"list shows every removed worktree; it takes no id or path")
		}
		return &Plan{Request: r, Cmd: restoreListCmd{}}, nil
	}
	e, err := s.findRemoved(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if e := ruleRecordedHead(e); e != nil {
		return nil, e
	}
	c := &restoreCmd{entry: e, cwd: s.Root(), path: path}
	if c.path, err = s.restorePlace(ctx, snap, e, r.Path != nil, path); err != nil {
		return nil, err
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
	cmds, err := restoreCommands(c)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, recordWarnings(e)...)
	warnings = append(warnings, s.copiesNotRestored(ctx, c.path.s)...)
	p := &Plan{Request: r, Cmd: c, Warnings: warnings, Commands: cmds}
	// Restoring only adds a worktree; it asks when the place was chosen by the caller
	// or is an existing (empty) directory, as create does.
	if into := Exists(c.path.s); r.Path != nil || into {
		p.Confirm = restoreConfirmation(c, into, warnings)
	}
	return p, nil
}

// restorePlace is where the worktree comes back: the path asked for (chosen), or where it
// was, each checked as a new worktree's place.
func (s *Env) restorePlace(ctx context.Context, snap Snapshot, e RemovedEntry, chosen bool, path AbsPath) (AbsPath, error) {
	if chosen {
		return path, s.CheckNewPath(ctx, snap, path)
	}
	// git's own record of where the worktree was: absolute and clean (parseEntry), and
	// like every path git lists it may hold a newline, which a typed path may not.
	path = AbsPath{e.Path}
	if err := s.CheckNewPath(ctx, snap, path); err != nil {
		ce := AsError(err)
		return path, &Error{Kind: KindRefused, Code: CodeOriginalPathTaken, Err: err, Field: "path",
			Message: "cannot restore to " + Escape(e.Path) + ", where it was: " + ce.Message,
			Hint:    "restore it elsewhere: `copse restore " + e.ID + " --path /abs/new/path`"}
	}
	return path, nil
}

// restoreCommands are the git commands a restore runs, for the plan.
func restoreCommands(c *restoreCmd) ([]string, error) {
	e := c.entry
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.s, c.mode, c.branch, e.Head)
	if err != nil {
		return nil, BuilderErr(err)
	}
	files, err := gitx.ReadTreeCheckout(c.path.s, e.worktreeTree)
	if err != nil {
		return nil, BuilderErr(err)
	}
	index, err := gitx.ReadTreeIndex(c.path.s, e.indexTree)
	if err != nil {
		return nil, BuilderErr(err)
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err != nil {
		return nil, BuilderErr(err)
	}
	cmds := []string{add.String(), files.String(), index.String()}
	if c.recreate != "" {
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err != nil {
			return nil, BuilderErr(err)
		}
		cmds = append(cmds, branch.String())
	}
	return append(cmds, drop.String()), nil
}

// copiesNotRestored says that a restore brings back no ignored file, so none of the files
// copse.copy and .worktreeinclude copy into a new worktree (.env and the like are ignored
// files): the record never held them, and copse setup copies them again. Nothing when the
// repository copies nothing; a config that cannot be read says nothing here (create and
// setup report it).
func (s *Env) copiesNotRestored(ctx context.Context, path string) []string {
	cfg, err := s.setupConfig(ctx)
	if err != nil || (len(cfg.Copy) == 0 && len(cfg.Include) == 0) {
		return nil
	}
	return []string{"ignored files are not restored, so the files copse.copy and " + IncludeFile +
		" copied into it are not back: copy them again with `copse setup " + QuoteDisplay(path) + "` (it runs the setup steps too)"}
}

// recordWarnings are what the record itself says will not come back as it was.
func recordWarnings(e RemovedEntry) []string {
	var warnings []string
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
	return warnings
}

// restoreConfirmation asks before a restore to a chosen place or into an existing empty
// directory (into).
func restoreConfirmation(c *restoreCmd, into bool, warnings []string) *Confirmation {
	e := c.entry
	conf := &Confirmation{Title: "Restore this removed worktree?"}
	conf.Add("id", e.ID)
	conf.Add("path", c.path.s)
	switch c.mode {
	case gitx.AddDetached:
		conf.Add("head", "detached at "+Short(e.Head))
	case gitx.AddNewBranch:
		conf.Add("branch", e.Branch+" (recreated)")
	default:
		conf.Add("branch", e.Branch)
	}
	conf.Add("changes", changesText(e))
	if into {
		conf.Warnings = append(conf.Warnings, "restores into the existing empty directory "+Escape(c.path.s))
	}
	conf.Warnings = append(conf.Warnings, warnings...)
	return conf
}

// restoreBranchMode: the recorded branch when it is free (checked out nowhere, and
// either gone, to be recreated at the recorded tip, or still at the recorded HEAD), else
// a detached HEAD, with a warning saying why.
func (s *Env) restoreBranchMode(ctx context.Context, snap Snapshot, e RemovedEntry) (int, string, []string, error) {
	for _, t := range snap.Trees {
		if t.Branch == e.Branch {
			return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s is checked out at %s; restoring detached at %s",
				Escape(e.Branch), Escape(t.Path), Short(e.Head))}, nil
		}
	}
	tip, err := s.Git.ResolveCommit(ctx, s.Root(), "refs/heads/"+e.Branch)
	if _, exited := gitx.ExitCode(err); err != nil && exited {
		if e.BranchTip != "" && e.BranchTip != e.Head {
			return gitx.AddDetached, e.BranchTip, []string{fmt.Sprintf("branch %s was at %s, not at HEAD %s: it is recreated there, and the worktree comes back detached at %s",
				Escape(e.Branch), Short(e.BranchTip), Short(e.Head), Short(e.Head))}, nil
		}
		return gitx.AddNewBranch, "", nil, nil
	}
	if err != nil {
		return 0, "", nil, GitFailure(CodeBranchLookupFailed, err, "cannot read branch "+Escape(e.Branch))
	}
	if tip == e.Head {
		return gitx.AddExistingRef, "", nil, nil
	}
	return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s has moved to %s since it was recorded at %s; restoring detached",
		Escape(e.Branch), Short(tip), Short(e.Head))}, nil
}

func changesText(e RemovedEntry) string {
	if e.DirMissing {
		return "none (the directory was already gone)"
	}
	return plural(e.Files, "file") + " changed, " + plural(int(e.Bytes), "byte")
}

func (s *Env) runRestore(ctx context.Context, c *restoreCmd, before Snapshot, warnings []string) (*Outcome, error) {
	e := c.entry
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.s, c.mode, c.branch, e.Head)
	if err != nil {
		return nil, BuilderErr(err)
	}
	made := MissingParents(c.path.s)
	_, runErr := s.Git.Run(ctx, add)
	t, listed, after, err := s.ReadBackAdded(ctx, c.path.s)
	if err != nil {
		return nil, Uncertain(CodeRestoreUnverified, err, "run `copse list` to see what exists",
			"restore to %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	if runErr != nil {
		nothing := !listed && after.Token == before.Token
		if nothing {
			RemoveIfEmpty(made)
		}
		return nil, restoreAddFailure(e.ID, c.path.s, runErr, nothing)
	}
	if err := restoreMismatch(c, t, listed); err != nil {
		return nil, err
	}
	// The worktree is registered; writing its files back is not cut short by a cancel, so
	// the result is either complete or reported precisely.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.restoreTimeout())
	defer cancel()
	keep := restoreKeepHint(c)
	if err := s.writeBack(wctx, c.path.s, e); err != nil {
		return nil, Uncertain(CodeRestoreIncomplete, err, keep,
			"the worktree %s was added but its recorded files could not all be written back: %s", Escape(c.path.s), Escape(firstLine(err.Error())))
	}
	if err := s.verifyRestored(wctx, c.path.s, e); err != nil {
		return nil, Uncertain(CodeRestoreDiffers, err, keep,
			"the worktree %s was restored but does not match the record: %s", Escape(c.path.s), Escape(firstLine(err.Error())))
	}
	s.RefreshAfterCheckout(c.path.s)
	warnings = s.restoreRest(ctx, wctx, c, t, warnings)
	return &Outcome{Operation: OpRestore, Worktree: s.Row(t, ""), Path: t.Path, Restored: &e, Warnings: warnings}, nil
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

// restoreAddFailure is restore's error for a git worktree add that failed: a failure (or
// a cancel) when nothing changed, else uncertain.
func restoreAddFailure(id, path string, runErr error, nothing bool) error {
	if !nothing {
		return Uncertain(CodeRestoreUncertain, runErr, "run `copse list` and check "+QuoteDisplay(path),
			"restore failed (%s) but the worktree list changed", Escape(firstLine(runErr.Error())))
	}
	if cancelledRun(runErr) {
		return &Error{Kind: KindCancelled, Code: CodeCancelled, Err: runErr,
			Message: "restore of " + id + " cancelled; nothing was restored"}
	}
	return GitFailure(CodeRestoreFailed, runErr, "git could not add the worktree")
}

// restoreKeepHint says how to try again: the record stays until a restore succeeds.
func restoreKeepHint(c *restoreCmd) string {
	id := c.entry.ID
	return "the record " + id + " is kept: move " + QuoteDisplay(c.path.s) + " away, then run `copse restore " + id + "` again"
}

// restoreMismatch is the verdict on the added worktree t as git lists it (listed): not
// listed, at another commit, or not on the branch (or detached) as asked.
func restoreMismatch(c *restoreCmd, t gitx.Worktree, listed bool) error {
	e := c.entry
	switch {
	case !listed:
		return Uncertain(CodeRestoreNotListed, nil, "run `copse list`; do not retry blindly",
			"git reported success but does not list %s", Escape(c.path.s))
	case t.Head != e.Head:
		return Uncertain(CodeRestoreWrongCommit, nil, restoreKeepHint(c),
			"git lists %s at %s, not at %s", Escape(c.path.s), Short(t.Head), Short(e.Head))
	case c.mode == gitx.AddDetached && !t.Detached, c.mode != gitx.AddDetached && t.Branch != c.branch:
		return Uncertain(CodeRestoreWrongBranch, nil, restoreKeepHint(c),
			"git lists %s on %s, not as asked", Escape(c.path.s), Describe(t))
	}
	return nil
}

// restoreRest finishes a restore whose files are back: the branch recreated, the base it
// was created from recorded again, the kept commits given refs, and the record dropped.
// Each that fails is a warning (the record is kept when it still holds something).
func (s *Env) restoreRest(ctx, wctx context.Context, c *restoreCmd, t gitx.Worktree, warnings []string) []string {
	e := c.entry
	if c.recreate != "" {
		// Create-only: a branch of that name made meanwhile is never moved.
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err == nil {
			_, err = s.Git.Run(wctx, branch)
		}
		if err != nil {
			return append(warnings, fmt.Sprintf("branch %s could not be recreated at %s (%s); the record %s is kept",
				Escape(e.Branch), Short(c.recreate), Escape(firstLine(err.Error())), e.ID))
		}
	}
	if e.meta != nil {
		warnings = append(warnings, s.restoreMeta(ctx, e, t)...)
	}
	if err := s.restoreKept(wctx, c.path.s, e); err != nil {
		return append(warnings, "restored, but the commits only the worktree held could not all be given refs ("+
			Escape(firstLine(err.Error()))+"); the record "+e.ID+" is kept and keeps them")
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err == nil {
		_, err = s.Git.Run(wctx, drop)
	}
	if err != nil {
		warnings = append(warnings, "restored, but the record "+e.ID+" could not be deleted: "+Escape(firstLine(err.Error())))
	}
	return warnings
}

// restoreMeta records again the base the worktree was created from (land's default
// --into); a warning when it could not.
func (s *Env) restoreMeta(ctx context.Context, e RemovedEntry, t gitx.Worktree) []string {
	commonDir, err := s.CommonDir(ctx)
	id := ""
	if err == nil {
		if id = IdOf(WorktreeIDs(commonDir), t.Path); id == "" {
			err = os.ErrNotExist
		}
	}
	if err == nil {
		err = WriteWorktreeMeta(commonDir, id, *e.meta)
	}
	if err != nil && e.meta.Base != nil && e.meta.Base.Branch != "" {
		return []string{"restored, but the base " + Escape(e.meta.Base.Branch) + " it was created from could not be recorded again (" +
			Escape(firstLine(err.Error())) + "): land it with --into " + QuoteDisplay(e.meta.Base.Branch)}
	}
	return nil
}

// keptText says where the commits only the removed worktree held come back.
func keptText(e RemovedEntry) string {
	var what []string
	for _, k := range e.Kept {
		what = append(what, k.What+" "+Short(k.Commit))
	}
	return fmt.Sprintf("%s only the worktree held (%s) are kept as %s<n>; its refs/worktree/* refs are put back",
		plural(len(e.Kept), "commit"), sample(what, len(what)), keptRefPrefix+e.ID+"/")
}

// restoreKept gives each commit the record kept a ref of its own before the record goes
// (refs/copse/kept/<id>/<n>, create-only), and puts the worktree's refs/worktree/* refs
// back in the restored worktree. Refs of an operation (refs/bisect, refs/rewritten) are
// not put back: the operation itself did not survive the remove.
func (s *Env) restoreKept(ctx context.Context, dir string, e RemovedEntry) error {
	for i, k := range e.Kept {
		c, err := gitx.UpdateRefCreate(s.Root(), keptRefPrefix+e.ID+"/"+strconv.Itoa(i+1), k.Commit)
		if err != nil {
			return err
		}
		if _, err := s.Git.Run(ctx, c); err != nil {
			return err
		}
		if strings.HasPrefix(k.What, "refs/worktree/") {
			c, err := gitx.UpdateRefCreate(dir, k.What, k.Commit)
			if err != nil {
				return err
			}
			if _, err := s.Git.Run(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Env) restoreTimeout() time.Duration {
	if s.Opts.Timeout > 0 {
		return 4 * s.Opts.Timeout
	}
	return 4 * time.Minute
}

// writeBack writes the recorded working files (a one-tree read-tree onto the empty
// index of a worktree added without checkout), then puts the recorded index back.
func (s *Env) writeBack(ctx context.Context, dir string, e RemovedEntry) error {
	files, err := gitx.ReadTreeCheckout(dir, e.worktreeTree)
	if err != nil {
		return err
	}
	if _, err := s.Git.Run(ctx, files); err != nil {
		return err
	}
	index, err := gitx.ReadTreeIndex(dir, e.indexTree)
	if err != nil {
		return err
	}
	_, err = s.Git.Run(ctx, index)
	return err
}

// verifyRestored records the restored worktree again and compares: the index must give
// the recorded index tree and the working files the recorded worktree tree.
func (s *Env) verifyRestored(ctx context.Context, dir string, e RemovedEntry) error {
	got, err := s.Git.RecordTrees(ctx, s.Root(), dir, e.Head, nil)
	if err != nil {
		return err
	}
	if got.Worktree != e.worktreeTree {
		return fmt.Errorf("working files give tree %s, recorded %s", Short(got.Worktree), Short(e.worktreeTree))
	}
	if got.Index != e.indexTree {
		return fmt.Errorf("index gives tree %s, recorded %s", Short(got.Index), Short(e.indexTree))
	}
	return nil
}
