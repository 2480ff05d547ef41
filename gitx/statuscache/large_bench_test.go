package statuscache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/gitx"
)

// childCPU is the CPU time of this process's waited-for children (git).
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// largeRepo is a repository of files files in 100 directories, with worktrees linked
// worktrees made by git worktree add (so partly racily clean, as users have them).
func largeRepo(b *testing.B, files, worktrees int) (env, trees []string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(root, "home")
	env = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@copse.invalid", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@copse.invalid"}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	repo := filepath.Join(root, "app")
	if err := os.MkdirAll(home, 0o755); err != nil {
		b.Fatal(err)
	}
	git(root, "init", "-q", "-b", "main", repo)
	for i := range files {
		p := filepath.Join(repo, fmt.Sprintf("d%d", i%100), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "initial")
	trees = []string{}
	for i := 1; i <= worktrees; i++ {
		wt := filepath.Join(root, "app.worktrees", fmt.Sprintf("b%d", i))
		git(repo, "worktree", "add", "-q", "-b", fmt.Sprintf("bench/b%d", i), wt)
		trees = append(trees, wt)
	}
	return env, trees
}

// BenchmarkLargeWarmVsGit is a warm listing's proof of worktrees of 20,000 files against
// git status on the same worktrees, in CPU time (proof-cpu-ns/wt, git-cpu-ns/wt and their
// ratio warm/git): go test ./gitx/statuscache -run '^$' -bench LargeWarmVsGit -benchtime 5x.
// A proof stats every file the index lists, which git's status does too (and more), so
// the ratio is bounded below by that part of git's work.
func BenchmarkLargeWarmVsGit(b *testing.B) {
	env, trees := largeRepo(b, 20000, 3)
	c := &Cache{Env: env, Now: ahead}
	git := &gitx.Runner{Env: append(env, "GIT_OPTIONAL_LOCKS=0")}
	for _, wt := range trees {
		_, p, _ := c.Lookup(wt)
		st, err := git.Status(context.Background(), wt)
		if err != nil {
			b.Fatal(err)
		}
		c.Store(p, st)
	}
	c.Flush()
	var proofCPU, gitCPU time.Duration
	for b.Loop() {
		t0 := cpuTime()
		ps := (&Cache{Env: env, Now: ahead}).Pass()
		for _, wt := range trees {
			if _, _, hit := ps.Lookup(wt); !hit {
				b.Fatalf("%s: not served from a warm cache", wt)
			}
		}
		proofCPU += cpuTime() - t0
		g0, s0 := childCPU(), cpuTime()
		for _, wt := range trees {
			if _, err := git.Status(context.Background(), wt); err != nil {
				b.Fatal(err)
			}
		}
		gitCPU += childCPU() - g0 + cpuTime() - s0
	}
	b.ReportMetric(float64(proofCPU.Nanoseconds())/float64(b.N*len(trees)), "proof-cpu-ns/wt")
	b.ReportMetric(float64(gitCPU.Nanoseconds())/float64(b.N*len(trees)), "git-cpu-ns/wt")
	b.ReportMetric(float64(proofCPU)/float64(gitCPU), "warm/git")
}
