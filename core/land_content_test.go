package core_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// personsFiles lists every file and directory under the test's base directory with its
// content, except copse's and git's own bookkeeping in the main git directory (a blocked
// land writes its record and event there, a rebase writes objects) and HOME: what a
// person has in the worktrees, the main checkout and nested repositories.
func personsFiles(t *testing.T, r *coretest.Repo) map[string]string {
	t.Helper()
	skip := map[string]bool{filepath.Join(r.Root, ".git"): true, r.Home: true}
	files := map[string]string{}
	err := filepath.WalkDir(r.Base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip[p] {
			return fs.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			files[p] = "-> " + tgt
		case d.IsDir():
			files[p] = "dir"
		case d.Name() == "index" || d.Name() == "ORIG_HEAD":
			// stat caches and the rebase's leftover are not anyone's work
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// state is what a blocked land must leave as it found: the worktree list, every branch,
// and the person's files.
type state struct {
	snap  coretest.Snapshot
	files map[string]string
}

func stateOf(t *testing.T, r *coretest.Repo) state {
	t.Helper()
	return state{r.Snapshot(), personsFiles(t, r)}
}

// unchangedButRecords fails the test if anything but copse's own records changed.
func unchangedButRecords(t *testing.T, r *coretest.Repo, before state) {
	t.Helper()
	after := stateOf(t, r)
	if after.snap.Worktrees != before.snap.Worktrees {
		t.Errorf("worktree list changed:\nbefore:\n%s\nafter:\n%s", before.snap.Worktrees, after.snap.Worktrees)
	}
	if after.snap.Branches != before.snap.Branches {
		t.Errorf("branches changed:\nbefore:\n%s\nafter:\n%s", before.snap.Branches, after.snap.Branches)
	}
	for p, v := range before.files {
		if w, ok := after.files[p]; !ok {
			t.Errorf("%s is gone", p)
		} else if w != v {
			t.Errorf("%s changed: %q, was %q", p, w, v)
		}
	}
	for p := range after.files {
		if _, ok := before.files[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

// mergeMainWithEdit merges main into the branch at w and, inside that merge commit, adds
// file: an "evil merge", a change that exists in no parent.
func mergeMainWithEdit(t *testing.T, r *coretest.Repo, w, file, content string) {
	t.Helper()
	r.Git(w, "merge", "-q", "--no-ff", "--no-commit", "main")
	coretest.WriteFile(t, filepath.Join(w, file), content)
	r.Git(w, "add", "--", file)
	r.Git(w, "commit", "-q", "-m", "merge main, with an edit of its own")
}

func TestLandEvilMergeIsBlockedAndBranchPutBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/evil", "f.txt", "f\n")
	commitOn(t, r, r.Root, "m1.txt", "m1\n")
	mergeMainWithEdit(t, r, w, "resolution.txt", "made inside the merge\n")
	// main moves on, so the land must rebase (and a rebase drops the merge's own change).
	commitOn(t, r, r.Root, "m2.txt", "m2\n")
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/evil")})
	wantCode(t, err, core.KindRefused, "merge_commits")
	if !strings.Contains(err.Error(), "resolution.txt") || !strings.Contains(err.Error(), "merge commits") {
		t.Fatalf("refusal does not name the lost path and the merge: %v", err)
	}
	if out.Land.State != core.LandBlocked || out.Land.Commit != "" {
		t.Fatalf("job %+v", out.Land)
	}
	// Nothing advanced, the branch is back at its own commit, its worktree kept as it was.
	unchangedButRecords(t, r, before)
	if _, err := os.Stat(filepath.Join(w, "resolution.txt")); err != nil {
		t.Fatalf("the merge's change is gone from the worktree: %v", err)
	}
	if st := r.Git(w, "status", "--porcelain"); st != "" {
		t.Fatalf("worktree left dirty: %q", st)
	}

	// Proceeding as the hint says: merge main again; the branch then lands as it is.
	if !strings.Contains(core.AsError(err).Hint, "merge main") {
		t.Fatalf("hint: %s", core.AsError(err).Hint)
	}
	r.Git(w, "merge", "-q", "--no-edit", "main")
	if _, err := land(t, s, core.LandRequest{Branch: core.Str("feat/evil")}); err != nil {
		t.Fatalf("land after merging main again: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(r.Root, "resolution.txt")); err != nil || string(b) != "made inside the merge\n" {
		t.Fatalf("the merge's own change did not land: %q %v", b, err)
	}
}

func TestLandEvilMergeOnTopOfTargetLandsIntact(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/ontop", "f.txt", "f\n")
	commitOn(t, r, r.Root, "m1.txt", "m1\n")
	mergeMainWithEdit(t, r, w, "resolution.txt", "made inside the merge\n")
	tip := r.Git(w, "rev-parse", "HEAD")
	// main has not moved since the merge: nothing is rebased, the merge lands as it is.
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/ontop")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	if out.Land.Commit != tip || r.Git(r.Root, "rev-parse", "main") != tip {
		t.Fatalf("landed %s, main at %s; want the branch's own %s", out.Land.Commit, r.Git(r.Root, "rev-parse", "main"), tip)
	}
	if b, err := os.ReadFile(filepath.Join(r.Root, "resolution.txt")); err != nil || string(b) != "made inside the merge\n" {
		t.Fatalf("the merge's own change did not land: %q %v", b, err)
	}
}

func TestLandBranchThatMergedMainLands(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/sync", "f.txt", "f\n")
	commitOn(t, r, r.Root, "m1.txt", "m1\n")
	r.Git(w, "merge", "-q", "--no-edit", "main") // a plain merge from main, nothing of its own
	commitOn(t, r, w, "g.txt", "g\n")
	m2 := commitOn(t, r, r.Root, "m2.txt", "m2\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/sync")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	main := r.Git(r.Root, "rev-parse", "main")
	if main != out.Land.Commit {
		t.Fatalf("main at %s, want %s", main, out.Land.Commit)
	}
	// The merge of main brought nothing main lacks: it vanishes, and main's own history
	// stays its first-parent line.
	if fp := r.Git(r.Root, "rev-list", "--first-parent", "main"); !strings.Contains(fp, m2) {
		t.Fatalf("main's tip %s is off main's first-parent line:\n%s", m2, fp)
	}
	for _, f := range []string{"f.txt", "g.txt", "m1.txt", "m2.txt"} {
		if _, err := os.Stat(filepath.Join(r.Root, f)); err != nil {
			t.Fatalf("%s missing after the land: %v", f, err)
		}
	}
}

func TestLandKeepsMergeOfSideBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/side", "f.txt", "f\n")
	sideTree := r.AddWorktree("side", filepath.Join(r.Base, "trees", "side"))
	commitOn(t, r, sideTree, "s.txt", "s\n")
	r.Git(w, "merge", "-q", "--no-ff", "--no-edit", "side")
	old := commitOn(t, r, r.Root, "m.txt", "m\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/side")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	// A plain rebase would have flattened the merge; the landed history keeps it.
	if merges := r.Git(r.Root, "rev-list", "--merges", "--count", old+".."+out.Land.Commit); merges != "1" {
		t.Fatalf("%s merge commits landed, want the one the branch had", merges)
	}
	for _, f := range []string{"f.txt", "s.txt", "m.txt"} {
		if _, err := os.Stat(filepath.Join(r.Root, f)); err != nil {
			t.Fatalf("%s missing after the land: %v", f, err)
		}
	}
}

func TestLandUnprovableRebaseBlockedUntilRebasedByHand(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	// The branch edits a line twice; main already has the first edit (cherry-picked).
	w := feature(t, r, "feat/twice", "README.md", "first edit\n")
	first := r.Git(w, "rev-parse", "HEAD")
	commitOn(t, r, w, "README.md", "second edit\n")
	r.Git(r.Root, "cherry-pick", "-x", first) // -x: a commit of its own, not the same object
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/twice")})
	// git's rebase skips the picked commit and goes through, but the branch's change and
	// main's overlap: copse cannot prove what it would land, so it lands nothing.
	wantCode(t, err, core.KindRefused, "land_changed_content")
	unchangedButRecords(t, r, before)
	if got := r.Git(w, "cat-file", "-p", "HEAD:README.md"); got != "second edit" {
		t.Fatalf("branch not put back: README.md is %q", got)
	}
	// The hint: rebase by hand, then land; a branch on top of main needs no proof.
	r.Git(w, "rebase", "-q", "main")
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/twice")})
	if err != nil {
		t.Fatalf("land after rebasing by hand: %v", err)
	}
	if got := r.Git(r.Root, "cat-file", "-p", out.Land.Commit+":README.md"); got != "second edit" {
		t.Fatalf("landed README.md is %q", got)
	}
}

// ignoreInMain commits a .gitignore with patterns on main.
func ignoreInMain(t *testing.T, r *coretest.Repo, patterns string) {
	t.Helper()
	commitOn(t, r, r.Root, ".gitignore", patterns)
}

// featureForced makes a worktree on branch whose one commit adds file even where main
// ignores it (git add -f: a template, a config the branch means to track).
func featureForced(t *testing.T, r *coretest.Repo, branch, file, content string) string {
	t.Helper()
	w := r.AddWorktree(branch, filepath.Join(r.Base, "trees", coretestSlug(branch)))
	coretest.WriteFile(t, filepath.Join(w, file), content)
	r.Git(w, "add", "-f", "--", file)
	r.Git(w, "commit", "-q", "-m", "add "+file)
	return w
}

func TestLandRefusesToOverwriteIgnoredFileInTargetCheckout(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	ignoreInMain(t, r, ".env\n")
	w := featureForced(t, r, "feat/env", ".env", "SECRET=template\n")
	coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=mine\n")
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/env")})
	wantCode(t, err, core.KindRefused, "target_ignored_overlap")
	if !strings.Contains(err.Error(), ".env") || !strings.Contains(core.AsError(err).Hint, "move") {
		t.Fatalf("refusal does not name .env or say how to proceed: %v (%s)", err, core.AsError(err).Hint)
	}
	if out.Land.State != core.LandBlocked {
		t.Fatalf("job %+v", out.Land)
	}
	// The rebase had nothing to do (main did not move), so nothing at all changed:
	// main not advanced, .env still the person's, the worktree kept.
	unchangedButRecords(t, r, before)
	if b, _ := os.ReadFile(filepath.Join(r.Root, ".env")); string(b) != "SECRET=mine\n" {
		t.Fatalf(".env overwritten: %q", b)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatalf("worktree removed after a blocked land: %v", err)
	}

	// Proceeding as told: move it aside, land again.
	if err := os.Rename(filepath.Join(r.Root, ".env"), filepath.Join(r.Base, "env.mine")); err != nil {
		t.Fatal(err)
	}
	if _, err := land(t, s, core.LandRequest{Branch: core.Str("feat/env")}); err != nil {
		t.Fatalf("land after moving .env aside: %v", err)
	}
}

func TestLandIgnoredFileElsewhereInTargetCheckoutIsKept(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	ignoreInMain(t, r, ".env\nbuild/\n")
	feature(t, r, "feat/other", "other.txt", "o\n")
	coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=mine\n")
	coretest.WriteFile(t, filepath.Join(r.Root, "build", "out.bin"), "built\n")
	s := open(t, r, r.Root)
	if _, err := land(t, s, core.LandRequest{Branch: core.Str("feat/other")}); err != nil {
		t.Fatalf("an ignored file away from the incoming paths blocked the land: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Root, ".env")); string(b) != "SECRET=mine\n" {
		t.Fatalf(".env changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Root, "build", "out.bin")); string(b) != "built\n" {
		t.Fatalf("build/out.bin changed: %q", b)
	}
}

func TestLandRefusesToReplaceIgnoredDirectoryWithNestedRepository(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	ignoreInMain(t, r, "cache/\n")
	// The branch tracks a file named cache: syncing main would delete the ignored
	// directory cache/ and the repository inside it (git read-tree does, silently).
	feature(t, r, "feat/cache", "cache", "now a file\n")
	nested := filepath.Join(r.Root, "cache", "lib")
	r.Git(r.Base, "init", "-q", nested)
	commitOn(t, r, nested, "x.txt", "committed only here\n")
	coretest.WriteFile(t, filepath.Join(nested, "wip.txt"), "not committed anywhere\n")
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/cache")})
	wantCode(t, err, core.KindRefused, "target_ignored_overlap")
	if !strings.Contains(err.Error(), "cache/") {
		t.Fatalf("refusal does not name cache/: %v", err)
	}
	unchangedButRecords(t, r, before)
	if got := r.Git(nested, "log", "--format=%s"); got != "change x.txt" {
		t.Fatalf("nested repository's history: %q", got)
	}
}

func TestLandRefusesToWriteIntoUntrackedNestedRepository(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	// git shows an untracked nested repository as one entry, "vendor/lib/"; the branch adds
	// a file inside it, which the sync would write into someone else's repository.
	feature(t, r, "feat/vendor", "vendor/lib/x.txt", "incoming\n")
	nested := filepath.Join(r.Root, "vendor", "lib")
	r.Git(r.Base, "init", "-q", nested)
	commitOn(t, r, nested, "y.txt", "its own\n")
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/vendor")})
	wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	if !strings.Contains(err.Error(), "vendor/lib/") {
		t.Fatalf("refusal does not name vendor/lib/: %v", err)
	}
	unchangedButRecords(t, r, before)
}

func TestLandRefusesRebaseOverIgnoredFileInWorktree(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	ignoreInMain(t, r, ".env\n")
	w := feature(t, r, "feat/copied", "f.txt", "f\n")
	// The worktree has its own ignored .env (copse.copy puts one there); main then tracks
	// a template .env. Checking out main for the rebase would overwrite the worktree's.
	coretest.WriteFile(t, filepath.Join(w, ".env"), "SECRET=agent\n")
	coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=template\n")
	r.Git(r.Root, "add", "-f", ".env")
	r.Git(r.Root, "commit", "-q", "-m", "track a template .env")
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/copied")})
	wantCode(t, err, core.KindRefused, "worktree_ignored_overlap")
	if !strings.Contains(err.Error(), ".env") {
		t.Fatalf("refusal does not name .env: %v", err)
	}
	if out.Land.Rebase != nil || out.Land.Phase != core.PhaseRebase {
		t.Fatalf("a land blocked before its rebase records one, or the wrong phase: %+v", out.Land)
	}
	unchangedButRecords(t, r, before)
}

func TestLandRefusesRebaseThatReplaysOverIgnoredFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	ignoreInMain(t, r, "*.log\n")
	w := feature(t, r, "feat/replay", "f.txt", "f\n")
	// One commit adds a tracked debug.log, the next deletes it: the branch's tip has none,
	// but replaying the first commit writes one over the ignored debug.log there.
	coretest.WriteFile(t, filepath.Join(w, "debug.log"), "committed once\n")
	r.Git(w, "add", "-f", "debug.log")
	r.Git(w, "commit", "-q", "-m", "add a log")
	r.Git(w, "rm", "-q", "debug.log")
	r.Git(w, "commit", "-q", "-m", "drop it")
	coretest.WriteFile(t, filepath.Join(w, "debug.log"), "the agent's own log\n")
	commitOn(t, r, r.Root, "m.txt", "m\n") // main moves: the commits are replayed
	s := open(t, r, r.Root)
	before := stateOf(t, r)
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/replay")})
	wantCode(t, err, core.KindRefused, "worktree_ignored_overlap")
	unchangedButRecords(t, r, before)
}
