package remove

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/removal"
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

// restoreCmd restores one entry; restoreListCmd lists them.
type restoreCmd struct {
	entry  core.RemovedEntry
	path   core.AbsPath
	mode   int    // gitx.AddDetached, AddNewBranch or AddExistingRef
	branch string // for AddNewBranch / AddExistingRef
	// recreate is the tip to recreate the deleted branch at when it was not at HEAD (a
	// worktree mid-rebase): the worktree comes back detached, the branch where it was.
	recreate string
	cwd      string
}

type restoreListCmd struct{}

func restoreList(s *core.Env, ctx context.Context) (*core.Outcome, error) {
	keep, err := s.KeepRemoved(ctx)
	if err != nil {
		return nil, err
	}
	entries, warnings, err := removal.RemovedEntries(s, ctx)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if keep != core.Never {
			entries[i].Expires = entries[i].Time.Add(keep)
		}
	}
	if entries == nil {
		entries = []core.RemovedEntry{}
	}
	l := &core.RemovedListing{Removed: entries, Keep: core.FormatSpan(keep), Warnings: warnings}
	return &core.Outcome{Operation: core.OpRestore, RemovedList: l, Warnings: warnings}, nil
}

// findRemoved picks the record named by raw (its id, or a unique prefix of at least 4
// characters), or the newest when raw is nil.
func findRemoved(s *core.Env, ctx context.Context, raw *string) (core.RemovedEntry, error) {
	entries, _, err := removal.RemovedEntries(s, ctx)
	if err != nil {
		return core.RemovedEntry{}, err
	}
	if raw == nil {
		if len(entries) == 0 {
			return core.RemovedEntry{}, core.Refused(core.CodeNothingToRestore, "`copse restore --list` shows what can be restored",
				"no removed worktree is recorded in this repository")
		}
		return entries[0], nil
	}
	id := *raw
	if err := core.CheckID(id); err != nil {
		return core.RemovedEntry{}, err
	}
	var found []core.RemovedEntry
	for _, e := range entries {
		if strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return core.RemovedEntry{}, core.Refused(core.CodeNoSuchRemoved, "`copse restore --list` shows what can be restored",
			"no removed worktree has id %s", core.Quote(id))
	case 1:
		return found[0], nil
	}
	return core.RemovedEntry{}, core.Usage(core.CodeAmbiguousID, "id", "give more characters of the id (`copse restore --list`)",
		"id %s matches %d removed worktrees", core.Quote(id), len(found))
}

func prepareRestore(s *core.Env, ctx context.Context, r core.RestoreRequest, snap core.Snapshot) (*core.Plan, error) {
	// Every raw value is checked before anything is looked up: bad input is exit 2.
	// (expected_state_token is checked by prepareWith, through expectedStateToken.)
	var path core.AbsPath
	if r.Path != nil {
		var err error
		if path, err = core.ParseAbsPath("path", *r.Path); err != nil {
			return nil, err
		}
	}
	if r.ID != nil {
		if err := core.CheckID(*r.ID); err != nil {
			return nil, err
		}
	}
	if r.List {
		if r.ID != nil || r.Path != nil {
			return nil, core.Usage(core.CodeListWithID, "list", "pass either list or an id (and path), not both",
				"list shows every removed worktree; it takes no id or path")
		}
		return &core.Plan{Request: r, Cmd: restoreListCmd{}}, nil
	}
	e, err := findRemoved(s, ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if e := core.RuleRecordedHead(e); e != nil {
		return nil, e
	}
	c := &restoreCmd{entry: e, cwd: s.Root(), path: path}
	if c.path, err = restorePlace(s, ctx, snap, e, r.Path != nil, path); err != nil {
		return nil, err
	}
	var warnings []string
	c.mode = gitx.AddDetached
	if e.Branch != "" {
		c.mode, c.recreate, warnings, err = restoreBranchMode(s, ctx, snap, e)
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
	warnings = append(warnings, copiesNotRestored(s, ctx, c.path.String())...)
	p := &core.Plan{Request: r, Cmd: c, Warnings: warnings, Commands: cmds}
	// Restoring only adds a worktree; it asks when the place was chosen by the caller
	// or is an existing (empty) directory, as create does.
	if into := core.Exists(c.path.String()); r.Path != nil || into {
		p.Confirm = restoreConfirmation(c, into, warnings)
	}
	return p, nil
}

// restorePlace is where the worktree comes back: the path asked for (chosen), or where it
// was, each checked as a new worktree's place.
func restorePlace(s *core.Env, ctx context.Context, snap core.Snapshot, e core.RemovedEntry, chosen bool, path core.AbsPath) (core.AbsPath, error) {
	if chosen {
		return path, s.CheckNewPath(ctx, snap, path)
	}
	// git's own record of where the worktree was: absolute and clean (parseEntry), and
	// like every path git lists it may hold a newline, which a typed path may not.
	path = core.GitsPath(e.Path)
	if err := s.CheckNewPath(ctx, snap, path); err != nil {
		ce := core.AsError(err)
		return path, &core.Error{Kind: core.KindRefused, Code: core.CodeOriginalPathTaken, Err: err, Field: "path",
			Message: "cannot restore to " + core.Escape(e.Path) + ", where it was: " + ce.Message,
			Hint:    "restore it elsewhere: `copse restore " + e.ID + " --path /abs/new/path`"}
	}
	return path, nil
}

// restoreCommands are the git commands a restore runs, for the plan.
func restoreCommands(c *restoreCmd) ([]string, error) {
	e := c.entry
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.String(), c.mode, c.branch, e.Head)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	files, err := gitx.ReadTreeCheckout(c.path.String(), e.WorktreeTree)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	index, err := gitx.ReadTreeIndex(c.path.String(), e.IndexTree)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	cmds := []string{add.String(), files.String(), index.String()}
	if c.recreate != "" {
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err != nil {
			return nil, core.BuilderErr(err)
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
func copiesNotRestored(s *core.Env, ctx context.Context, path string) []string {
	cfg, err := s.SetupConfig(ctx)
	if err != nil || (len(cfg.Copy) == 0 && len(cfg.Include) == 0) {
		return nil
	}
	return []string{"ignored files are not restored, so the files copse.copy and " + core.IncludeFile +
		" copied into it are not back: copy them again with `copse setup " + core.QuoteDisplay(path) + "` (it runs the setup steps too)"}
}

// recordWarnings are what the record itself says will not come back as it was.
func recordWarnings(e core.RemovedEntry) []string {
	var warnings []string
	if len(e.NotRecorded) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s could not be recorded and will not come back: %s",
			core.Plural(len(e.NotRecorded), "nested repository"), core.Sample(e.NotRecorded, len(e.NotRecorded))))
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
func restoreConfirmation(c *restoreCmd, into bool, warnings []string) *core.Confirmation {
	e := c.entry
	conf := &core.Confirmation{Title: "Restore this removed worktree?"}
	conf.Add("id", e.ID)
	conf.Add("path", c.path.String())
	switch c.mode {
	case gitx.AddDetached:
		conf.Add("head", "detached at "+core.Short(e.Head))
	case gitx.AddNewBranch:
		conf.Add("branch", e.Branch+" (recreated)")
	default:
		conf.Add("branch", e.Branch)
	}
	conf.Add("changes", changesText(e))
	if into {
		conf.Warnings = append(conf.Warnings, "restores into the existing empty directory "+core.Escape(c.path.String()))
	}
	conf.Warnings = append(conf.Warnings, warnings...)
	return conf
}

// restoreBranchMode: the recorded branch when it is free (checked out nowhere, and
// either gone, to be recreated at the recorded tip, or still at the recorded HEAD), else
// a detached HEAD, with a warning saying why.
func restoreBranchMode(s *core.Env, ctx context.Context, snap core.Snapshot, e core.RemovedEntry) (int, string, []string, error) {
	for _, t := range snap.Trees {
		if t.Branch == e.Branch {
			return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s is checked out at %s; restoring detached at %s",
				core.Escape(e.Branch), core.Escape(t.Path), core.Short(e.Head))}, nil
		}
	}
	tip, err := s.Git.ResolveCommit(ctx, s.Root(), "refs/heads/"+e.Branch)
	if _, exited := gitx.ExitCode(err); err != nil && exited {
		if e.BranchTip != "" && e.BranchTip != e.Head {
			return gitx.AddDetached, e.BranchTip, []string{fmt.Sprintf("branch %s was at %s, not at HEAD %s: it is recreated there, and the worktree comes back detached at %s",
				core.Escape(e.Branch), core.Short(e.BranchTip), core.Short(e.Head), core.Short(e.Head))}, nil
		}
		return gitx.AddNewBranch, "", nil, nil
	}
	if err != nil {
		return 0, "", nil, core.GitFailure(core.CodeBranchLookupFailed, err, "cannot read branch "+core.Escape(e.Branch))
	}
	if tip == e.Head {
		return gitx.AddExistingRef, "", nil, nil
	}
	return gitx.AddDetached, "", []string{fmt.Sprintf("branch %s has moved to %s since it was recorded at %s; restoring detached",
		core.Escape(e.Branch), core.Short(tip), core.Short(e.Head))}, nil
}

func changesText(e core.RemovedEntry) string {
	if e.DirMissing {
		return "none (the directory was already gone)"
	}
	return core.Plural(e.Files, "file") + " changed, " + core.Plural(int(e.Bytes), "byte")
}

func runRestore(s *core.Env, ctx context.Context, c *restoreCmd, before core.Snapshot, warnings []string) (*core.Outcome, error) {
	e := c.entry
	add, err := gitx.WorktreeAddNoCheckout(c.cwd, c.path.String(), c.mode, c.branch, e.Head)
	if err != nil {
		return nil, core.BuilderErr(err)
	}
	made := core.MissingParents(c.path.String())
	_, runErr := s.Git.Run(ctx, add)
	t, listed, after, err := removal.ReadBackAdded(s, ctx, c.path.String())
	if err != nil {
		return nil, core.Uncertain(core.CodeRestoreUnverified, err, "run `copse list` to see what exists",
			"restore to %s ran, but the worktree list could not be read back", core.Escape(c.path.String()))
	}
	if runErr != nil {
		nothing := !listed && after.Token == before.Token
		if nothing {
			core.RemoveIfEmpty(made)
		}
		return nil, restoreAddFailure(e.ID, c.path.String(), runErr, nothing)
	}
	if err := restoreMismatch(c, t, listed); err != nil {
		return nil, err
	}
	// The worktree is registered; writing its files back is not cut short by a cancel, so
	// the result is either complete or reported precisely.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout(s))
	defer cancel()
	keep := restoreKeepHint(c)
	if err := writeBack(s, wctx, c.path.String(), e); err != nil {
		return nil, core.Uncertain(core.CodeRestoreIncomplete, err, keep,
			"the worktree %s was added but its recorded files could not all be written back: %s", core.Escape(c.path.String()), core.Escape(core.FirstLine(err.Error())))
	}
	if err := verifyRestored(s, wctx, c.path.String(), e); err != nil {
		return nil, core.Uncertain(core.CodeRestoreDiffers, err, keep,
			"the worktree %s was restored but does not match the record: %s", core.Escape(c.path.String()), core.Escape(core.FirstLine(err.Error())))
	}
	s.RefreshAfterCheckout(c.path.String())
	warnings = restoreRest(s, ctx, wctx, c, t, warnings)
	return &core.Outcome{Operation: core.OpRestore, Worktree: s.Row(t, ""), Path: t.Path, Restored: &e, Warnings: warnings}, nil
}

// restoreAddFailure is restore's error for a git worktree add that failed: a failure (or
// a cancel) when nothing changed, else uncertain.
func restoreAddFailure(id, path string, runErr error, nothing bool) error {
	if !nothing {
		return core.Uncertain(core.CodeRestoreUncertain, runErr, "run `copse list` and check "+core.QuoteDisplay(path),
			"restore failed (%s) but the worktree list changed", core.Escape(core.FirstLine(runErr.Error())))
	}
	if removal.CancelledRun(runErr) {
		return &core.Error{Kind: core.KindCancelled, Code: core.CodeCancelled, Err: runErr,
			Message: "restore of " + id + " cancelled; nothing was restored"}
	}
	return core.GitFailure(core.CodeRestoreFailed, runErr, "git could not add the worktree")
}

// restoreKeepHint says how to try again: the record stays until a restore succeeds.
func restoreKeepHint(c *restoreCmd) string {
	id := c.entry.ID
	return "the record " + id + " is kept: move " + core.QuoteDisplay(c.path.String()) + " away, then run `copse restore " + id + "` again"
}

// restoreMismatch is the verdict on the added worktree t as git lists it (listed): not
// listed, at another commit, or not on the branch (or detached) as asked.
func restoreMismatch(c *restoreCmd, t gitx.Worktree, listed bool) error {
	e := c.entry
	switch {
	case !listed:
		return core.Uncertain(core.CodeRestoreNotListed, nil, "run `copse list`; do not retry blindly",
			"git reported success but does not list %s", core.Escape(c.path.String()))
	case t.Head != e.Head:
		return core.Uncertain(core.CodeRestoreWrongCommit, nil, restoreKeepHint(c),
			"git lists %s at %s, not at %s", core.Escape(c.path.String()), core.Short(t.Head), core.Short(e.Head))
	case c.mode == gitx.AddDetached && !t.Detached, c.mode != gitx.AddDetached && t.Branch != c.branch:
		return core.Uncertain(core.CodeRestoreWrongBranch, nil, restoreKeepHint(c),
			"git lists %s on %s, not as asked", core.Escape(c.path.String()), core.Describe(t))
	}
	return nil
}

// restoreRest finishes a restore whose files are back: the branch recreated, the base it
// was created from recorded again, the kept commits given refs, and the record dropped.
// Each that fails is a warning (the record is kept when it still holds something).
func restoreRest(s *core.Env, ctx, wctx context.Context, c *restoreCmd, t gitx.Worktree, warnings []string) []string {
	e := c.entry
	if c.recreate != "" {
		// Create-only: a branch of that name made meanwhile is never moved.
		branch, err := gitx.UpdateRefCreate(c.cwd, "refs/heads/"+e.Branch, c.recreate)
		if err == nil {
			_, err = s.Git.Run(wctx, branch)
		}
		if err != nil {
			return append(warnings, fmt.Sprintf("branch %s could not be recreated at %s (%s); the record %s is kept",
				core.Escape(e.Branch), core.Short(c.recreate), core.Escape(core.FirstLine(err.Error())), e.ID))
		}
	}
	if e.Meta != nil {
		warnings = append(warnings, restoreMeta(s, ctx, e, t)...)
	}
	if err := restoreKept(s, wctx, c.path.String(), e); err != nil {
		return append(warnings, "restored, but the commits only the worktree held could not all be given refs ("+
			core.Escape(core.FirstLine(err.Error()))+"); the record "+e.ID+" is kept and keeps them")
	}
	drop, err := gitx.UpdateRefDelete(c.cwd, gitx.RemovedRefPrefix+e.ID, e.Commit)
	if err == nil {
		_, err = s.Git.Run(wctx, drop)
	}
	if err != nil {
		warnings = append(warnings, "restored, but the record "+e.ID+" could not be deleted: "+core.Escape(core.FirstLine(err.Error())))
	}
	return warnings
}

// restoreMeta records again the base the worktree was created from (land's default
// --into); a warning when it could not.
func restoreMeta(s *core.Env, ctx context.Context, e core.RemovedEntry, t gitx.Worktree) []string {
	commonDir, err := s.CommonDir(ctx)
	id := ""
	if err == nil {
		if id = core.IdOf(core.WorktreeIDs(commonDir), t.Path); id == "" {
			err = os.ErrNotExist
		}
	}
	if err == nil {
		err = core.WriteWorktreeMeta(commonDir, id, *e.Meta)
	}
	if err != nil && e.Meta.Base != nil && e.Meta.Base.Branch != "" {
		return []string{"restored, but the base " + core.Escape(e.Meta.Base.Branch) + " it was created from could not be recorded again (" +
			core.Escape(core.FirstLine(err.Error())) + "): land it with --into " + core.QuoteDisplay(e.Meta.Base.Branch)}
	}
	return nil
}

// keptText says where the commits only the removed worktree held come back.
func keptText(e core.RemovedEntry) string {
	var what []string
	for _, k := range e.Kept {
		what = append(what, k.What+" "+core.Short(k.Commit))
	}
	return fmt.Sprintf("%s only the worktree held (%s) are kept as %s<n>; its refs/worktree/* refs are put back",
		core.Plural(len(e.Kept), "commit"), core.Sample(what, len(what)), core.KeptRefPrefix+e.ID+"/")
}

// restoreKept gives each commit the record kept a ref of its own before the record goes
// (refs/copse/kept/<id>/<n>, create-only), and puts the worktree's refs/worktree/* refs
// back in the restored worktree. Refs of an operation (refs/bisect, refs/rewritten) are
// not put back: the operation itself did not survive the remove.
func restoreKept(s *core.Env, ctx context.Context, dir string, e core.RemovedEntry) error {
	for i, k := range e.Kept {
		c, err := gitx.UpdateRefCreate(s.Root(), core.KeptRefPrefix+e.ID+"/"+strconv.Itoa(i+1), k.Commit)
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

func restoreTimeout(s *core.Env) time.Duration {
	if s.Opts.Timeout > 0 {
		return 4 * s.Opts.Timeout
	}
	return 4 * time.Minute
}

// writeBack writes the recorded working files (a one-tree read-tree onto the empty
// index of a worktree added without checkout), then puts the recorded index back.
func writeBack(s *core.Env, ctx context.Context, dir string, e core.RemovedEntry) error {
	files, err := gitx.ReadTreeCheckout(dir, e.WorktreeTree)
	if err != nil {
		return err
	}
	if _, err := s.Git.Run(ctx, files); err != nil {
		return err
	}
	index, err := gitx.ReadTreeIndex(dir, e.IndexTree)
	if err != nil {
		return err
	}
	_, err = s.Git.Run(ctx, index)
	return err
}

// verifyRestored records the restored worktree again and compares: the index must give
// the recorded index tree and the working files the recorded worktree tree.
func verifyRestored(s *core.Env, ctx context.Context, dir string, e core.RemovedEntry) error {
	got, err := s.Git.RecordTrees(ctx, s.Root(), dir, e.Head, nil)
	if err != nil {
		return err
	}
	if got.Worktree != e.WorktreeTree {
		return fmt.Errorf("working files give tree %s, recorded %s", core.Short(got.Worktree), core.Short(e.WorktreeTree))
	}
	if got.Index != e.IndexTree {
		return fmt.Errorf("index gives tree %s, recorded %s", core.Short(got.Index), core.Short(e.IndexTree))
	}
	return nil
}
