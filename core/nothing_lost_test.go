package core_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The cases of "what would be lost" that hide where git's own commands do not look: a
// long HEAD reflog, submodules whose repository lies elsewhere or was never initialised,
// a submodule's own HEAD reflog, the admin directory of a worktree whose checkout is gone,
// the ignored files a remove deletes, and the originals a land's rebase replaced.

// manyKeptCommits makes n commits on branch "many" in one fast-import (each kept by the
// branch) and returns them, oldest first.
func manyKeptCommits(t *testing.T, r *coretest.Repo, n int) []string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "commit refs/heads/many\ncommitter t <t@x> %d +0000\ndata 2\nc\n", 1000+i)
		if i == 0 {
			b.WriteString("from refs/heads/main\n")
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "-C", r.Root, "fast-import", "--quiet")
	cmd.Env = append(os.Environ(), coretest.Env(r.Home)...)
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	all := strings.Fields(r.Git(r.Root, "rev-list", "--reverse", "main..many"))
	if len(all) != n {
		t.Fatalf("fast-import made %d commits, want %d", len(all), n)
	}
	return all
}

// A commit only the oldest entry of a long HEAD reflog names is lost like any other:
// the reflog is read whole (it was cut to its newest 4000 commits, so this one was not
// seen and the remove went ahead).
func TestRemoveRefusesCommitOnlyAnOldReflogEntryHolds(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	lost := detachedCommit(r, wt, "feat")
	kept := manyKeptCommits(t, r, 4100)
	logFile := filepath.Join(r.Root, ".git", "worktrees", "feat", "logs", "HEAD")
	old, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(old)
	prev := r.Git(wt, "rev-parse", "HEAD")
	for i, c := range kept {
		fmt.Fprintf(&b, "%s %s t <t@x> %d +0000\tcheckout: moving\n", prev, c, 2000+i)
		prev = c
	}
	fmt.Fprintf(&b, "%s %s t <t@x> 9000 +0000\tcheckout: moving to feat\n", prev, r.Git(wt, "rev-parse", "HEAD"))
	if err := os.WriteFile(logFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(old), lost) {
		t.Fatalf("precondition: the reflog does not name %s", lost)
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "worktree_only_commits")
	r.Unchanged(before)
}

// The ignored files a remove deletes are named before (its dry run, its confirmation) and
// after (its result), as prune's report and land's clean-up name them; they refuse nothing.
func TestRemoveDryRunAndResultNameIgnoredFiles(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, ".gitignore"), "*.env\n")
	r.Git(wt, "add", ".gitignore")
	r.Git(wt, "commit", "-q", "-m", "ignore env")
	coretest.WriteFile(t, filepath.Join(wt, "local.env"), "SECRET=1\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt)})
	if err != nil {
		t.Fatal(err)
	}
	dry := s.DryRun(p)
	if n := strings.Join(dry.Notices, "\n"); !strings.Contains(n, "deletes 1 ignored file: local.env") {
		t.Errorf("the dry run does not name the ignored file: %q", dry.Notices)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "1 ignored file will be deleted: local.env") {
		t.Errorf("the confirmation does not name the ignored file: %q", line)
	}
	r.Unchanged(before)
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(out.Notices, "\n"); !strings.Contains(n, "deleted with it: 1 ignored file: local.env") {
		t.Errorf("the result does not name the ignored file it deleted: %q", out.Notices)
	}
}

// A submodule whose repository lies outside the worktree (a .git file pointing elsewhere,
// as clone --separate-git-dir leaves it) keeps its commits when the worktree goes, but
// its uncommitted changes are files of the worktree: a forced remove cannot record them,
// so it refuses (not_recordable) and changes nothing, instead of deleting them while
// saying "undo with copse restore".
func TestForcedRemoveRefusesChangesOfSubmoduleWhoseRepositoryIsElsewhere(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	sub := withSubmodule(r, wt)
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(r.Base, "elsewhere.git")
	r.Git(r.Base, "clone", "-q", "--separate-git-dir="+elsewhere, filepath.Join(r.Base, "subsrc"), sub)
	if got := r.Git(sub, "rev-parse", "--absolute-git-dir"); got != elsewhere {
		t.Fatalf("precondition: the submodule's repository is %s, want %s", got, elsewhere)
	}
	coretest.WriteFile(t, filepath.Join(sub, "draft.txt"), "uncommitted\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindRefused, "not_recordable")
	if e := core.AsError(err); !strings.Contains(e.Message, "submodule sub (1 uncommitted change") {
		t.Errorf("the refusal does not name the submodule and its change: %s", e.Message)
	}
	r.Unchanged(before)
	if got := r.Git(r.Root, "for-each-ref", "refs/copse/"); got != "" {
		t.Errorf("a refused remove left a record: %s", got)
	}
	if _, err := os.Stat(filepath.Join(sub, "draft.txt")); err != nil {
		t.Errorf("the submodule's change is gone: %v", err)
	}
}

// A commit only a submodule's own HEAD reflog holds (git submodule update left its HEAD
// detached, a commit was made there, then reset away) goes with the submodule's git
// directory: remove refuses, prune keeps, the forced confirmation names it, and the
// record keeps it.
func TestSubmoduleReflogOnlyCommitIsNamedAndRecorded(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	sub := withSubmodule(r, wt)
	r.Git(sub, "commit", "-q", "--allow-empty", "-m", "detached work")
	lost := r.Git(sub, "rev-parse", "HEAD")
	r.Git(sub, "reset", "-q", "--hard", "HEAD~1")
	if out := r.Git(wt, "status", "--porcelain", "--ignore-submodules=none"); out != "" {
		t.Fatalf("precondition: the worktree should be clean, git status says %q", out)
	}
	age(t, r, "feat", 100*time.Hour)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "submodule_unpushed")
	if e := core.AsError(err); !strings.Contains(e.Message, "sub (1 commit only its HEAD reflog holds)") {
		t.Errorf("the refusal does not name the submodule's reflog commit: %s", e.Message)
	}
	dry, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(dry.Prune)["feat"]; got != "kept:submodule" {
		t.Errorf("prune: feat is %q, want kept:submodule", got)
	}
	r.Unchanged(before)

	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "sub (1 commit only its HEAD reflog holds)") {
		t.Errorf("the forced confirmation does not name it: %q", line)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", lost, "refs/copse/removed/"+out.RestoreID); err != nil {
		t.Errorf("the record does not keep the submodule's reflog commit %s: %v", lost, err)
	}
}

// withUninitialisedSubmodule brings the worktree's branch to a commit with a submodule
// "sub" it never initialises: git checks out an empty directory there and never looks
// into it again.
func withUninitialisedSubmodule(r *coretest.Repo, wt string) string {
	src := filepath.Join(r.Base, "subsrc")
	r.Git(r.Base, "init", "-q", "-b", "main", src)
	r.Git(src, "commit", "-q", "--allow-empty", "-m", "s1")
	r.Git(r.Root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
	r.Git(r.Root, "commit", "-q", "-m", "add sub")
	r.Git(wt, "merge", "-q", "--ff-only", "main")
	return filepath.Join(wt, "sub")
}

// Files in the directory of a submodule nobody initialised are untracked work git status
// does not show: remove refuses (and a forced one, which cannot record them, refuses as
// not_recordable), prune keeps the worktree, land refuses; nothing changes.
func TestUninitialisedSubmoduleFilesAreUntrackedWork(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	sub := withUninitialisedSubmodule(r, wt)
	coretest.WriteFile(t, filepath.Join(sub, "notes.txt"), "mine\n")
	if out := r.Git(wt, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=none"); out != "" {
		t.Fatalf("precondition: git status should not see the file, says %q", out)
	}
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "unlanded")
	age(t, r, "feat", 100*time.Hour)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "dirty_worktree")
	if e := core.AsError(err); !strings.Contains(e.Message, "1 untracked") || !strings.Contains(e.Message, "sub (1 file)") {
		t.Errorf("the refusal does not name the file's directory: %s", e.Message)
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindRefused, "not_recordable")
	if e := core.AsError(err); !strings.Contains(e.Message, "uninitialised submodule directory sub (1 file)") {
		t.Errorf("the forced refusal does not name the directory: %s", e.Message)
	}
	dry, err := do(t, s, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(dry.Prune)["feat"]; got != "kept:dirty" {
		t.Errorf("prune: feat is %q, want kept:dirty", got)
	}
	_, err = land(t, s, core.LandRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, "worktree_dirty")
	r.Unchanged(before)
	if got := r.Git(r.Root, "for-each-ref", "refs/copse/"); got != "" {
		t.Errorf("a refusal left a record: %s", got)
	}
}

// goneWithCommits makes a worktree whose admin directory holds three commits nothing
// else does (one only its HEAD reflog names, one refs/worktree/keep, one its detached
// HEAD), then moves its checkout away by hand: git lists it as prunable. It returns the
// worktree's path and the three commits.
func goneWithCommits(t *testing.T, r *coretest.Repo) (string, map[string]string) {
	t.Helper()
	wt := r.AddWorktree("feat", "feat")
	held := map[string]string{"reflog": detachedCommit(r, wt, "feat"), "per-worktree ref": worktreeRefCommit(r, wt)}
	r.Git(wt, "checkout", "-q", "--detach")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "detached work")
	held["detached HEAD"] = r.Git(wt, "rev-parse", "HEAD")
	moveByHand(t, r, wt)
	return wt, held
}

// A worktree whose checkout is gone (moved by hand, a drive not mounted) still has its
// admin directory, with the commits only it held: remove refuses without --force and
// changes nothing; a forced remove records them first.
func TestRemoveOfGoneWorktreeKeepsItsAdminDirectorysCommits(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt, held := goneWithCommits(t, r)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "detached_unique_commits")
	if e := core.AsError(err); !strings.Contains(e.Hint, "its directory is gone") {
		t.Errorf("the hint should not send the user to a directory that is gone: %s", e.Hint)
	}
	r.Unchanged(before)

	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	line := p.Confirm.Line()
	for _, want := range []string{"1 commit on no branch, tag or remote will be lost (detached at", "only the worktree's HEAD reflog holds", "refs/worktree/keep"} {
		if !strings.Contains(line, want) {
			t.Errorf("the forced confirmation does not name %q: %s", want, line)
		}
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if out.RestoreID == "" {
		t.Fatal("the forced remove of a gone worktree holding commits made no record")
	}
	for what, c := range held {
		if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", c, "refs/copse/removed/"+out.RestoreID); err != nil {
			t.Errorf("the record does not keep the %s commit %s: %v", what, c, err)
		}
	}
	// The record brings it back: each kept commit gets a ref of its own, refs/worktree/keep
	// comes back in the restored worktree.
	if _, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)}); err != nil {
		t.Fatalf("restore of the gone worktree's record: %v", err)
	}
	kept := r.Git(r.Root, "for-each-ref", "--format=%(objectname)", "refs/copse/kept/"+out.RestoreID+"/")
	for what, c := range held {
		if !strings.Contains(kept, c) {
			t.Errorf("after restore no kept ref holds the %s commit %s:\n%s", what, c, kept)
		}
	}
	if got := r.Git(wt, "rev-parse", "refs/worktree/keep"); got != held["per-worktree ref"] {
		t.Errorf("refs/worktree/keep came back at %q, want %s", got, held["per-worktree ref"])
	}
}

// Prune forgets a worktree whose checkout is gone only after recording the commits its
// admin directory held (it no longer runs `git worktree prune`, which drops them all); its
// dry run says so and changes nothing.
func TestPruneRecordsWhatAGoneWorktreeHeldBeforeForgettingIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt, held := goneWithCommits(t, r)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	dry, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Unchanged(before)
	if len(dry.Prune.Forgotten) != 1 || !strings.Contains(dry.Prune.Forgotten[0].Detail, "recorded first: it holds 3 commits only it held") {
		t.Fatalf("dry run: %+v", dry.Prune)
	}
	p, err := s.Prepare(context.Background(), core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "recorded first: it holds 3 commits only it held (detached HEAD, HEAD reflog, refs/worktree/keep)") {
		t.Errorf("the confirmation does not say what is recorded: %s", line)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Forgotten) != 1 || out.Prune.Forgotten[0].Path != wt || out.Prune.Forgotten[0].RestoreID == "" {
		t.Fatalf("prune: %+v", out.Prune)
	}
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); strings.Contains(wl, wt+"\n") {
		t.Errorf("still listed:\n%s", wl)
	}
	for what, c := range held {
		if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", c, "refs/copse/removed/"+out.Prune.Forgotten[0].RestoreID); err != nil {
			t.Errorf("the record does not keep the %s commit %s: %v", what, c, err)
		}
	}
}

// A land whose rebase rewrote the branch leaves the originals in the worktree's HEAD
// reflog. They are not lost work: the land's record proves their copies landed. With
// more originals than the change-by-change comparison covers (33), the clean-up kept the
// worktree for "33 commits only its HEAD reflog holds"; now it removes (and records) it,
// and a later remove of a kept one is not refused for them either.
func TestLandedOriginalsOfARewritingLandAreNotLost(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			r := coretest.New(t)
			w := r.AddWorktree("feat/long", filepath.Join(r.Base, "trees", "long"))
			for i := range 33 {
				commitOn(t, r, w, fmt.Sprintf("f%02d.txt", i), "work\n")
			}
			commitOn(t, r, r.Root, "m.txt", "main moved on\n") // so the land's rebase makes copies
			s := open(t, r, r.Root)
			out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/long"), Keep: keep})
			if err != nil {
				t.Fatal(err)
			}
			j := out.Land
			if j.State != core.LandLanded || j.Attempts != 1 {
				t.Fatalf("not landed in one rebase: %+v", j)
			}
			if !keep {
				if _, err := os.Stat(w); !os.IsNotExist(err) || !j.Removed {
					t.Fatalf("the clean-up kept the landed worktree: %v, warnings %q", err, j.Warnings)
				}
				return
			}
			// A commit made after the land is no original: it still counts, alone.
			extra := detachedCommit(r, w, "feat/long")
			before := r.Snapshot()
			_, err = do(t, s, core.RemoveRequest{Path: core.Str(w)})
			wantCode(t, err, core.KindRefused, "worktree_only_commits")
			if e := core.AsError(err); !strings.Contains(e.Message, "has 1 commit only its HEAD reflog holds") {
				t.Errorf("the refusal should count the one commit made after the land: %s", e.Message)
			}
			r.Unchanged(before)
			r.Git(w, "branch", "saved", extra)
			if _, err := do(t, s, core.RemoveRequest{Path: core.Str(w)}); err != nil {
				t.Fatalf("remove refused a landed worktree for the originals its land replaced: %v", err)
			}
		})
	}
}

// A submodule's own submodule keeps its git directory inside the outer one's, which goes
// with the worktree: its commits on no remote count too, named by their whole path, and
// the record keeps them.
func TestSubmoduleOfASubmoduleIsReadToo(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	inner := filepath.Join(r.Base, "innersrc")
	r.Git(r.Base, "init", "-q", "-b", "main", inner)
	r.Git(inner, "commit", "-q", "--allow-empty", "-m", "i1")
	outer := filepath.Join(r.Base, "subsrc")
	r.Git(r.Base, "init", "-q", "-b", "main", outer)
	r.Git(outer, "commit", "-q", "--allow-empty", "-m", "s1")
	r.Git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "inner")
	r.Git(outer, "commit", "-q", "-m", "add inner")
	r.Git(r.Root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", outer, "sub")
	r.Git(r.Root, "commit", "-q", "-m", "add sub")
	r.Git(wt, "merge", "-q", "--ff-only", "main")
	r.Git(wt, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q")
	lost := submoduleCommit(r, filepath.Join(wt, "sub", "inner"))
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "submodule_unpushed")
	if e := core.AsError(err); !strings.Contains(e.Message, "sub/inner (1 commit on no remote)") {
		t.Errorf("the refusal does not name the inner submodule: %s", e.Message)
	}
	r.Unchanged(before)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", lost, "refs/copse/removed/"+out.RestoreID); err != nil {
		t.Errorf("the record does not keep the inner submodule's commit %s: %v", lost, err)
	}
}

// "Could not tell" is never "nothing": a gone worktree whose admin directory cannot be
// read (a per-worktree ref file that names no commit) is kept by prune and refused by
// remove, --force included (the record cannot read it either: no record, no remove).
func TestGoneWorktreeWhoseAdminDirectoryCannotBeReadIsKept(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat") // holding nothing but what cannot be read
	coretest.WriteFile(t, filepath.Join(r.Root, ".git", "worktrees", "feat", "refs", "worktree", "broken"), "not a commit\n")
	moveByHand(t, r, wt)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "status_unknown")
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindFailed, "snapshot_failed")
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(out.Prune)["feat"]; got != "kept:status_unknown" {
		t.Errorf("prune: feat is %q, want kept:status_unknown", got)
	}
	r.Unchanged(before)
}

// A nested repository's own HEAD reflog goes with it: a commit reset away there counts
// (named in the refusal) and the forced remove's record keeps it.
func TestNestedRepositoryReflogOnlyCommitIsRecorded(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	nestedWithCommit(r, wt)
	lib := filepath.Join(wt, "deps", "lib")
	r.Git(lib, "commit", "-q", "--allow-empty", "-m", "reset away")
	lost := r.Git(lib, "rev-parse", "HEAD")
	r.Git(lib, "reset", "-q", "--hard", "HEAD~1")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "nested_repository")
	if e := core.AsError(err); !strings.Contains(e.Message, "1 commit only its HEAD reflog holds") {
		t.Errorf("the refusal does not name the reflog commit: %s", e.Message)
	}
	r.Unchanged(before)
	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", lost, "refs/copse/removed/"+out.RestoreID); err != nil {
		t.Errorf("the record does not keep the nested repository's reflog commit %s: %v", lost, err)
	}
}

// goneWithSubmodule makes a worktree "feat" with a submodule "sub" (its repository in the
// worktree's admin directory, modules/sub), gives that repository a commit its remote
// lacks when unpushed, and moves the checkout away by hand.
func goneWithSubmodule(t *testing.T, r *coretest.Repo, unpushed bool) (wt, commit string) {
	t.Helper()
	wt = r.AddWorktree("feat", "feat")
	sub := withSubmodule(r, wt)
	if unpushed {
		commit = submoduleCommit(r, sub)
	}
	moveByHand(t, r, wt)
	return wt, commit
}

// The admin directory of a worktree whose checkout is gone keeps its submodules'
// repositories (modules/…), which git deletes with it. One holding a commit on no remote
// keeps the worktree: prune does not forget it, remove refuses, and a forced remove,
// which cannot record a repository whose checkout is gone, refuses too; nothing changes.
func TestGoneWorktreeWithAnUnpushedSubmoduleRepositoryIsKept(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt, commit := goneWithSubmodule(t, r, true)
	modules := filepath.Join(r.Root, ".git", "worktrees", "feat", "modules", "sub")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(out.Prune)["feat"]; got != "kept:submodule" {
		t.Errorf("prune: feat is %q, want kept:submodule (%+v)", got, out.Prune)
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "submodule_unpushed")
	if e := core.AsError(err); !strings.Contains(e.Message, "sub (1 commit on no remote)") || !strings.Contains(e.Hint, "its directory is gone") {
		t.Errorf("the refusal does not name the submodule or the way out: %s / %s", e.Message, e.Hint)
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindRefused, "not_recordable")
	r.Unchanged(before)
	if _, err := r.TryGit(r.Root, "--git-dir="+modules, "--work-tree="+modules, "cat-file", "-e", commit); err != nil {
		t.Errorf("the submodule's commit %s is gone from %s: %v", commit, modules, err)
	}
}

// A gone worktree whose submodule repositories hold nothing their remotes lack is
// forgotten as before: the check keeps only what would be lost.
func TestGoneWorktreeWithPushedSubmodulesIsForgotten(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt, _ := goneWithSubmodule(t, r, false)
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(out.Prune)["feat"]; got != "forgotten:directory_gone" {
		t.Errorf("prune: feat is %q, want forgotten:directory_gone (%+v)", got, out.Prune)
	}
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); strings.Contains(wl, wt+"\n") {
		t.Errorf("still listed:\n%s", wl)
	}
}

// A commit both the HEAD reflog and a per-worktree ref of a gone worktree hold is one
// commit: prune says it holds 1, not 2 (the sum of the two counts).
func TestGoneWorktreeCountsACommitItsReflogAndARefBothHoldOnce(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	c := detachedCommit(r, wt, "feat")
	r.Git(wt, "update-ref", "refs/worktree/keep", c)
	moveByHand(t, r, wt)
	s := open(t, r, r.Root)
	dry, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Prune.Forgotten) != 1 || !strings.Contains(dry.Prune.Forgotten[0].Detail, "recorded first: it holds 1 commit only it held (HEAD reflog, refs/worktree/keep)") {
		t.Fatalf("dry run: %+v", dry.Prune)
	}
}

// The index in a gone worktree's admin directory may hold a staged version of a file no
// commit has (staged, then edited again, then the checkout moved away): git deletes it
// with the admin directory, and a record of a gone worktree keeps commits only. Prune
// keeps the worktree, remove refuses, a forced remove refuses as not_recordable; nothing
// changes. A gone worktree whose index matches its HEAD is forgotten as before.
func TestGoneWorktreeWhoseIndexHoldsStagedChangesIsKept(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	clean := r.AddWorktree("other", "other")
	coretest.WriteFile(t, filepath.Join(wt, "staged.txt"), "the staged version\n")
	r.Git(wt, "add", "staged.txt")
	coretest.WriteFile(t, filepath.Join(wt, "staged.txt"), "edited after staging\n")
	for _, p := range []string{wt, clean} {
		moveByHand(t, r, p)
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	dry, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	got := reasons(dry.Prune)
	if got["feat"] != "kept:dirty" || got["other"] != "forgotten:directory_gone" {
		t.Errorf("prune: feat is %q (want kept:dirty), other %q (want forgotten:directory_gone)", got["feat"], got["other"])
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "dirty_worktree")
	if e := core.AsError(err); !strings.Contains(e.Message, "1 staged change") || !strings.Contains(e.Hint, "its directory is gone") {
		t.Errorf("the refusal does not say what is staged or the way out: %s / %s", e.Message, e.Hint)
	}
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	wantCode(t, err, core.KindRefused, "not_recordable")
	r.Unchanged(before)
}

// moveByHand moves the checkout wt away as a person would (mv), which makes git call the
// worktree prunable: its admin directory stays with whatever only it holds.
func moveByHand(t *testing.T, r *coretest.Repo, wt string) {
	t.Helper()
	if err := os.Rename(wt, wt+"-moved-by-hand"); err != nil {
		t.Fatal(err)
	}
	if wl := r.Git(r.Root, "worktree", "list", "--porcelain"); !strings.Contains(wl, "prunable") {
		t.Fatalf("precondition: git should list the worktree as prunable:\n%s", wl)
	}
}
