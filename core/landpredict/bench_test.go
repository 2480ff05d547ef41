package landpredict

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/gitx"
)

// benchQueue makes a queue of n jobs: each edits a file of its own, every fourth also
// edits the shared f.txt far from the others (its merges are paid for and clean), and the
// last edits f.txt's line 1 as job 4 does (a real conflict).
func benchQueue(b *testing.B, n int) (*fixture, string, []Job) {
	f := newFixture(b)
	t0 := f.head("main")
	jobs := make([]Job, n)
	for i := range n {
		files := map[string]string{fmt.Sprintf("pkg%d/file.txt", i): fmt.Sprintf("job %d\n", i)}
		if i%4 == 3 {
			files["f.txt"] = lines(map[int]string{1 + i: fmt.Sprintf("job %d", i)})
		}
		if i == n-1 {
			files["f.txt"] = lines(map[int]string{4: "last job"})
		}
		jobs[i] = Job{fmt.Sprintf("land-%d", i+1), f.branch(fmt.Sprintf("job%d", i), t0, files)}
	}
	return f, t0, jobs
}

// BenchmarkAnalyzeWarm measures the analysis of a 20-job queue whose target and tips did
// not move (every answer cached), against one `git merge-tree --write-tree` run in the
// same benchmark, and reports the ratios: warm (in-process cache), warm from a cache
// saved by an earlier process, that plus reading the tips (one for-each-ref, as a
// one-shot command would), and cold (once, so noisier).
func BenchmarkAnalyzeWarm(b *testing.B) {
	f, t0, jobs := benchQueue(b, 20)
	runner := &gitx.Runner{Env: coretest.Env(f.repo.Home)}
	ctx := context.Background()

	counted := &counter{}
	coldStart := time.Now()
	p := New(&gitx.Runner{Env: runner.Env, Exec: counted}, f.repo.Root, nil)
	a, err := p.Analyze(ctx, t0, jobs)
	if err != nil {
		b.Fatal(err)
	}
	cold := time.Since(coldStart)
	coldRuns := len(counted.take())
	if len(a.For("land-20").Conflicts) == 0 {
		b.Fatalf("the planted conflict was not found: %+v", a.For("land-20"))
	}
	path := filepath.Join(b.TempDir(), "predict.cache")
	if err := p.Cache().Save(path); err != nil {
		b.Fatal(err)
	}

	// One merge-tree of two jobs, as git alone would run it.
	mergeTree := func() time.Duration {
		start := time.Now()
		cmd := exec.Command("git", "-C", f.repo.Root, "merge-tree", "--write-tree", "--name-only", jobs[0].Tip, jobs[1].Tip)
		cmd.Env = append(os.Environ(), coretest.Env(f.repo.Home)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("merge-tree: %v\n%s", err, out)
		}
		return time.Since(start)
	}

	var warm, loaded, cli, git time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := p.Analyze(ctx, t0, jobs); err != nil {
			b.Fatal(err)
		}
		warm += time.Since(start)

		start = time.Now()
		if _, err := New(runner, f.repo.Root, LoadCache(path)).Analyze(ctx, t0, jobs); err != nil {
			b.Fatal(err)
		}
		loaded += time.Since(start)

		// What a one-shot `copse land queue` would pay: the saved cache, one for-each-ref
		// for the target's and the branches' commits, the analysis.
		start = time.Now()
		if _, err := runner.RepoTips(ctx, f.repo.Root); err != nil {
			b.Fatal(err)
		}
		if _, err := New(runner, f.repo.Root, LoadCache(path)).Analyze(ctx, t0, jobs); err != nil {
			b.Fatal(err)
		}
		cli += time.Since(start)

		git += mergeTree()
	}
	n := float64(b.N)
	b.ReportMetric(float64(warm.Nanoseconds())/n, "warm-ns/op")
	b.ReportMetric(float64(warm)/float64(git), "warm/merge-tree")
	b.ReportMetric(float64(loaded)/float64(git), "loaded/merge-tree")
	b.ReportMetric(float64(cli)/float64(git), "tips+loaded/merge-tree")
	b.ReportMetric(float64(cold)/(float64(git)/n), "cold/merge-tree")
	b.ReportMetric(float64(coldRuns), "cold-git-runs")
	if runs := counted.take(); len(runs) != 0 {
		b.Fatalf("warm analyses ran git: %q", runs)
	}
}
