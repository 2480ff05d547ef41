package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// dryLand is a land's dry run, as the CLI's --dry-run and a tool request's dry_run send it.
func dryLand(t *testing.T, s *core.Service, req core.LandRequest) (*core.Outcome, error) {
	t.Helper()
	req.DryRun = true
	p, err := s.Prepare(context.Background(), req)
	if err != nil {
		return nil, err
	}
	if p.Confirm != nil {
		t.Fatalf("a dry run asks for confirmation: %s", p.Confirm.Line())
	}
	return s.Execute(context.Background(), p)
}

// A dry run of a land that would go through lists its steps and what the clean-up would
// do, and changes nothing at all: no job, no lock file, no event, no gate run.
func TestLandDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/dry", "d.txt", "d\n")
	// main moves on, so the land has a rebase to run.
	r.Git(r.Root, "commit", "-q", "--allow-empty", "-m", "main moves on")
	marker := filepath.Join(r.Base, "gate-ran")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	out, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/dry"), Test: core.Str("touch " + marker)})
	if err != nil {
		t.Fatal(err)
	}
	r.Unchanged(before)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the dry run ran the test gate (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(r.Root, ".git", "copse", "land")); !os.IsNotExist(err) {
		t.Fatalf("the dry run made a land queue (%v)", err)
	}
	cmds := strings.Join(out.Commands, "\n")
	for _, want := range []string{"rebase", "sh -c 'touch " + marker + "'", "update-ref refs/heads/main", "worktree remove", "update-ref -d refs/heads/feat/dry"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("the steps lack %q:\n%s", want, cmds)
		}
	}
	if !out.DryRun || !strings.Contains(strings.Join(out.Notices, "\n"), "would record "+w) {
		t.Errorf("the dry run does not say what the clean-up would do: %+v", out)
	}
}

// A branch that already contains its target is not rebased by the land (it lands as its
// own commit), so its dry run lists no rebase, says why, and shows that very commit
// advancing the target; the real land then lands that commit unchanged.
func TestLandDryRunListsNoRebaseForABranchOnTop(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/top", "t.txt", "t\n")
	tip := r.Git(w, "rev-parse", "HEAD")
	s := open(t, r, r.Root)
	out, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/top")})
	if err != nil {
		t.Fatal(err)
	}
	cmds := strings.Join(out.Commands, "\n")
	if strings.Contains(cmds, "rebase") || strings.Contains(cmds, "<rebased commit>") {
		t.Fatalf("the dry run of a branch on top of main lists a rebase:\n%s", cmds)
	}
	if !strings.Contains(cmds, "update-ref refs/heads/main "+tip) {
		t.Fatalf("the dry run does not advance main to the branch's own commit %s:\n%s", tip, cmds)
	}
	if n := strings.Join(out.Notices, "\n"); !strings.Contains(n, "feat/top already contains main") {
		t.Fatalf("the dry run does not say why nothing is rebased: %q", n)
	}
	real, err := land(t, s, core.LandRequest{Branch: core.Str("feat/top")})
	if err != nil {
		t.Fatal(err)
	}
	if real.Land.Commit != tip || r.Git(r.Root, "rev-parse", "main") != tip {
		t.Fatalf("the land rebased a branch on top: landed %s, main %s, want %s", real.Land.Commit, r.Git(r.Root, "rev-parse", "main"), tip)
	}
}

// The dry run refuses on what the real land blocks on, with the same code: ignored files
// the rebase would replace in the worktree, and ignored files of the target's checkout at
// incoming paths.
func TestLandDryRunRefusesAsTheLandWould(t *testing.T) {
	t.Parallel()
	t.Run("worktree_ignored_overlap", func(t *testing.T) {
		r := coretest.New(t)
		ignoreInMain(t, r, ".env\n")
		w := feature(t, r, "feat/copied", "f.txt", "f\n")
		coretest.WriteFile(t, filepath.Join(w, ".env"), "SECRET=agent\n")
		coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=template\n")
		r.Git(r.Root, "add", "-f", ".env")
		r.Git(r.Root, "commit", "-q", "-m", "track a template .env")
		s := open(t, r, r.Root)
		before := r.Snapshot()
		_, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/copied")})
		wantCode(t, err, core.KindRefused, "worktree_ignored_overlap")
		r.Unchanged(before)
		_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/copied")})
		wantCode(t, err, core.KindRefused, "worktree_ignored_overlap")
	})
	t.Run("target_ignored_overlap", func(t *testing.T) {
		r := coretest.New(t)
		ignoreInMain(t, r, ".env\n")
		featureForced(t, r, "feat/env", ".env", "SECRET=template\n")
		coretest.WriteFile(t, filepath.Join(r.Root, ".env"), "SECRET=mine\n")
		s := open(t, r, r.Root)
		before := r.Snapshot()
		_, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/env")})
		wantCode(t, err, core.KindRefused, "target_ignored_overlap")
		r.Unchanged(before)
		_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/env")})
		wantCode(t, err, core.KindRefused, "target_ignored_overlap")
	})
	t.Run("target_dirty_overlap", func(t *testing.T) {
		r := coretest.New(t)
		feature(t, r, "feat/x", "x.txt", "x\n")
		coretest.WriteFile(t, filepath.Join(r.Root, "x.txt"), "mine\n")
		s := open(t, r, r.Root)
		_, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/x")})
		wantCode(t, err, core.KindRefused, "target_dirty_overlap")
		_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/x")})
		wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	})
}

// What the clean-up would keep, the dry run says in the words the land's own warning uses.
func TestLandDryRunSaysWhatTheCleanupKeeps(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/busy", "b.txt", "b\n")
	coretest.StartLive(t, w, "sleep", "300")
	s := open(t, r, r.Root)
	out, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/busy")})
	if err != nil {
		t.Fatal(err)
	}
	dry := strings.Join(out.Notices, "\n")
	if !strings.Contains(dry, "the clean-up would keep "+w+": 1 process working in it") {
		t.Fatalf("the dry run does not say the clean-up keeps the worktree: %q", dry)
	}
	for _, c := range out.Commands {
		if strings.Contains(c, "worktree remove") {
			t.Fatalf("the steps remove a worktree the clean-up keeps: %v", out.Commands)
		}
	}
	real, err := land(t, s, core.LandRequest{Branch: core.Str("feat/busy")})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(real.Land.Warnings, "\n"); !strings.Contains(got, "kept "+w+": 1 process working in it") {
		t.Fatalf("the land's own warning differs from the dry run: %q vs %q", got, dry)
	}
}

// A change in the target's checkout that git status does not show (assume-unchanged) is
// the person's work too: a land whose change touches it is refused, in the dry run and the
// real run alike, and the file keeps its content.
func TestLandRefusesToOverwriteAHiddenChangeInTheTargetCheckout(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	commitOn(t, r, r.Root, "conf.txt", "shared\n")
	w := feature(t, r, "feat/conf", "other.txt", "o\n")
	commitOn(t, r, w, "conf.txt", "branch\n")
	r.Git(r.Root, "update-index", "--assume-unchanged", "conf.txt")
	coretest.WriteFile(t, filepath.Join(r.Root, "conf.txt"), "mine, hidden from git status\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/conf")})
	wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	r.Unchanged(before)
	_, err = land(t, s, core.LandRequest{Branch: core.Str("feat/conf")})
	wantCode(t, err, core.KindRefused, "target_dirty_overlap")
	if b, _ := os.ReadFile(filepath.Join(r.Root, "conf.txt")); string(b) != "mine, hidden from git status\n" {
		t.Fatalf("the hidden change was overwritten: %q", b)
	}
}
