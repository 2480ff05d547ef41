package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/testexec"
)

// heldCase is one kind of work a worktree holds that git deletes with it and that a plain
// `git status` does not show. Remove refuses it (code, naming says), prune keeps it
// (prune is the reason), from the same answer.
type heldCase struct {
	name  string
	setup func(r *coretest.Repo, wt string)
	code  string
	says  string
	prune string
	loss  string // in the forced remove's confirmation
}

// detachedCommit makes a commit in wt off a detached HEAD and goes back to the branch:
// only the worktree's HEAD reflog still names it. It returns the commit.
func detachedCommit(r *coretest.Repo, wt, branch string) string {
	r.Git(wt, "checkout", "-q", "--detach")
	coretest.WriteFile(r.T, filepath.Join(wt, "lost.txt"), "only in the reflog\n")
	r.Git(wt, "add", "lost.txt")
	r.Git(wt, "commit", "-q", "-m", "reflog only")
	c := r.Git(wt, "rev-parse", "HEAD")
	r.Git(wt, "checkout", "-q", branch)
	return c
}

// worktreeRefCommit makes a commit no branch holds and points refs/worktree/keep at it.
func worktreeRefCommit(r *coretest.Repo, wt string) string {
	c := r.Git(wt, "commit-tree", "-p", "HEAD", "-m", "kept by a per-worktree ref", "HEAD^{tree}")
	r.Git(wt, "update-ref", "refs/worktree/keep", c)
	return c
}

// withSubmodule adds a submodule "sub" on main, brings the worktree's branch to it and
// initialises it there: its repository lives in <common>/worktrees/<id>/modules/sub.
func withSubmodule(r *coretest.Repo, wt string) string {
	src := filepath.Join(r.Base, "subsrc")
	r.Git(r.Base, "init", "-q", "-b", "main", src)
	r.Git(src, "commit", "-q", "--allow-empty", "-m", "s1")
	r.Git(r.Root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
	r.Git(r.Root, "commit", "-q", "-m", "add sub")
	r.Git(wt, "merge", "-q", "--ff-only", "main")
	r.Git(wt, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
	return filepath.Join(wt, "sub")
}

// submoduleCommit makes, in the worktree's submodule, a branch with a commit its remote
// lacks, without moving the submodule's HEAD (the worktree stays clean).
func submoduleCommit(r *coretest.Repo, sub string) string {
	c := r.Git(sub, "commit-tree", "-p", "HEAD", "-m", "only here", "HEAD^{tree}")
	r.Git(sub, "update-ref", "refs/heads/side", c)
	return c
}

// nestedWithCommit makes an ignored nested repository deps/lib holding a commit of its own.
func nestedWithCommit(r *coretest.Repo, wt string) string {
	coretest.WriteFile(r.T, filepath.Join(wt, ".gitignore"), "deps/\n")
	r.Git(wt, "add", ".gitignore")
	r.Git(wt, "commit", "-q", "-m", "ignore deps")
	r.Git(r.Root, "merge", "-q", "--ff-only", "feat") // the branch holds nothing unique
	lib := filepath.Join(wt, "deps", "lib")
	r.Git(r.Base, "init", "-q", lib)
	coretest.WriteFile(r.T, filepath.Join(lib, "x"), "x\n")
	r.Git(lib, "add", "x")
	r.Git(lib, "commit", "-q", "-m", "nested work")
	return r.Git(lib, "rev-parse", "HEAD")
}

func heldCases() []heldCase {
	return []heldCase{
		{
			name:  "commit only the HEAD reflog holds",
			setup: func(r *coretest.Repo, wt string) { detachedCommit(r, wt, "feat") },
			code:  "worktree_only_commits", says: "1 commit only its HEAD reflog holds", prune: "unique_commits",
			loss: "1 commit only the worktree's HEAD reflog holds will be lost",
		},
		{
			name:  "commit only a per-worktree ref holds",
			setup: func(r *coretest.Repo, wt string) { worktreeRefCommit(r, wt) },
			code:  "worktree_only_commits", says: "refs/worktree/keep", prune: "unique_commits",
			loss: "only per-worktree refs hold will be lost: refs/worktree/keep",
		},
		{
			name:  "submodule with a commit on no remote",
			setup: func(r *coretest.Repo, wt string) { submoduleCommit(r, withSubmodule(r, wt)) },
			code:  "submodule_unpushed", says: "sub (1 commit on no remote)", prune: "submodule",
			loss: "1 submodule whose git directory goes with the worktree will be lost: sub (1 commit on no remote)",
		},
		{
			name: "submodule with uncommitted changes",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(withSubmodule(r, wt), "new"), "x\n")
			},
			code: "dirty_worktree", says: "1 unstaged", prune: "dirty",
		},
		{
			name: "submodule change hidden by submodule.<name>.ignore=all",
			setup: func(r *coretest.Repo, wt string) {
				coretest.WriteFile(r.T, filepath.Join(withSubmodule(r, wt), "new"), "x\n")
				r.Git(r.Root, "config", "submodule.sub.ignore", "all")
				if out := r.Git(wt, "status", "--porcelain"); out != "" {
					r.T.Fatalf("precondition: git status should hide the submodule's change, says %q", out)
				}
			},
			code: "dirty_worktree", says: "1 unstaged", prune: "dirty",
		},
		{
			name:  "ignored nested repository with a commit of its own",
			setup: func(r *coretest.Repo, wt string) { nestedWithCommit(r, wt) },
			code:  "nested_repository", says: "deps/lib/ (1 commit on no remote)", prune: "nested",
			loss: "1 nested repository will be deleted: deps/lib/ (1 commit on no remote)",
		},
		{
			name: "nested worktree of another repository with an uncommitted change",
			setup: func(r *coretest.Repo, wt string) {
				other := filepath.Join(r.Base, "other")
				r.Git(r.Base, "init", "-q", "-b", "main", other)
				r.Git(other, "commit", "-q", "--allow-empty", "-m", "o")
				r.Git(other, "worktree", "add", "-q", "-b", "x", filepath.Join(wt, "ext"))
				coretest.WriteFile(r.T, filepath.Join(wt, "ext", "draft"), "mine\n")
			},
			code: "nested_repository", says: "ext/ (1 uncommitted change", prune: "nested",
		},
		{
			name: "change a file-system monitor hides",
			setup: func(r *coretest.Repo, wt string) {
				// A monitor that always answers "nothing changed": git status trusts it.
				hook := filepath.Join(r.Base, "fsmonitor")
				if err := testexec.WriteFile(hook, []byte("#!/bin/sh\nprintf 'token\\0'\n"), 0o755); err != nil {
					r.T.Fatal(err)
				}
				r.Git(r.Root, "config", "core.fsmonitor", hook)
				r.Git(r.Root, "config", "core.fsmonitorHookVersion", "2")
				r.Git(wt, "status", "--porcelain") // writes the monitor's token into the index
				coretest.WriteFile(r.T, filepath.Join(wt, "README.md"), "changed under the monitor\n")
				if out := r.Git(wt, "status", "--porcelain"); out != "" {
					r.T.Skipf("this git does not trust the monitor (status says %q): nothing hidden to test", out)
				}
			},
			code: "dirty_worktree", says: "1 unstaged", prune: "dirty",
		},
		{
			name: "assume-unchanged file edited",
			setup: func(r *coretest.Repo, wt string) {
				r.Git(wt, "update-index", "--assume-unchanged", "README.md")
				coretest.WriteFile(r.T, filepath.Join(wt, "README.md"), "local secret\n")
			},
			code: "dirty_worktree", says: "README.md", prune: "dirty",
		},
		{
			name: "untracked file hidden by status.showUntrackedFiles=no",
			setup: func(r *coretest.Repo, wt string) {
				r.Git(r.Root, "config", "status.showUntrackedFiles", "no")
				coretest.WriteFile(r.T, filepath.Join(wt, "notes.txt"), "mine")
			},
			code: "dirty_worktree", says: "1 untracked", prune: "dirty",
		},
	}
}

func TestRemoveRefusesWhatOnlyTheWorktreeHolds(t *testing.T) {
	t.Parallel()
	for _, tc := range heldCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := coretest.New(t)
			wt := r.AddWorktree("feat", "feat")
			tc.setup(r, wt)
			s := open(t, r, r.Root)
			before := r.Snapshot()
			_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
			wantCode(t, err, core.KindRefused, tc.code)
			if e := core.AsError(err); !strings.Contains(e.Message, tc.says) || !e.ForceHelps {
				t.Errorf("refusal %q does not say %q (or --force would not help: %v)", e.Message, tc.says, e.ForceHelps)
			}
			r.Unchanged(before)
			if tc.loss == "" {
				return
			}
			p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt), Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if line := p.Confirm.Line(); !strings.Contains(line, tc.loss) {
				t.Errorf("forced confirmation %q does not name %q", line, tc.loss)
			}
		})
	}
}

// Prune keeps each of them with its reason, and its dry run reports exactly what a real
// run keeps; neither changes anything.
func TestPruneKeepsWhatOnlyTheWorktreeHolds(t *testing.T) {
	t.Parallel()
	for _, tc := range heldCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := coretest.New(t)
			wt := r.AddWorktree("feat", "feat")
			tc.setup(r, wt)
			age(t, r, "feat", 100*time.Hour)
			s := open(t, r, r.Root)
			before := r.Snapshot()
			dry, err := do(t, s, core.PruneRequest{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := reasons(dry.Prune)["feat"]; got != "kept:"+tc.prune {
				t.Fatalf("dry run: feat is %q, want kept:%s (%+v)", got, tc.prune, dry.Prune.Kept)
			}
			real, err := do(t, s, core.PruneRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := reasons(real.Prune), reasons(dry.Prune); !sameMap(got, want) {
				t.Errorf("real run %v, dry run %v", got, want)
			}
			for _, e := range real.Prune.Kept {
				if filepath.Base(e.Path) == "feat" && e.Detail == "" {
					t.Error("kept without saying why")
				}
			}
			r.Unchanged(before)
		})
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A branch rebased in its worktree leaves the old commits in the HEAD reflog; their
// changes are on the branch, so nothing is lost and prune and remove go ahead.
func TestRebasedAwayCommitsAreNotLosses(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, "f.txt"), "feature\n")
	r.Git(wt, "add", "f.txt")
	r.Git(wt, "commit", "-q", "-m", "feature")
	r.Write("other.txt", "main moved\n")
	r.Git(r.Root, "add", "other.txt")
	r.Git(r.Root, "commit", "-q", "-m", "main moved")
	r.Git(wt, "rebase", "-q", "main")
	r.Git(r.Root, "merge", "-q", "--ff-only", "feat")
	age(t, r, "feat", 100*time.Hour)
	s := open(t, r, r.Root)
	dry, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(dry.Prune)["feat"]; got != "removed:idle" {
		t.Fatalf("feat is %q, want removed:idle (%+v)", got, dry.Prune.Kept)
	}
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)}); err != nil {
		t.Fatalf("remove refused a worktree whose reflog holds only rebased-away commits: %v", err)
	}
}

// A forced remove records the commits only the worktree held as parts of its record, and
// restore gives each a ref (and puts refs/worktree/* back); a forced remove of what it
// cannot record is refused, changing nothing.
func TestForcedRemoveRecordsCommitsOnlyTheWorktreeHeld(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	reflog := detachedCommit(r, wt, "feat")
	wref := worktreeRefCommit(r, wt)
	subCommit := submoduleCommit(r, withSubmodule(r, wt))
	r.Git(r.Root, "merge", "-q", "--ff-only", "feat")
	lib := filepath.Join(wt, "deps", "lib")
	r.Git(r.Base, "init", "-q", lib)
	r.Git(lib, "commit", "-q", "--allow-empty", "-m", "nested work")
	nested := r.Git(lib, "rev-parse", "HEAD")
	s := open(t, r, r.Root)

	out, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(wt); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
	record := "refs/copse/removed/" + out.RestoreID
	for name, c := range map[string]string{"reflog": reflog, "per-worktree ref": wref, "submodule": subCommit, "nested": nested} {
		if _, err := r.TryGit(r.Root, "merge-base", "--is-ancestor", c, record); err != nil {
			t.Errorf("the %s commit %s is not kept by the record: %v", name, c, err)
		}
	}
	back, err := do(t, s, core.RestoreRequest{ID: core.Str(out.RestoreID)})
	if err != nil {
		t.Fatal(err)
	}
	kept := r.Git(r.Root, "for-each-ref", "--format=%(objectname)", "refs/copse/kept/"+out.RestoreID+"/")
	for name, c := range map[string]string{"reflog": reflog, "per-worktree ref": wref, "submodule": subCommit, "nested": nested} {
		if !strings.Contains(kept, c) {
			t.Errorf("after restore no kept ref holds the %s commit %s:\n%s", name, c, kept)
		}
	}
	if got := r.Git(wt, "rev-parse", "refs/worktree/keep"); got != wref {
		t.Errorf("refs/worktree/keep came back at %q, want %s", got, wref)
	}
	if w := strings.Join(back.Warnings, "\n"); !strings.Contains(w, "refs/copse/kept/"+out.RestoreID+"/") {
		t.Errorf("restore does not say where the kept commits are: %q", back.Warnings)
	}
}

func TestForcedRemoveRefusesWhatItCannotRecord(t *testing.T) {
	t.Parallel()
	for name, setup := range map[string]func(r *coretest.Repo, wt string){
		"submodule": func(r *coretest.Repo, wt string) {
			coretest.WriteFile(r.T, filepath.Join(withSubmodule(r, wt), "new"), "x\n")
		},
		"nested repository": func(r *coretest.Repo, wt string) {
			lib := filepath.Join(wt, "deps", "lib")
			r.Git(r.Base, "init", "-q", lib)
			coretest.WriteFile(r.T, filepath.Join(lib, "draft"), "uncommitted\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := coretest.New(t)
			wt := r.AddWorktree("feat", "feat")
			setup(r, wt)
			s := open(t, r, r.Root)
			before := r.Snapshot()
			_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true})
			wantCode(t, err, core.KindRefused, "not_recordable")
			if e := core.AsError(err); !strings.Contains(e.Message, name) || !strings.Contains(e.Message, "1 uncommitted change") {
				t.Errorf("refusal does not name the %s and what it holds: %s", name, e.Message)
			}
			r.Unchanged(before)
			if got := r.Git(r.Root, "for-each-ref", "refs/copse/"); got != "" {
				t.Errorf("a refused remove left a record: %s", got)
			}
		})
	}
}

// Land's clean-up decides on the same answer: a landed worktree that holds a commit only
// a per-worktree ref keeps is kept, saying why, and the land stays landed.
func TestLandCleanupKeepsWhatOnlyTheWorktreeHolds(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/held", "h.txt", "h\n")
	worktreeRefCommit(r, w)
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/held")})
	if err != nil {
		t.Fatal(err)
	}
	j := out.Land
	if j.State != core.LandLanded || r.Git(r.Root, "rev-parse", "main") != j.Commit {
		t.Fatalf("not landed: %+v", j)
	}
	if _, err := os.Stat(w); err != nil || j.Removed {
		t.Fatalf("the clean-up removed a worktree holding a commit only it has: %v %+v", err, j)
	}
	if ws := strings.Join(j.Warnings, "\n"); !strings.Contains(ws, "refs/worktree/keep") || !strings.Contains(ws, "unique_commits") {
		t.Errorf("the clean-up does not say why it kept the worktree: %q", j.Warnings)
	}
	if got := r.Git(r.Root, "for-each-ref", "refs/copse/removed/"); got != "" {
		t.Errorf("a kept worktree was recorded: %s", got)
	}
}

// The ignored files a clean-up deletes are named, as remove's confirmation names them.
func TestLandCleanupNamesIgnoredFiles(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/ign", ".gitignore", "*.env\n")
	coretest.WriteFile(t, filepath.Join(w, "local.env"), "SECRET=1\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/ign")})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Land.Removed || !strings.Contains(strings.Join(out.Land.Warnings, "\n"), "1 ignored file: local.env") {
		t.Fatalf("removed %v, warnings %q", out.Land.Removed, out.Land.Warnings)
	}
}

// What the clean-up removes it records first: `copse restore` can bring it back.
func TestLandCleanupRecordsBeforeRemoving(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/rec", "r.txt", "r\n")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/rec")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) || !out.Land.Removed {
		t.Fatalf("not cleaned up: %v %+v", err, out.Land)
	}
	l, err := do(t, s, core.RestoreRequest{List: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.RemovedList.Removed) != 1 || l.RemovedList.Removed[0].Path != w || l.RemovedList.Removed[0].Head != out.Land.Commit {
		t.Fatalf("records %+v, want one of %s at %s", l.RemovedList.Removed, w, out.Land.Commit)
	}
}

// Land's preflight sees what git status does not: an edited assume-unchanged file is
// uncommitted work, refused before anything is queued.
func TestLandRefusesHiddenChanges(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/hid", "x.txt", "x\n")
	r.Git(w, "update-index", "--assume-unchanged", "x.txt")
	coretest.WriteFile(t, filepath.Join(w, "x.txt"), "local edit\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/hid")})
	wantCode(t, err, core.KindRefused, "worktree_dirty")
	if e := core.AsError(err); !strings.Contains(e.Message, "x.txt") {
		t.Errorf("refusal does not name the file: %s", e.Message)
	}
	r.Unchanged(before)
}

// Prune deletes ignored files with the worktree, as remove does: they refuse nothing, and
// the confirmation and the report name them.
func TestPruneNamesIgnoredFiles(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, ".gitignore"), "*.env\n")
	r.Git(wt, "add", ".gitignore")
	r.Git(wt, "commit", "-q", "-m", "ignore env")
	r.Git(r.Root, "merge", "-q", "--ff-only", "feat")
	coretest.WriteFile(t, filepath.Join(wt, "local.env"), "SECRET=1\n")
	age(t, r, "feat", 100*time.Hour)
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil || !strings.Contains(p.Confirm.Line(), "1 ignored file deleted with it: local.env") {
		t.Fatalf("the confirmation does not name the ignored file: %+v", p.Confirm)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Removed) != 1 || !strings.Contains(out.Prune.Removed[0].Detail, "local.env") {
		t.Fatalf("report %+v", out.Prune)
	}
}
