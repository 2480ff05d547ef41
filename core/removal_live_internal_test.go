//go:build linux

package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	svc.impl.BeforeLiveCheck = hook
	return svc
}

// removedRefs lists the restore records (refs/copse/removed/*) of r.
func removedRefs(r *coretest.Repo) string {
	return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/")
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
