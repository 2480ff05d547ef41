package removal

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

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/gitx"
)

func uniqueOf(s *core.Env, ctx context.Context, t gitx.Worktree, l *core.Losses) int {
	if t.Branch == "" {
		return 0
	}
	n, err := s.Git.UniqueCommits(ctx, s.Root(), t.Branch)
	if err != nil && l.Status.Error == "" {
		l.Status.Error = "cannot count the branch's unpushed commits: " + core.StatusError(err)
	}
	return n
}

// maxNewPatchTips bounds the reflog entries compared change by change with HEAD: past it,
// every commit only the reflog holds counts as lost (erring towards keeping).
const maxNewPatchTips = 32

// heldCommits finds what the worktree holds besides its files that git deletes with it:
// commits only its HEAD reflog or its per-worktree refs reach, submodules whose git
// directory lies in the worktree's own git directory (or inside it) with commits on no
// remote, and for each nested repository its changes and unpushed commits. It fills l
// and l.keep (what a record must keep).
func heldCommits(s *core.Env, ctx context.Context, t gitx.Worktree, l *core.Losses) error {
	gitDir, err := gitx.WorktreeGitDir(t.Path)
	if err != nil {
		return err
	}
	head := ""
	if t.Head != "" && !core.AllZero(t.Head) {
		head = t.Head
	}
	if err := heldByReflog(s, ctx, t.Path, gitDir, head, l); err != nil {
		return err
	}
	if l.Detached > 0 {
		l.Keep = append(l.Keep, core.KeptCommit{What: "detached HEAD", Commit: head})
	}
	refs, err := s.Git.WorktreeRefs(ctx, t.Path)
	if err != nil {
		return err
	}
	if err := heldByRefs(s, ctx, t.Path, refs, l); err != nil {
		return err
	}
	if err := heldBySubmodules(s, ctx, t, gitDir, l); err != nil {
		return err
	}
	for _, p := range l.Nested {
		r := heldRepo(s, ctx, strings.TrimSuffix(p, "/")+"/", filepath.Join(t.Path, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
		// Its own HEAD reflog goes with it when its git directory lies inside the worktree.
		if ngd, err := gitx.WorktreeGitDir(r.Dir); err == nil && core.Within(core.Canonical(ngd), core.Canonical(t.Path)) {
			if err := repoReflog(s, ctx, ngd, &r); err != nil {
				r.Unknown = core.StatusError(err)
			}
		}
		l.NestedHeld = append(l.NestedHeld, r)
		if r.Changes > 0 || r.Unknown != "" {
			l.Unrecordable = append(l.Unrecordable, "nested repository "+r.Path+" ("+r.Describe()+")")
		}
		l.KeepRepo("nested repository", r)
	}
	return nil
}

// heldByReflog counts the HEAD reflog's commits no branch, tag or remote reaches, and
// whose change is not in HEAD either (a rebase or a message-only amend leaves equivalent
// commits behind).
// dir is where git runs: the worktree, or the main checkout for one whose directory is gone.
func heldByReflog(s *core.Env, ctx context.Context, dir, gitDir, head string, l *core.Losses) error {
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
	dropLandedOriginals(s, ctx, dir, lost)
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
			l.Count(mine)
		}
		lost = newPatches(s, ctx, dir, head, tips, lost)
	}
	for _, tip := range tips {
		if lost[tip] {
			l.Keep = append(l.Keep, core.KeptCommit{What: "HEAD reflog", Commit: tip})
		}
	}
	l.Reflog = len(lost)
	l.Count(slices.Collect(maps.Keys(lost)))
	return nil
}

// dropLandedOriginals takes out of lost the originals a land replaced: a land's rebase
// leaves the branch's commits from before it in the worktree's HEAD reflog, but once its
// record's landed commit is on the target (git says so), the commits under the branch's
// tips before the rebase (Orig, Rebase.OrigHead) are on the target as copies the land
// proved equal in content (land_changed_content blocks a land whose copies differ, and
// clears Commit). Only records whose tips are among lost are asked about. A record or a
// git answer that cannot be read proves nothing: the commits stay lost.
func dropLandedOriginals(s *core.Env, ctx context.Context, dir string, lost map[string]bool) {
	if len(lost) == 0 {
		return
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return
	}
	jobs, err := core.ReadJobs(landjobs.Dir(commonDir))
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
func landedTips(j core.LandJob, lost map[string]bool) []string {
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

func rebaseOrig(rb *core.LandRebase) string {
	if rb == nil {
		return ""
	}
	return rb.OrigHead
}

// heldByRefs counts the commits only the worktree's own refs (refs/worktree/*, read in
// dir) reach.
func heldByRefs(s *core.Env, ctx context.Context, dir string, refs []gitx.HeldRef, l *core.Losses) error {
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
			if !l.Counted[c] {
				l.RefsOnly++
			}
		}
		for _, r := range refs {
			l.WorktreeRefs = append(l.WorktreeRefs, r.Name)
			l.Keep = append(l.Keep, core.KeptCommit{What: r.Name, Commit: r.Commit})
		}
	}
	return nil
}

// heldByAdmin reads what the admin directory of a worktree whose directory is gone (a
// checkout moved by hand, a drive not mounted) holds that git deletes with it: a detached
// HEAD's commits, its HEAD reflog's, its per-worktree refs'. git runs in the main
// checkout; the files are read where git keeps them.
func heldByAdmin(s *core.Env, ctx context.Context, t gitx.Worktree, l *core.Losses) error {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return err
	}
	id := core.IdOf(core.WorktreeIDs(commonDir), t.Path)
	if id == "" {
		return errors.New("cannot find the admin directory git keeps for it under " + filepath.Join(commonDir, "worktrees"))
	}
	admin, root := core.AdminDir(commonDir, id), s.Root()
	head := ""
	if t.Head != "" && !core.AllZero(t.Head) {
		head = t.Head
	}
	if t.Detached && head != "" {
		if l.Detached, err = s.Git.UnreachableCommits(ctx, root, head); err != nil {
			return err
		}
	}
	if err := heldByReflog(s, ctx, root, admin, head, l); err != nil {
		return err
	}
	if l.Detached > 0 {
		l.Keep = append(l.Keep, core.KeptCommit{What: "detached HEAD", Commit: head})
	}
	refs, err := gitx.AdminRefs(admin)
	if err != nil {
		return err
	}
	if err := heldByRefs(s, ctx, root, refs, l); err != nil {
		return err
	}
	if err := stagedInAdmin(s, ctx, admin, head, l); err != nil {
		return err
	}
	return heldByAdminModules(s, ctx, admin, l)
}

// stagedInAdmin counts what the index in the admin directory of a worktree whose
// directory is gone has staged (it differs from HEAD): the staged version of a file exists
// in no commit and, once git forgets the worktree, in no index either. A record of a gone
// worktree keeps its commits only, so these cannot be recorded.
func stagedInAdmin(s *core.Env, ctx context.Context, admin, head string, l *core.Losses) error {
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
		l.Unrecordable = append(l.Unrecordable, core.Plural(n, "staged change")+" only its index holds")
	}
	return nil
}

// heldByAdminModules reads the submodule repositories the admin directory of a worktree
// whose directory is gone keeps (modules/…): git deletes them with it. One with commits
// on no remote of its own counts as such a submodule and cannot be recorded (a record
// fetches from the submodule's checkout, which is gone), so it keeps the worktree; one
// that cannot be read is unknown, never nothing.
func heldByAdminModules(s *core.Env, ctx context.Context, admin string, l *core.Losses) error {
	mods, err := gitx.AdminModules(admin)
	if err != nil {
		return err
	}
	for _, rel := range mods {
		name := strings.ReplaceAll(strings.TrimPrefix(rel, "modules/"), "/modules/", "/")
		r := core.HeldRepo{Path: name, Dir: filepath.Join(admin, filepath.FromSlash(rel))}
		if r.Unpushed, err = s.Git.ModuleUnkeptCount(ctx, r.Dir); err != nil {
			r.Unknown = core.StatusError(err)
		}
		if r.Unpushed == 0 && r.Unknown == "" {
			continue
		}
		l.Submodules = append(l.Submodules, r)
		l.Unrecordable = append(l.Unrecordable, "submodule "+r.Path+" ("+r.Describe()+")")
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
func heldBySubmodules(s *core.Env, ctx context.Context, t gitx.Worktree, gitDir string, l *core.Losses) error {
	return submodulesIn(s, ctx, t.Path, gitDir, t.Path, "", 0, l)
}

// maxSubmoduleDepth bounds how deep submodules of submodules are read: past it the answer
// is unknown, never "nothing".
const maxSubmoduleDepth = 8

// submodulesIn reads the submodules of the repository checked out at dir (the worktree
// top, or a submodule of it, named prefix), and theirs in turn: a submodule's own
// submodules keep their git directories inside its git directory, so they go too.
func submodulesIn(s *core.Env, ctx context.Context, top, gitDir, dir, prefix string, depth int, l *core.Losses) error {
	if depth > maxSubmoduleDepth {
		return fmt.Errorf("submodules nested more than %d deep at %s are not read", maxSubmoduleDepth, strings.TrimSuffix(prefix, "/"))
	}
	subs, err := s.Git.Gitlinks(ctx, dir)
	if err != nil {
		return err
	}
	for _, p := range subs {
		rel, sdir := prefix+p, filepath.Join(dir, filepath.FromSlash(p))
		initialised, err := heldBySubmodule(s, ctx, top, gitDir, rel, sdir, l)
		if err != nil {
			return err
		}
		if initialised {
			if err := submodulesIn(s, ctx, top, gitDir, sdir, rel+"/", depth+1, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// heldBySubmodule reads one submodule (rel, checked out at dir) into l, and says whether
// it is initialised (has a .git whose repository could be read).
func heldBySubmodule(s *core.Env, ctx context.Context, top, gitDir, rel, dir string, l *core.Losses) (bool, error) {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return false, l.UninitialisedFiles(rel, dir)
	}
	sgd, err := gitx.WorktreeGitDir(dir)
	if err != nil {
		r := core.HeldRepo{Path: rel, Unknown: core.StatusError(err), Dir: dir}
		l.Submodules = append(l.Submodules, r)
		l.Unrecordable = append(l.Unrecordable, "submodule "+r.Path+" ("+r.Describe()+")")
		return false, nil
	}
	if !core.Within(core.Canonical(sgd), core.Canonical(gitDir)) && !core.Within(core.Canonical(sgd), core.Canonical(top)) {
		if r := changesOf(s, ctx, rel, dir); r.Changes > 0 || r.Unknown != "" {
			l.Unrecordable = append(l.Unrecordable, "submodule "+r.Path+" ("+r.Describe()+"; its repository "+sgd+" stays, they do not)")
		}
		return true, nil
	}
	r := heldRepo(s, ctx, rel, dir)
	if err := repoReflog(s, ctx, sgd, &r); err != nil {
		r.Unknown = core.StatusError(err)
	}
	if r.Unpushed > 0 || r.ReflogOnly > 0 || r.Unknown != "" {
		l.Submodules = append(l.Submodules, r)
	}
	if r.Changes > 0 || r.Unknown != "" {
		l.Unrecordable = append(l.Unrecordable, "submodule "+r.Path+" ("+r.Describe()+")")
	}
	// Its uncommitted changes show in the worktree's own status (--ignore-submodules=none).
	l.KeepRepo("submodule", r)
	return true, nil
}

// repoReflog finds the commits only the own HEAD reflog of a submodule or nested
// repository (in its git directory sgd) holds: left by `git submodule update` on a
// detached HEAD, then reset away. They go with its git directory, so they count, and a
// record keeps them.
func repoReflog(s *core.Env, ctx context.Context, sgd string, r *core.HeldRepo) error {
	if r.Unknown != "" {
		return nil
	}
	tips, err := gitx.ReflogCommits(filepath.Join(sgd, "logs", "HEAD"))
	if err != nil || len(tips) == 0 {
		return err
	}
	only, err := s.Git.UnreferencedCommits(ctx, r.Dir, tips)
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
			r.Tips = append(r.Tips, gitx.HeldRef{Name: "HEAD reflog", Commit: tip})
		}
	}
	return nil
}

// changesOf reads only the uncommitted changes of a repository inside the worktree.
func changesOf(s *core.Env, ctx context.Context, rel, dir string) core.HeldRepo {
	r := core.HeldRepo{Path: rel, Dir: dir}
	st, _, err := s.Git.SafetyStatus(ctx, dir)
	if err != nil {
		r.Unknown = core.StatusError(err)
		return r
	}
	r.Changes = st.Staged + st.Unstaged + st.Untracked + st.Conflicted
	return r
}

// newPatches keeps of lost only the commits whose change HEAD does not have, comparing
// the reflog entries that are lost one by one (at most maxNewPatchTips; past that, or
// when a comparison fails, everything stays lost).
func newPatches(s *core.Env, ctx context.Context, dir, head string, tips []string, lost map[string]bool) map[string]bool {
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
func heldRepo(s *core.Env, ctx context.Context, rel, dir string) core.HeldRepo {
	r := changesOf(s, ctx, rel, dir)
	if r.Unknown != "" {
		return r
	}
	var err error
	if r.Unpushed, err = s.Git.UnpushedCount(ctx, dir); err != nil {
		// An empty repository (unborn HEAD, no refs) has nothing to push.
		if _, herr := s.Git.ResolveCommit(ctx, dir, "HEAD"); herr == nil {
			r.Unknown = core.StatusError(err)
		}
		return r
	}
	if r.Unpushed > 0 {
		if h, err := s.Git.ResolveCommit(ctx, dir, "HEAD"); err == nil {
			r.Tips = append(r.Tips, gitx.HeldRef{Name: "HEAD", Commit: h})
		}
		tips, err := s.Git.RepoTips(ctx, dir)
		if err != nil {
			r.Unknown = core.StatusError(err)
			return r
		}
		r.Tips = append(r.Tips, tips...)
	}
	return r
}

// losses reads what removing t would lose. A failure to read any part is Status.Error:
// the caller refuses without --force, because "could not tell" is never "nothing".
func Losses(s *core.Env, ctx context.Context, t gitx.Worktree) core.Losses {
	var l core.Losses
	if t.Prunable != nil {
		// The directory is gone, but its admin directory is not: what git deletes with it
		// (a detached HEAD, the HEAD reflog, refs/worktree/*) counts; the branch too.
		if err := heldByAdmin(s, ctx, t, &l); err != nil {
			l.Status.Error = core.StatusError(err)
		}
		l.Unique = uniqueOf(s, ctx, t, &l)
		return l
	}
	st, op, err := s.Git.SafetyStatus(ctx, t.Path)
	if err != nil {
		l.Status.Error = core.StatusError(err)
		return l
	}
	l.Status = core.FromGitStatus(st)
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
		l.Status.Error = core.StatusError(err)
		return l
	}
	if t.Detached && t.Head != "" && !core.AllZero(t.Head) {
		if l.Detached, err = s.Git.UnreachableCommits(ctx, t.Path, t.Head); err != nil {
			l.Status.Error = core.StatusError(err)
			return l
		}
	}
	if err = heldCommits(s, ctx, t, &l); err != nil {
		l.Status.Error = core.StatusError(err)
		return l
	}
	l.Unique = uniqueOf(s, ctx, t, &l)
	return l
}
