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

// benchTrees is the benchmark's repository: as scripts/bench.sh makes it (20 files, linked
// worktrees made by git worktree add), with benchWorktrees worktrees. Per-worktree costs
// are what matter, so fewer than the bench's 300 keep the set-up short.
const benchWorktrees = 40

func benchRepo(b *testing.B) (env, trees []string) {
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
	for i := 1; i <= 20; i++ {
		if err := os.WriteFile(filepath.Join(repo, fmt.Sprintf("f%d.txt", i)), fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "initial")
	trees = []string{repo}
	for i := 1; i <= benchWorktrees; i++ {
		wt := filepath.Join(root, "app.worktrees", fmt.Sprintf("b%d", i))
		git(repo, "worktree", "add", "-q", "-b", fmt.Sprintf("bench/b%d", i), wt)
		trees = append(trees, wt)
	}
	return env, trees
}

// cpuTime is the CPU time this process has used (user and system): on a machine other
// work keeps busy it moves far less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perWorktree reports the wall and CPU time of one worktree's part of a loop iteration.
func perWorktree(b *testing.B, trees int, cpuBefore time.Duration) {
	n := float64(b.N * trees)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/worktree")
	b.ReportMetric(float64((cpuTime()-cpuBefore).Nanoseconds())/n, "cpu-ns/worktree")
}

// BenchmarkProveCold is a cold listing's own work in the cache, per worktree: with no
// cache file, every worktree is proved (and misses), as list --status does before it runs
// git (go test ./gitx/statuscache -run '^$' -bench ProveCold).
func BenchmarkProveCold(b *testing.B) {
	env, trees := benchRepo(b)
	cpu := cpuTime()
	for b.Loop() {
		ps := (&Cache{Env: env}).Pass()
		for _, wt := range trees {
			if _, p, hit := ps.Lookup(wt); hit || p == nil {
				b.Fatalf("%s: hit %v, proof %v on a cold cache", wt, hit, p != nil)
			}
		}
	}
	perWorktree(b, len(trees), cpu)
}

// BenchmarkProveWarm is a warm listing's work, per worktree: every status is served from
// the cache file (read once per Cache), no git runs.
func BenchmarkProveWarm(b *testing.B) {
	env, trees := benchRepo(b)
	c := &Cache{Env: env, Now: ahead}
	git := &gitx.Runner{Env: env}
	for _, wt := range trees {
		_, p, _ := c.Lookup(wt)
		st, err := git.Status(context.Background(), wt)
		if err != nil {
			b.Fatal(err)
		}
		c.Store(p, st)
	}
	c.Flush()
	cpu := cpuTime()
	for b.Loop() {
		ps := (&Cache{Env: env, Now: ahead}).Pass()
		for _, wt := range trees {
			if _, _, hit := ps.Lookup(wt); !hit {
				b.Fatalf("%s: not served from a warm cache", wt)
			}
		}
	}
	perWorktree(b, len(trees), cpu)
}

// BenchmarkStoreFlush is a cold listing's write of the cache file, per worktree: one
// status stored for each, then one Flush.
func BenchmarkStoreFlush(b *testing.B) {
	env, trees := benchRepo(b)
	git := &gitx.Runner{Env: env}
	proofs := make([]*Proof, len(trees))
	statuses := make([]gitx.Status, len(trees))
	c := &Cache{Env: env, Now: ahead}
	for i, wt := range trees {
		_, proofs[i], _ = c.Lookup(wt)
		st, err := git.Status(context.Background(), wt)
		if err != nil {
			b.Fatal(err)
		}
		statuses[i] = st
	}
	file := filepath.Join(trees[0], ".git", "copse-status", "statuses.json")
	cpu := cpuTime()
	for b.Loop() {
		os.Remove(file)
		c := &Cache{Env: env, Now: ahead}
		for i := range trees {
			c.Store(proofs[i], statuses[i])
		}
		c.Flush()
	}
	perWorktree(b, len(trees), cpu)
}
