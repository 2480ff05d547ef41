//go:build linux

package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
)

// openGit is a Service on the git backend whose unforced removals call hook right before
// their live check.
func openGit(t *testing.T, r *coretest.Repo, hook func(path string)) *Service {
	t.Helper()
	svc, err := Open(context.Background(), Options{Registry: testOps, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	svc.impl.beforeLiveCheck = hook
	return svc
}

// removedRefs lists the restore records (refs/copse/removed/*) of r.
func removedRefs(r *coretest.Repo) string {
	return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/")
}

// A process that starts in a worktree after prune's scan (under the lock, while prune
// records the worktree) keeps it: prune looks again right before git removes it, keeps it
// as "processes", drops the record it made, and the worktree and its branch stay.
func TestPruneKeepsAWorktreeAProcessStartedInAfterItsScan(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("late", "app.worktrees/late")
	old := time.Now().Add(-100 * time.Hour)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		_ = os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", "late", f), old, old)
	}
	var pid int
	svc := openGit(t, r, func(path string) {
		if pid == 0 && path == wt {
			pid = coretest.StartLive(t, wt, "sleep", "300")
		}
	})
	// The plan (scanned before the process existed) says it goes.
	p, err := svc.Prepare(context.Background(), PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cmd.(*pruneCmd).remove) != 1 {
		t.Fatalf("prune would not remove the idle worktree: %+v", p.Cmd.(*pruneCmd).report)
	}
	out, err := svc.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if pid == 0 {
		t.Fatal("the removal never reached its live check")
	}
	if len(out.Prune.Removed) != 0 || len(out.Prune.Kept) != 2 {
		t.Fatalf("report %+v", out.Prune)
	}
	want := fmt.Sprintf("1 process working in it: pid %d sleep 300 in %s", pid, wt)
	for _, e := range out.Prune.Kept {
		if e.Path == wt && (e.Reason != KeepProcesses || e.Detail != want) {
			t.Errorf("kept %q %q, want %q %q", e.Reason, e.Detail, KeepProcesses, want)
		}
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("prune removed the worktree a process started in: %v", err)
	}
	if refs := removedRefs(r); refs != "" {
		t.Errorf("the record of a worktree prune kept stays: %s", refs)
	}
	if got := r.Git(r.Root, "branch", "--list", "late"); !strings.Contains(got, "late") {
		t.Errorf("branch late is gone: %q", got)
	}
}

// The same for land's clean-up, with a process that sits elsewhere and opens a file of the
// worktree after the clean-up's check: the land is done, the worktree stays, named.
func TestLandCleanUpKeepsAWorktreeAProcessOpenedAFileInAfterItsCheck(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := r.AddWorktree("feat/late", filepath.Join(r.Base, "trees", "late"))
	coretest.WriteFile(t, filepath.Join(w, "late.txt"), "late\n")
	r.Git(w, "add", "late.txt")
	r.Git(w, "commit", "-q", "-m", "work on feat/late")
	file := filepath.Join(w, "late.txt")
	elsewhere := t.TempDir()
	var pid int
	svc := openGit(t, r, func(path string) {
		if pid == 0 && path == w {
			pid = coretest.StartLive(t, elsewhere, "tail", "-f", file)
			coretest.WaitOpen(t, pid, file)
		}
	})
	out, err := svc.Do(context.Background(), LandRequest{Path: Str(w), Wait: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if pid == 0 {
		t.Fatal("the clean-up never reached its live check")
	}
	if out.Land.State != LandLanded || out.Land.Removed {
		t.Fatalf("job %+v", out.Land)
	}
	want := fmt.Sprintf("kept %s: 1 process working in it (pid %d tail -f ", w, pid)
	if !strings.Contains(strings.Join(out.Land.Warnings, "\n"), want) {
		t.Fatalf("warnings %q do not say %q", out.Land.Warnings, want)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatalf("the clean-up removed the worktree a process holds a file of: %v", err)
	}
	if refs := removedRefs(r); refs != "" {
		t.Errorf("the record of a worktree the clean-up kept stays: %s", refs)
	}
}

// A backend's refusal (tmux refusing to close the window copse runs in) is kept in prune's
// report in its own words, not as git's.
func TestPruneRefusedDetailKeepsTheBackendsOwnWords(t *testing.T) {
	t.Parallel()
	own := Refused(CodeCurrentWorkspace, "", "tmux window @3 is the one copse runs in")
	if got := pruneRefusedDetail(own); got != "not removed: tmux window @3 is the one copse runs in" {
		t.Errorf("backend refusal: %q", got)
	}
	if got := pruneRefusedDetail(fmt.Errorf("exit status 128")); got != "git refused to remove it: exit status 128" {
		t.Errorf("git failure: %q", got)
	}
}
