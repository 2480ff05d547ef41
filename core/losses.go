package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/gitx"
)

// Losses is what removing a worktree would delete that git cannot give back. copse
// computes it itself, whatever the user's git config hides from git status: untracked
// files under status.showUntrackedFiles=no, changed assume-unchanged and skip-worktree
// files, commits only a detached HEAD holds, an operation half done, nested repositories.
// Ignored files are deleted too; they are named in the confirmation but refuse nothing.
type Losses struct {
	Status        Status   // every staged, unstaged, untracked and conflicted entry
	Hidden        []string // assume-unchanged/skip-worktree files that differ from the index
	Operation     string   // rebase, merge, cherry-pick, revert, bisect ("" when none)
	Detached      int      // commits reachable only from a detached HEAD
	Nested        []string // nested repositories (untracked or ignored directories with their own .git)
	Ignored       int      // ignored files and directories git deletes with the worktree
	IgnoredSample []string
	Unique        int // commits of the branch on no other branch or remote

	// Commits only this worktree holds, which git deletes with it.
	Reflog       int      // commits only its own HEAD reflog holds, whose change is kept nowhere else
	WorktreeRefs []string // per-worktree refs (refs/worktree/*, refs/bisect/*, refs/rewritten/*) holding such commits
	RefCommits   int      // the commits those refs hold that no branch, tag or remote does
	// Submodules whose git directory goes with the worktree (<admin>/modules/…, or a .git
	// directory inside it) and holds commits none of its remote-tracking refs has.
	Submodules []HeldRepo
	// SubmoduleFiles are the directories of submodules git never initialised that hold
	// files ("sub (2 files)"): git status does not look there. Their files are counted in
	// Status.Untracked.
	SubmoduleFiles []string
	// NestedHeld details Nested: each nested repository's uncommitted changes and its
	// commits on no remote of its own.
	NestedHeld []HeldRepo

	Keep []KeptCommit // what a record must keep reachable, with where each was
	// unrecordable is what a record cannot keep, so a forced path refuses: uncommitted
	// changes inside a submodule or a nested repository (a record keeps their commits).
	unrecordable []string
	// counted is the commits already counted as Detached or Reflog, and refsOnly those of
	// RefCommits that are not among them: a per-worktree ref often holds a commit the
	// reflog holds too, and a sum of all three would count it twice.
	counted  map[string]bool
	refsOnly int
}

// heldCount is how many distinct commits only the worktree holds: its detached HEAD's,
// its HEAD reflog's and its per-worktree refs', each commit once.
func (l Losses) HeldCount() int { return l.Detached + l.Reflog + l.refsOnly }

// count notes commits as counted (see Losses.counted).
func (l *Losses) count(commits []string) {
	if l.counted == nil {
		l.counted = map[string]bool{}
	}
	for _, c := range commits {
		l.counted[c] = true
	}
}

// HeldRepo is a repository inside the worktree (a submodule or a nested repository) and
// what of it exists nowhere else.
type HeldRepo struct {
	Path     string // relative to the worktree
	Changes  int    // its uncommitted entries (staged, unstaged, untracked, conflicted)
	Unpushed int    // its commits on none of its remote-tracking refs
	// ReflogOnly counts the commits only its own HEAD reflog holds (no ref of its own, no
	// remote), read when its git directory goes with the worktree.
	ReflogOnly int
	Unknown    string // why it could not be read ("" when it was)
	dir        string
	tips       []gitx.HeldRef // HEAD, branches, stash and reflog-only commits, to record
}

// describe says what of r would be lost, e.g. "2 uncommitted changes, 1 commit on no remote".
func (r HeldRepo) describe() string {
	var parts []string
	if r.Unknown != "" {
		parts = append(parts, "cannot be read: "+r.Unknown)
	}
	if r.Changes > 0 {
		parts = append(parts, Plural(r.Changes, "uncommitted change"))
	}
	if r.Unpushed > 0 {
		parts = append(parts, Plural(r.Unpushed, "commit")+" on no remote")
	}
	if r.ReflogOnly > 0 {
		parts = append(parts, Plural(r.ReflogOnly, "commit")+" only its HEAD reflog holds")
	}
	return strings.Join(parts, ", ")
}

// heldNames lists repositories with what of each would be lost.
func HeldNames(rs []HeldRepo) string {
	var names []string
	for _, r := range rs {
		n := r.Path
		if d := r.describe(); d != "" {
			n += " (" + d + ")"
		}
		names = append(names, n)
	}
	return Sample(names, len(names))
}

// losses reads what removing t would lose. A failure to read any part is Status.Error:
// the caller refuses without --force, because "could not tell" is never "nothing".
func (s *Env) Losses(ctx context.Context, t gitx.Worktree) Losses {
	var l Losses
	if t.Prunable != nil {
		// The directory is gone, but its admin directory is not: what git deletes with it
		// (a detached HEAD, the HEAD reflog, refs/worktree/*) counts; the branch too.
		if err := s.heldByAdmin(ctx, t, &l); err != nil {
			l.Status.Error = statusError(err)
		}
		l.Unique = s.uniqueOf(ctx, t, &l)
		return l
	}
	st, op, err := s.Git.SafetyStatus(ctx, t.Path)
	if err != nil {
		l.Status.Error = statusError(err)
		return l
	}
	l.Status = fromGitStatus(st)
	l.Operation = op
	// Nested repositories are untracked or ignored entries to git; here they are counted
	// once, as what they are.
	l.Nested = append(append([]string(nil), st.UntrackedDirs...), st.IgnoredDirs...)
	l.Status.Untracked -= len(st.UntrackedDirs)
	l.Ignored = st.Ignored - len(st.IgnoredDirs)
	for _, x := range st.IgnoredSample {
		if !strings.HasSuffix(x, "/") {
			l.IgnoredSample = append(l.IgnoredSample, x)
		}
	}
	if l.Hidden, err = s.Git.HiddenChanges(ctx, t.Path); err != nil {
		l.Status.Error = statusError(err)
		return l
	}
	if t.Detached && t.Head != "" && !allZero(t.Head) {
		if l.Detached, err = s.Git.UnreachableCommits(ctx, t.Path, t.Head); err != nil {
			l.Status.Error = statusError(err)
			return l
		}
	}
	if err = s.heldCommits(ctx, t, &l); err != nil {
		l.Status.Error = statusError(err)
		return l
	}
	l.Unique = s.uniqueOf(ctx, t, &l)
	return l
}

func (s *Env) uniqueOf(ctx context.Context, t gitx.Worktree, l *Losses) int {
	if t.Branch == "" {
		return 0
	}
	n, err := s.Git.UniqueCommits(ctx, s.Root(), t.Branch)
	if err != nil && l.Status.Error == "" {
		l.Status.Error = "cannot count the branch's unpushed commits: " + statusError(err)
	}
	return n
}

func statusError(err error) string {
	if e, ok := err.(*gitx.Error); ok && e.Stderr != "" {
		return Escape(gitMessage(e.Stderr))
	}
	return Escape(err.Error())
}

func allZero(oid string) bool { return strings.Trim(oid, "0") == "" }

// Dirty reports work a remove would lose that needs --force: changes (including hidden
// ones), an operation in progress, commits only a detached HEAD holds, nested repositories.
func (l Losses) Dirty() bool {
	return l.Status.Dirty() || len(l.Hidden) > 0 || l.Operation != "" || l.Detached > 0 || len(l.Nested) > 0 ||
		l.Reflog > 0 || l.RefCommits > 0 || len(l.Submodules) > 0
}

// lines are the confirmation's "will be lost" lines, most serious first.
func (l Losses) Lines(t gitx.Worktree, deleteBranch bool) []string {
	var out []string
	if l.Status.Error != "" {
		out = append(out, "status unknown: "+l.Status.Error)
	}
	if l.Operation != "" {
		out = append(out, "a "+l.Operation+" in progress will be abandoned")
	}
	if l.Status.Dirty() {
		out = append(out, "uncommitted changes will be lost: "+l.Changes())
	}
	if len(l.Hidden) > 0 {
		out = append(out, fmt.Sprintf("%s git status does not show (assume-unchanged or skip-worktree) will be lost: %s",
			Plural(len(l.Hidden), "changed file"), Sample(l.Hidden, len(l.Hidden))))
	}
	if l.Detached > 0 {
		out = append(out, fmt.Sprintf("%s on no branch, tag or remote will be lost (detached at %s)", Plural(l.Detached, "commit"), Short(t.Head)))
	}
	if l.Reflog > 0 {
		out = append(out, fmt.Sprintf("%s only the worktree's HEAD reflog holds will be lost", Plural(l.Reflog, "commit")))
	}
	if l.RefCommits > 0 {
		out = append(out, fmt.Sprintf("%s only per-worktree refs hold will be lost: %s", Plural(l.RefCommits, "commit"), Sample(l.WorktreeRefs, len(l.WorktreeRefs))))
	}
	if len(l.Submodules) > 0 {
		out = append(out, fmt.Sprintf("%s whose git directory goes with the worktree will be lost: %s", Plural(len(l.Submodules), "submodule"), HeldNames(l.Submodules)))
	}
	if len(l.Nested) > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", Plural(len(l.Nested), "nested repository"), l.nestedNames()))
	}
	if l.Ignored > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", Plural(l.Ignored, "ignored file"), Sample(l.IgnoredSample, l.Ignored)))
	}
	if deleteBranch && l.Unique > 0 {
		out = append(out, fmt.Sprintf("%s on no other branch or remote will be lost with branch %s", Plural(l.Unique, "commit"), Escape(t.Branch)))
	}
	return out
}

// changes sums up the uncommitted changes, naming the uninitialised submodule
// directories whose files git status does not show.
func (l Losses) Changes() string {
	out := changeSummary(l.Status)
	if len(l.SubmoduleFiles) > 0 {
		out += " (in uninitialised submodule directories git status does not look into: " + Sample(l.SubmoduleFiles, len(l.SubmoduleFiles)) + ")"
	}
	return out
}

// ignoredNamed names the ignored files removing the worktree deletes, escaped: "2 ignored
// files: .env, build/x". Remove's dry run and result and land's clean-up say it alike.
func (l Losses) IgnoredNamed() string {
	return Plural(l.Ignored, "ignored file") + ": " + Sample(l.IgnoredSample, l.Ignored)
}

// sample shows the first few names of n, escaped, and how many more there are.
func Sample(names []string, n int) string {
	const show = 3
	var parts []string
	for i, x := range names {
		if i == show {
			break
		}
		parts = append(parts, Escape(x))
	}
	s := strings.Join(parts, ", ")
	if more := n - len(parts); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// Plural writes a count with its noun (every layer counts the same way): "1 commit", "2 commits", "1 nested repository".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "ry"), strings.HasSuffix(noun, "ty"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	case strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "s"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// hereWithin reports a directory copse or its session is in that lies anywhere inside
// path: the directory copse started in (-C), the process's working directory, and where
// this session switched to. Removing any of them would pull the floor from under it.
func (s *Env) hereWithin(path string) (string, bool) {
	cp := Canonical(path)
	var places []string
	places = append(places, s.dir)
	if wd, err := os.Getwd(); err == nil {
		places = append(places, wd)
	}
	if at := s.SessionAt(); at != "" {
		places = append(places, at)
	}
	for _, p := range places {
		if within(Canonical(p), cp) {
			return p, true
		}
	}
	return "", false
}

// nestedNames names the nested repositories with what each holds, when it was read.
func (l Losses) nestedNames() string {
	if len(l.NestedHeld) == len(l.Nested) {
		return HeldNames(l.NestedHeld)
	}
	return Sample(l.Nested, len(l.Nested))
}

// KeptCommit is one commit a record keeps reachable that only the worktree held.
type KeptCommit struct {
	What   string `json:"what"` // where it was: "HEAD reflog", "refs/worktree/x", "submodule lib: refs/heads/main"
	Commit string `json:"commit"`
}

// maxNewPatchTips bounds the reflog entries compared change by change with HEAD: past it,
// every commit only the reflog holds counts as lost (erring towards keeping).
const maxNewPatchTips = 32

// heldCommits finds what the worktree holds besides its files that git deletes with it:
// commits only its HEAD reflog or its per-worktree refs reach, submodules whose git
// directory lies in the worktree's own git directory (or inside it) with commits on no
// remote, and for each nested repository its changes and unpushed commits. It fills l
// and l.keep (what a record must keep).
func (s *Env) heldCommits(ctx context.Context, t gitx.Worktree, l *Losses) error {
	gitDir, err := gitx.WorktreeGitDir(t.Path)
	if err != nil {
		return err
	}
	head := ""
	if t.Head != "" && !allZero(t.Head) {
		head = t.Head
	}
	if err := s.heldByReflog(ctx, t.Path, gitDir, head, l); err != nil {
		return err
	}
	if l.Detached > 0 {
		l.Keep = append(l.Keep, KeptCommit{What: "detached HEAD", Commit: head})
	}
	refs, err := s.Git.WorktreeRefs(ctx, t.Path)
	if err != nil {
		return err
	}
	if err := s.heldByRefs(ctx, t.Path, refs, l); err != nil {
		return err
	}
	if err := s.heldBySubmodules(ctx, t, gitDir, l); err != nil {
		return err
	}
	for _, p := range l.Nested {
		r := s.heldRepo(ctx, strings.TrimSuffix(p, "/")+"/", filepath.Join(t.Path, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
		// Its own HEAD reflog goes with it when its git directory lies inside the worktree.
		if ngd, err := gitx.WorktreeGitDir(r.dir); err == nil && within(Canonical(ngd), Canonical(t.Path)) {
			if err := s.repoReflog(ctx, ngd, &r); err != nil {
				r.Unknown = statusError(err)
			}
		}
		l.NestedHeld = append(l.NestedHeld, r)
		if r.Changes > 0 || r.Unknown != "" {
			l.unrecordable = append(l.unrecordable, "nested repository "+r.Path+" ("+r.describe()+")")
		}
		l.keepRepo("nested repository", r)
	}
	return nil
}

// heldByReflog counts the HEAD reflog's commits no branch, tag or remote reaches, and
// whose change is not in HEAD either (a rebase or a message-only amend leaves equivalent
// commits behind).
// dir is where git runs: the worktree, or the main checkout for one whose directory is gone.
func (s *Env) heldByReflog(ctx context.Context, dir, gitDir, head string, l *Losses) error {
	tips, err := gitx.ReflogCommits(filepath.Join(gitDir, "logs", "HEAD"))
	if err != nil || len(tips) == 0 {
		return err
	}
	unkept, err := s.Git.UnkeptCommits(ctx, dir, tips)
	if err != nil {
		return err
	}
	lost := map[string]bool{}
	for _, c := range unkept {
		lost[c] = true
	}
	s.dropLandedOriginals(ctx, dir, lost)
	if head != "" {
		// Commits of a detached HEAD are counted as Detached, not twice.
		if l.Detached > 0 {
			mine, err := s.Git.UnkeptCommits(ctx, dir, []string{head})
			if err != nil {
				return err
			}
			for _, c := range mine {
				delete(lost, c)
			}
			l.count(mine)
		}
		lost = s.newPatches(ctx, dir, head, tips, lost)
	}
	for _, tip := range tips {
		if lost[tip] {
			l.Keep = append(l.Keep, KeptCommit{What: "HEAD reflog", Commit: tip})
		}
	}
	l.Reflog = len(lost)
	l.count(slices.Collect(maps.Keys(lost)))
	return nil
}

// dropLandedOriginals takes out of lost the originals a land replaced: a land's rebase
// leaves the branch's commits from before it in the worktree's HEAD reflog, but once its
// record's landed commit is on the target (git says so), the commits under the branch's
// tips before the rebase (Orig, Rebase.OrigHead) are on the target as copies the land
// proved equal in content (land_changed_content blocks a land whose copies differ, and
// clears Commit). Only records whose tips are among lost are asked about. A record or a
// git answer that cannot be read proves nothing: the commits stay lost.
func (s *Env) dropLandedOriginals(ctx context.Context, dir string, lost map[string]bool) {
	if len(lost) == 0 {
		return
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return
	}
	jobs, err := ReadJobs(landjobs.Dir(commonDir))
	if err != nil {
		return
	}
	for _, j := range jobs {
		tips := landedTips(j, lost)
		if len(tips) == 0 {
			continue
		}
		if on, err := s.Git.Ancestor(ctx, dir, j.Commit, "refs/heads/"+j.Into); err != nil || !on {
			continue
		}
		replaced, err := s.Git.UnkeptCommits(ctx, dir, tips)
		if err != nil {
			continue
		}
		for _, c := range replaced {
			delete(lost, c)
		}
	}
}

// landedTips are the branch's tips before j's rebases that lost still names, when j
// landed a commit onto a branch (nil otherwise).
func landedTips(j LandJob, lost map[string]bool) []string {
	if j.Commit == "" || j.Into == "" {
		return nil
	}
	var tips []string
	for _, t := range []string{j.Orig, rebaseOrig(j.Rebase)} {
		if t != "" && lost[t] && !slices.Contains(tips, t) {
			tips = append(tips, t)
		}
	}
	return tips
}

func rebaseOrig(rb *LandRebase) string {
	if rb == nil {
		return ""
	}
	return rb.OrigHead
}

// heldByRefs counts the commits only the worktree's own refs (refs/worktree/*, read in
// dir) reach.
func (s *Env) heldByRefs(ctx context.Context, dir string, refs []gitx.HeldRef, l *Losses) error {
	if len(refs) == 0 {
		return nil
	}
	var oids []string
	for _, r := range refs {
		oids = append(oids, r.Commit)
	}
	unkept, err := s.Git.UnkeptCommits(ctx, dir, oids)
	if err != nil {
		return err
	}
	if len(unkept) > 0 {
		l.RefCommits = len(unkept)
		for _, c := range unkept {
			if !l.counted[c] {
				l.refsOnly++
			}
		}
		for _, r := range refs {
			l.WorktreeRefs = append(l.WorktreeRefs, r.Name)
			l.Keep = append(l.Keep, KeptCommit{What: r.Name, Commit: r.Commit})
		}
	}
	return nil
}

// heldByAdmin reads what the admin directory of a worktree whose directory is gone (a
// checkout moved by hand, a drive not mounted) holds that git deletes with it: a detached
// HEAD's commits, its HEAD reflog's, its per-worktree refs'. git runs in the main
// checkout; the files are read where git keeps them.
func (s *Env) heldByAdmin(ctx context.Context, t gitx.Worktree, l *Losses) error {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return err
	}
	id := IdOf(WorktreeIDs(commonDir), t.Path)
	if id == "" {
		return errors.New("cannot find the admin directory git keeps for it under " + filepath.Join(commonDir, "worktrees"))
	}
	admin, root := AdminDir(commonDir, id), s.Root()
	head := ""
	if t.Head != "" && !allZero(t.Head) {
		head = t.Head
	}
	if t.Detached && head != "" {
		if l.Detached, err = s.Git.UnreachableCommits(ctx, root, head); err != nil {
			return err
		}
	}
	if err := s.heldByReflog(ctx, root, admin, head, l); err != nil {
		return err
	}
	if l.Detached > 0 {
		l.Keep = append(l.Keep, KeptCommit{What: "detached HEAD", Commit: head})
	}
	refs, err := gitx.AdminRefs(admin)
	if err != nil {
		return err
	}
	if err := s.heldByRefs(ctx, root, refs, l); err != nil {
		return err
	}
	if err := s.stagedInAdmin(ctx, admin, head, l); err != nil {
		return err
	}
	return s.heldByAdminModules(ctx, admin, l)
}

// stagedInAdmin counts what the index in the admin directory of a worktree whose
// directory is gone has staged (it differs from HEAD): the staged version of a file exists
// in no commit and, once git forgets the worktree, in no index either. A record of a gone
// worktree keeps its commits only, so these cannot be recorded.
func (s *Env) stagedInAdmin(ctx context.Context, admin, head string, l *Losses) error {
	index := filepath.Join(admin, "index")
	if _, err := os.Lstat(index); head == "" || errors.Is(err, fs.ErrNotExist) {
		return nil // unborn, or never checked out: nothing staged
	}
	n, err := s.Git.IndexChanges(ctx, s.Root(), index, head)
	if err != nil {
		return err
	}
	if n > 0 {
		l.Status.Staged = n
		l.unrecordable = append(l.unrecordable, Plural(n, "staged change")+" only its index holds")
	}
	return nil
}

// heldByAdminModules reads the submodule repositories the admin directory of a worktree
// whose directory is gone keeps (modules/…): git deletes them with it. One with commits
// on no remote of its own counts as such a submodule and cannot be recorded (a record
// fetches from the submodule's checkout, which is gone), so it keeps the worktree; one
// that cannot be read is unknown, never nothing.
func (s *Env) heldByAdminModules(ctx context.Context, admin string, l *Losses) error {
	mods, err := gitx.AdminModules(admin)
	if err != nil {
		return err
	}
	for _, rel := range mods {
		name := strings.ReplaceAll(strings.TrimPrefix(rel, "modules/"), "/modules/", "/")
		r := HeldRepo{Path: name, dir: filepath.Join(admin, filepath.FromSlash(rel))}
		if r.Unpushed, err = s.Git.ModuleUnkeptCount(ctx, r.dir); err != nil {
			r.Unknown = statusError(err)
		}
		if r.Unpushed == 0 && r.Unknown == "" {
			continue
		}
		l.Submodules = append(l.Submodules, r)
		l.unrecordable = append(l.unrecordable, "submodule "+r.Path+" ("+r.describe()+")")
	}
	return nil
}

// heldBySubmodules reads the submodules of the worktree. One whose repository is deleted
// with the worktree (its git directory lies in the worktree's own git directory, or inside
// the worktree) is read whole: its commits on no remote, its HEAD reflog, its changes. One
// whose repository stays elsewhere (a .git file pointing outside: the superproject's
// .git/modules, clone --separate-git-dir) keeps its commits, but its uncommitted changes
// live in the worktree and go with it; no record keeps them. A directory git never
// initialised is one git status does not look into: files there are untracked work.
func (s *Env) heldBySubmodules(ctx context.Context, t gitx.Worktree, gitDir string, l *Losses) error {
	return s.submodulesIn(ctx, t.Path, gitDir, t.Path, "", 0, l)
}

// maxSubmoduleDepth bounds how deep submodules of submodules are read: past it the answer
// is unknown, never "nothing".
const maxSubmoduleDepth = 8

// submodulesIn reads the submodules of the repository checked out at dir (the worktree
// top, or a submodule of it, named prefix), and theirs in turn: a submodule's own
// submodules keep their git directories inside its git directory, so they go too.
func (s *Env) submodulesIn(ctx context.Context, top, gitDir, dir, prefix string, depth int, l *Losses) error {
	if depth > maxSubmoduleDepth {
		return fmt.Errorf("submodules nested more than %d deep at %s are not read", maxSubmoduleDepth, strings.TrimSuffix(prefix, "/"))
	}
	subs, err := s.Git.Gitlinks(ctx, dir)
	if err != nil {
		return err
	}
	for _, p := range subs {
		rel, sdir := prefix+p, filepath.Join(dir, filepath.FromSlash(p))
		initialised, err := s.heldBySubmodule(ctx, top, gitDir, rel, sdir, l)
		if err != nil {
			return err
		}
		if initialised {
			if err := s.submodulesIn(ctx, top, gitDir, sdir, rel+"/", depth+1, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// heldBySubmodule reads one submodule (rel, checked out at dir) into l, and says whether
// it is initialised (has a .git whose repository could be read).
func (s *Env) heldBySubmodule(ctx context.Context, top, gitDir, rel, dir string, l *Losses) (bool, error) {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return false, l.uninitialisedFiles(rel, dir)
	}
	sgd, err := gitx.WorktreeGitDir(dir)
	if err != nil {
		r := HeldRepo{Path: rel, Unknown: statusError(err), dir: dir}
		l.Submodules = append(l.Submodules, r)
		l.unrecordable = append(l.unrecordable, "submodule "+r.Path+" ("+r.describe()+")")
		return false, nil
	}
	if !within(Canonical(sgd), Canonical(gitDir)) && !within(Canonical(sgd), Canonical(top)) {
		if r := s.changesOf(ctx, rel, dir); r.Changes > 0 || r.Unknown != "" {
			l.unrecordable = append(l.unrecordable, "submodule "+r.Path+" ("+r.describe()+"; its repository "+sgd+" stays, they do not)")
		}
		return true, nil
	}
	r := s.heldRepo(ctx, rel, dir)
	if err := s.repoReflog(ctx, sgd, &r); err != nil {
		r.Unknown = statusError(err)
	}
	if r.Unpushed > 0 || r.ReflogOnly > 0 || r.Unknown != "" {
		l.Submodules = append(l.Submodules, r)
	}
	if r.Changes > 0 || r.Unknown != "" {
		l.unrecordable = append(l.unrecordable, "submodule "+r.Path+" ("+r.describe()+")")
	}
	// Its uncommitted changes show in the worktree's own status (--ignore-submodules=none).
	l.keepRepo("submodule", r)
	return true, nil
}

// repoReflog finds the commits only the own HEAD reflog of a submodule or nested
// repository (in its git directory sgd) holds: left by `git submodule update` on a
// detached HEAD, then reset away. They go with its git directory, so they count, and a
// record keeps them.
func (s *Env) repoReflog(ctx context.Context, sgd string, r *HeldRepo) error {
	if r.Unknown != "" {
		return nil
	}
	tips, err := gitx.ReflogCommits(filepath.Join(sgd, "logs", "HEAD"))
	if err != nil || len(tips) == 0 {
		return err
	}
	only, err := s.Git.UnreferencedCommits(ctx, r.dir, tips)
	if err != nil {
		return err
	}
	r.ReflogOnly = len(only)
	lost := map[string]bool{}
	for _, c := range only {
		lost[c] = true
	}
	for _, tip := range tips {
		if lost[tip] {
			r.tips = append(r.tips, gitx.HeldRef{Name: "HEAD reflog", Commit: tip})
		}
	}
	return nil
}

// uninitialisedFiles counts the files in the directory of a submodule git never
// initialised there: git status does not look into it, a record does not keep it (git add
// sees a gitlink), and a remove deletes it. They are untracked work nothing can record.
func (l *Losses) uninitialisedFiles(rel, dir string) error {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil // gone, or a file or symlink in its place: git status reports that itself
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot read the uninitialised submodule directory %s: %w", rel, err)
	}
	if n > 0 {
		l.Status.Untracked += n
		l.SubmoduleFiles = append(l.SubmoduleFiles, rel+" ("+Plural(n, "file")+")")
		l.unrecordable = append(l.unrecordable, "uninitialised submodule directory "+rel+" ("+Plural(n, "file")+")")
	}
	return nil
}

// changesOf reads only the uncommitted changes of a repository inside the worktree.
func (s *Env) changesOf(ctx context.Context, rel, dir string) HeldRepo {
	r := HeldRepo{Path: rel, dir: dir}
	st, _, err := s.Git.SafetyStatus(ctx, dir)
	if err != nil {
		r.Unknown = statusError(err)
		return r
	}
	r.Changes = st.Staged + st.Unstaged + st.Untracked + st.Conflicted
	return r
}

func (l *Losses) keepRepo(kind string, r HeldRepo) {
	if r.Unpushed == 0 && r.ReflogOnly == 0 {
		return
	}
	for _, tip := range r.tips {
		l.Keep = append(l.Keep, KeptCommit{What: kind + " " + r.Path + ": " + tip.Name, Commit: tip.Commit})
	}
}

// newPatches keeps of lost only the commits whose change HEAD does not have, comparing
// the reflog entries that are lost one by one (at most maxNewPatchTips; past that, or
// when a comparison fails, everything stays lost).
func (s *Env) newPatches(ctx context.Context, dir, head string, tips []string, lost map[string]bool) map[string]bool {
	var check []string
	for _, tip := range tips {
		if lost[tip] {
			check = append(check, tip)
		}
	}
	if len(check) == 0 || len(check) > maxNewPatchTips {
		return lost
	}
	still := map[string]bool{}
	for _, tip := range check {
		news, err := s.Git.NewPatches(ctx, dir, head, tip)
		if err != nil {
			return lost
		}
		for _, c := range news {
			if lost[c] {
				still[c] = true
			}
		}
	}
	return still
}

// heldRepo reads a repository inside the worktree: its uncommitted changes (from the
// safety status, so its config hides nothing) and its commits on no remote of its own.
func (s *Env) heldRepo(ctx context.Context, rel, dir string) HeldRepo {
	r := s.changesOf(ctx, rel, dir)
	if r.Unknown != "" {
		return r
	}
	var err error
	if r.Unpushed, err = s.Git.UnpushedCount(ctx, dir); err != nil {
		// An empty repository (unborn HEAD, no refs) has nothing to push.
		if _, herr := s.Git.ResolveCommit(ctx, dir, "HEAD"); herr == nil {
			r.Unknown = statusError(err)
		}
		return r
	}
	if r.Unpushed > 0 {
		if h, err := s.Git.ResolveCommit(ctx, dir, "HEAD"); err == nil {
			r.tips = append(r.tips, gitx.HeldRef{Name: "HEAD", Commit: h})
		}
		tips, err := s.Git.RepoTips(ctx, dir)
		if err != nil {
			r.Unknown = statusError(err)
			return r
		}
		r.tips = append(r.tips, tips...)
	}
	return r
}
