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
	"github.com/copse-dev/copse/core/ops"
)

// BenchmarkLandOverhead compares a whole `land` with an empty gate (queue, preflight,
// rebase, compare-and-swap advance with the main checkout synced, clean-up) against the
// bare git commands that do the same work, run back to back in one process on an
// identical worktree. It reports copse's time per land (ns/op), bare git's, and their
// ratio: what the queue, the records and the safety reads cost on top of git.
func BenchmarkLandOverhead(b *testing.B) {
	r := coretest.New(b)
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		b.Fatal(err)
	}
	git := func(dir string, args ...string) string {
		out, err := r.TryGit(dir, args...)
		if err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return out
	}
	mk := func(name string) string {
		w := filepath.Join(r.Base, "trees", name)
		git(r.Root, "worktree", "add", "-q", "-b", name, w)
		coretest.WriteFile(b, filepath.Join(w, name+".txt"), name+"\n")
		git(w, "add", "-A")
		git(w, "commit", "-q", "-m", name)
		// main moves on, so both sides really rebase.
		coretest.WriteFile(b, filepath.Join(r.Root, "main-"+name+".txt"), name+"\n")
		git(r.Root, "add", "-A")
		git(r.Root, "commit", "-q", "-m", "main "+name)
		return w
	}
	var copseTime, gitTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := mk(fmt.Sprintf("c%d", i))
		b.StartTimer()
		t0 := time.Now()
		p, err := s.Prepare(context.Background(), core.LandRequest{Path: core.Str(w), Wait: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Execute(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		copseTime += time.Since(t0)
		b.StopTimer()

		name := fmt.Sprintf("g%d", i)
		w = mk(name)
		t0 = time.Now()
		bareLand(b, r, w, name)
		gitTime += time.Since(t0)
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(gitTime.Nanoseconds())/n, "git-ns/op")
	b.ReportMetric(float64(copseTime)/float64(gitTime), "copse/git")
}

// bareLand is the land done with git alone: read both tips, rebase, swap the ref, sync
// the main checkout, remove the worktree, delete the branch. No checks, no queue.
func bareLand(b *testing.B, r *coretest.Repo, w, branch string) {
	root := r.Root
	run := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), coretest.Env(r.Home)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	old := run(root, "rev-parse", "refs/heads/main")
	run(w, "rebase", "--no-autostash", "--no-update-refs", old)
	tip := run(w, "rev-parse", "HEAD")
	run(root, "update-ref", "-m", "land", "refs/heads/main", tip, old)
	run(root, "update-index", "-q", "--refresh")
	run(root, "-c", "submodule.recurse=false", "-c", "core.hooksPath=/dev/null", "read-tree", "-m", "-u", old, tip)
	run(root, "worktree", "remove", "--", w)
	run(root, "update-ref", "-d", "refs/heads/"+branch, tip)
}
