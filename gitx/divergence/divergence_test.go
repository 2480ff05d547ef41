package divergence

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/copse-dev/copse/gitx"
)

type repo struct {
	t    *testing.T
	dir  string
	env  []string
	git  *gitx.Runner
	base string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	env := []string{"HOME=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@copse.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@copse.invalid"}
	r := &repo{t: t, dir: filepath.Join(root, "app"), env: env, git: &gitx.Runner{Env: env}}
	r.run(root, "init", "-q", "-b", "main", r.dir)
	for i := range 3 {
		r.run(r.dir, "commit", "-q", "--allow-empty", "-m", "main "+strconv.Itoa(i))
	}
	r.base = r.run(r.dir, "rev-parse", "HEAD")
	return r
}

func (r *repo) run(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), r.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// truth is git's own answer for base...head.
func (r *repo) truth(base, head string) Counts {
	cmd := exec.Command("git", "-C", r.dir, "rev-list", "--left-right", "--count", base+"..."+head)
	cmd.Env = append(os.Environ(), r.env...)
	out, err := cmd.Output() // stdout only: git warns of grafts on stderr
	f := strings.Fields(string(out))
	if err != nil || len(f) != 2 {
		r.t.Fatalf("rev-list: %v, %q", err, out)
	}
	behind, _ := strconv.Atoi(f[0])
	ahead, _ := strconv.Atoi(f[1])
	return Counts{Ahead: ahead, Behind: behind}
}

// branchAt makes a commit that is ahead commits past from (a new side branch) and returns it.
func (r *repo) branchAt(name, from string, ahead int) string {
	r.run(r.dir, "branch", name, from)
	wt := filepath.Join(filepath.Dir(r.dir), name)
	r.run(r.dir, "worktree", "add", "-q", wt, name)
	for i := range ahead {
		r.run(wt, "commit", "-q", "--allow-empty", "-m", name+" "+strconv.Itoa(i))
	}
	return r.run(wt, "rev-parse", "HEAD")
}

// A head at the base's commit is 0 and 0 without git; every other pair is git's answer,
// asked once: again in the same process, and in a new one (the file), no git runs.
func TestCountAsksGitOncePerPair(t *testing.T) {
	r := newRepo(t)
	common := filepath.Join(r.dir, ".git")
	ahead := r.branchAt("ahead", r.base, 2)
	behind := r.branchAt("behind", r.base+"~2", 1)
	ctx := context.Background()
	c := &Cache{common: common}
	if d, err := c.Count(ctx, r.git, r.dir, r.base, r.base); err != nil || d != (Counts{}) || c.asked != 0 {
		t.Fatalf("same commit: %+v, %v, %d git processes; want 0 0 and none", d, err, c.asked)
	}
	for _, head := range []string{ahead, behind} {
		d, err := c.Count(ctx, r.git, r.dir, r.base, head)
		if want := r.truth(r.base, head); err != nil || d != want {
			t.Fatalf("%s: %+v (%v); git says %+v", head, d, err, want)
		}
	}
	if c.asked != 2 {
		t.Fatalf("%d git processes for two pairs", c.asked)
	}
	for _, head := range []string{ahead, behind} {
		if _, err := c.Count(ctx, r.git, r.dir, r.base, head); err != nil {
			t.Fatal(err)
		}
	}
	if c.asked != 2 {
		t.Fatalf("asked again: %d git processes for two pairs", c.asked)
	}
	c.Flush()
	next := &Cache{common: common} // as the next start finds it
	for _, head := range []string{ahead, behind} {
		d, err := next.Count(ctx, r.git, r.dir, r.base, head)
		if want := r.truth(r.base, head); err != nil || d != want {
			t.Fatalf("next start, %s: %+v (%v); git says %+v", head, d, err, want)
		}
	}
	if next.asked != 0 {
		t.Fatalf("the next start ran git %d times for pairs the file holds", next.asked)
	}
}

// Grafts change the graph git walks for the same two commits: a repository with them keeps
// no answers across starts, so the next start asks git, whose answer then differs.
func TestCountKeepsNothingAcrossStartsWhereTheGraphCanChange(t *testing.T) {
	r := newRepo(t)
	common := filepath.Join(r.dir, ".git")
	ahead := r.branchAt("ahead", r.base+"~1", 2)
	ctx := context.Background()
	c := &Cache{common: common}
	before, err := c.Count(ctx, r.git, r.dir, r.base, ahead)
	if err != nil {
		t.Fatal(err)
	}
	c.Flush()
	// The file is kept while the graph is fixed; now graft the branch's first commit to
	// have no parent.
	first := r.run(r.dir, "rev-parse", ahead+"~1")
	if err := os.WriteFile(filepath.Join(common, "info", "grafts"), []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := r.truth(r.base, ahead)
	if want == before {
		t.Fatalf("the graft did not change git's answer (%+v): the case proves nothing", want)
	}
	next := &Cache{common: common}
	if got, err := next.Count(ctx, r.git, r.dir, r.base, ahead); err != nil || got != want {
		t.Fatalf("with grafts: %+v (%v); git says %+v", got, err, want)
	}
}
