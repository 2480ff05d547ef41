package landpredict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/gitx"
)

func TestMain(m *testing.M) { os.Exit(coretest.Main(m)) }

// counter is a gitx.Executor that lets real git answer every command and counts them by
// git subcommand: how a test sees which git work an analysis paid for.
type counter struct {
	mu   sync.Mutex
	runs []string
}

func (c *counter) Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	c.runs = append(c.runs, subcommand(argv))
	c.mu.Unlock()
	return real(ctx)
}

// subcommand is the git command of argv (git -C DIR [-c k=v]... CMD ...).
func subcommand(argv []string) string {
	rest := argv[3:]
	for len(rest) >= 2 && rest[0] == "-c" {
		rest = rest[2:]
	}
	return rest[0]
}

func (c *counter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.runs
	c.runs = nil
	return r
}

func count(runs []string, cmd string) int {
	n := 0
	for _, r := range runs {
		if r == cmd {
			n++
		}
	}
	return n
}

type fixture struct {
	t    testing.TB
	repo *coretest.Repo
	git  *counter
}

// lines is the content of a 30-line file with the given lines replaced.
func lines(edits map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		if s, ok := edits[i]; ok {
			b.WriteString(s + "\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	r := coretest.New(t)
	r.Write("f.txt", lines(nil))
	r.Write("g.txt", lines(nil))
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "two files")
	return &fixture{t: t, repo: r, git: &counter{}}
}

func (f *fixture) predictor(cache *Cache) *Predictor {
	return New(&gitx.Runner{Env: coretest.Env(f.repo.Home), Exec: f.git}, f.repo.Root, cache)
}

func (f *fixture) head(ref string) string { return f.repo.Git(f.repo.Root, "rev-parse", ref) }

// branch makes branch from base with one commit writing files, and returns its tip. The
// main checkout is left on main.
func (f *fixture) branch(name, base string, files map[string]string) string {
	f.t.Helper()
	r := f.repo
	r.Git(r.Root, "switch", "-q", "-c", name, base)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Git(r.Root, "add", "-A")
	r.Git(r.Root, "commit", "-q", "-m", "change on "+name)
	tip := f.head("HEAD")
	r.Git(r.Root, "switch", "-q", "main")
	return tip
}

func (f *fixture) analyze(p *Predictor, target string, jobs []Job) *Analysis {
	f.t.Helper()
	a, err := p.Analyze(context.Background(), target, jobs)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

func conflictsOf(a *Analysis) map[string][]Conflict {
	out := map[string][]Conflict{}
	for _, j := range a.Jobs {
		out[j.Job] = j.Conflicts
	}
	return out
}

func TestDisjointJobsPayNoMerge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"a.txt": "a\n"})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{5: "b"})})},
		{"land-3", f.branch("c", t0, map[string]string{"dir/c.txt": "c\n", "g.txt": lines(map[int]string{9: "c"})})},
	}
	f.git.take()
	a := f.analyze(f.predictor(nil), t0, jobs)
	for _, j := range a.Jobs {
		if !j.Lands || len(j.Conflicts) != 0 || j.Error != "" {
			t.Errorf("%s: lands %v, conflicts %v, error %q; want it to land with none", j.Job, j.Lands, j.Conflicts, j.Error)
		}
	}
	if got := a.For("land-3").Paths; !reflect.DeepEqual(got, []string{"dir/c.txt", "g.txt"}) {
		t.Errorf("land-3 paths = %q", got)
	}
	runs := f.git.take()
	// One diff per job and one merge-tree process for all of them against the target;
	// no job meets another, so no merge between jobs and no stacked commit.
	if count(runs, "merge-tree") != 1 || count(runs, "commit-tree") != 0 || count(runs, "diff") != 3 || len(runs) != 4 {
		t.Errorf("git runs = %q, want 3 diffs and 1 merge-tree", runs)
	}
}

func TestSameLinesNameTheJobAhead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{5: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{5: "from b"}), "b.txt": "b\n"})},
	}
	a := f.analyze(f.predictor(nil), t0, jobs)
	want := map[string][]Conflict{"land-1": {}, "land-2": {{Job: "land-1", Files: []string{"f.txt"}}}}
	if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %+v, want %+v", got, want)
	}
	if !a.For("land-1").Lands || a.For("land-2").Lands {
		t.Errorf("lands: land-1 %v, land-2 %v; want true, false", a.For("land-1").Lands, a.For("land-2").Lands)
	}
}

func TestSameFileFarApartIsNotAConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{3: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{27: "from b"})})},
	}
	f.git.take()
	a := f.analyze(f.predictor(nil), t0, jobs)
	if got := conflictsOf(a); len(got["land-1"])+len(got["land-2"]) != 0 || !a.For("land-2").Lands {
		t.Errorf("conflicts = %+v, want none", got)
	}
	// The paths met, so the merge between the jobs was paid for, and it decided.
	if runs := f.git.take(); count(runs, "merge-tree") != 2 || count(runs, "commit-tree") != 1 {
		t.Errorf("git runs = %q, want a second merge-tree (the jobs' paths meet)", runs)
	}
}

func TestThirdJobNamesOnlyTheJobItMeets(t *testing.T) {
	t.Parallel()
	// Both jobs ahead edit f.txt and g.txt, one at the lines land-3 edits, the other far
	// from them: land-3 meets both, conflicts with one.
	near := map[string]string{"f.txt": lines(map[int]string{5: "near"}), "g.txt": lines(map[int]string{20: "near"})}
	far := map[string]string{"f.txt": lines(map[int]string{25: "far"}), "g.txt": lines(map[int]string{2: "far"})}
	third := map[string]string{"f.txt": lines(map[int]string{5: "from c"}), "g.txt": lines(map[int]string{10: "from c"})}
	for _, tc := range []struct {
		name          string
		first, second map[string]string
		want          string
	}{
		{"with the first", near, far, "land-1"},
		{"with the second", far, near, "land-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			t0 := f.head("main")
			jobs := []Job{
				{"land-1", f.branch("a", t0, tc.first)},
				{"land-2", f.branch("b", t0, tc.second)},
				{"land-3", f.branch("c", t0, third)},
			}
			a := f.analyze(f.predictor(nil), t0, jobs)
			want := map[string][]Conflict{"land-1": {}, "land-2": {}, "land-3": {{Job: tc.want, Files: []string{"f.txt"}}}}
			if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
				t.Errorf("conflicts = %+v, want %+v", got, want)
			}
		})
	}
}

func TestConflictWithTheTarget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fork := f.head("main")
	tip := f.branch("a", fork, map[string]string{"f.txt": lines(map[int]string{5: "from a"})})
	other := f.branch("b", fork, map[string]string{"b.txt": "b\n"})
	// The target moves on, editing the line the job edits.
	f.repo.Write("f.txt", lines(map[int]string{5: "on main"}))
	f.repo.Git(f.repo.Root, "commit", "-q", "-am", "main edits line 5")
	t0 := f.head("main")
	a := f.analyze(f.predictor(nil), t0, []Job{{"land-1", tip}, {"land-2", other}})
	want := map[string][]Conflict{"land-1": {{Target: true, Files: []string{"f.txt"}}}, "land-2": {}}
	if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %+v, want %+v", got, want)
	}
	if a.For("land-1").Lands || !a.For("land-2").Lands {
		t.Errorf("lands: land-1 %v, land-2 %v; want false, true", a.For("land-1").Lands, a.For("land-2").Lands)
	}
}

// A job that conflicts is left out of the stack: the job behind it that meets only it is
// merged onto the target as the real queue would (the conflicting job blocks at its rebase).
func TestConflictingJobIsNotStacked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{5: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{5: "from b"})})},
		{"land-3", f.branch("c", t0, map[string]string{"f.txt": lines(map[int]string{5: "from c"})})},
	}
	p := f.predictor(nil)
	a := f.analyze(p, t0, jobs)
	want := map[string][]Conflict{"land-1": {}, "land-2": {{Job: "land-1", Files: []string{"f.txt"}}},
		"land-3": {{Job: "land-1", Files: []string{"f.txt"}}}}
	if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %+v, want %+v", got, want)
	}
	st, err := p.Stack(context.Background(), t0, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if st[1].Commit != "" || st[2].Commit != "" || st[1].Onto != st[0].Commit || st[2].Onto != st[0].Commit {
		t.Errorf("stack = %+v: the conflicting jobs must have no commit and sit on land-1's", st)
	}
}

func TestUnrelatedJobIsAnErrorNotAConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	r := f.repo
	r.Git(r.Root, "switch", "-q", "--orphan", "lonely")
	r.Write("x.txt", "x\n")
	r.Git(r.Root, "add", "x.txt")
	r.Git(r.Root, "commit", "-q", "-m", "unrelated")
	lonely := f.head("HEAD")
	r.Git(r.Root, "switch", "-q", "main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"a.txt": "a\n"})},
		{"land-2", lonely},
		{"land-3", f.branch("c", t0, map[string]string{"f.txt": lines(map[int]string{5: "from c"})})},
	}
	a := f.analyze(f.predictor(nil), t0, jobs)
	if j := a.For("land-2"); j.Lands || !strings.Contains(j.Error, "unrelated histories") || len(j.Conflicts) != 0 {
		t.Errorf("land-2 = %+v, want an error naming the unrelated histories", j)
	}
	if !a.For("land-1").Lands || !a.For("land-3").Lands {
		t.Errorf("the related jobs must still be analysed: %+v", a.Jobs)
	}
}

func TestBadInputRunsNoGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	p := f.predictor(nil)
	f.git.take()
	for _, tc := range []struct {
		target string
		jobs   []Job
		want   string
	}{
		{"main", nil, `target "main" is not a full commit id`},
		{t0, []Job{{"land-1", "HEAD"}}, `job land-1: tip "HEAD" is not a full commit id`},
		{t0, []Job{{"land-1", t0}, {"land-1", t0}}, "job land-1 is queued twice"},
		{t0, []Job{{"", t0}}, `job id "" is empty`},
	} {
		_, err := p.Analyze(context.Background(), tc.target, tc.jobs)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Analyze(%q, %v) = %v, want an InputError saying %q", tc.target, tc.jobs, err, tc.want)
		}
	}
	if runs := f.git.take(); len(runs) != 0 {
		t.Errorf("bad input ran git: %q", runs)
	}
}

func TestCacheRunsNoGitUntilATipMoves(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{5: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{25: "from b"})})},
		{"land-3", f.branch("c", t0, map[string]string{"g.txt": lines(map[int]string{5: "from c"})})},
	}
	p := f.predictor(nil)
	f.git.take()
	first := f.analyze(p, t0, jobs)
	if _, err := p.Stack(context.Background(), t0, jobs); err != nil {
		t.Fatal(err)
	}
	if runs := f.git.take(); len(runs) == 0 {
		t.Fatal("the first analysis ran no git")
	}
	again := f.analyze(p, t0, jobs)
	if _, err := p.Stack(context.Background(), t0, jobs); err != nil {
		t.Fatal(err)
	}
	if runs := f.git.take(); len(runs) != 0 {
		t.Errorf("unchanged target and tips ran git: %q", runs)
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("cached analysis differs:\n%+v\n%+v", first, again)
	}

	// Saved and loaded by another process, the cache answers as well.
	path := filepath.Join(t.TempDir(), "predict.cache")
	if err := p.Cache().Save(path); err != nil {
		t.Fatal(err)
	}
	loaded := f.analyze(f.predictor(LoadCache(path)), t0, jobs)
	if runs := f.git.take(); len(runs) != 0 || !reflect.DeepEqual(first, loaded) {
		t.Errorf("a loaded cache ran git %q or answered differently:\n%+v", runs, loaded)
	}

	// land-2 moves onto line 5: it now conflicts with land-1, and only its own answers
	// are asked again (its paths, its merge with the target, its merge with land-1).
	jobs[1].Tip = f.branch("b2", t0, map[string]string{"f.txt": lines(map[int]string{5: "from b, again"})})
	f.git.take()
	moved := f.analyze(p, t0, jobs)
	runs := f.git.take()
	if count(runs, "diff") != 1 || count(runs, "merge-tree") != 2 || count(runs, "commit-tree") != 0 {
		t.Errorf("after land-2 moved, git runs = %q, want 1 diff and 2 merge-trees", runs)
	}
	if got := moved.For("land-2").Conflicts; !reflect.DeepEqual(got, []Conflict{{Job: "land-1", Files: []string{"f.txt"}}}) {
		t.Errorf("land-2 after it moved: conflicts %+v, want land-1 on f.txt", got)
	}
}

func TestStackIsTheTargetPlusEveryJobAhead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{3: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{27: "from b"}), "b.txt": "b\n"})},
	}
	st, err := f.predictor(nil).Stack(context.Background(), t0, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Onto != t0 || st[1].Onto != st[0].Commit || st[0].Commit == "" || st[1].Commit == "" {
		t.Fatalf("stack = %+v", st)
	}
	r := f.repo
	if got := r.Git(r.Root, "rev-parse", st[1].Commit+"^"); got != st[0].Commit {
		t.Errorf("land-2's stacked commit has parent %s, want land-1's %s", got, st[0].Commit)
	}
	if got := r.Git(r.Root, "rev-parse", st[1].Commit+"^{tree}"); got != st[1].Tree {
		t.Errorf("land-2's commit has tree %s, want %s", got, st[1].Tree)
	}
	if got, want := r.Git(r.Root, "show", st[1].Commit+":f.txt")+"\n", lines(map[int]string{3: "from a", 27: "from b"}); got != want {
		t.Errorf("land-2 lands f.txt as\n%s\nwant\n%s", got, want)
	}
	if got := r.Git(r.Root, "show", st[1].Commit+":b.txt"); got != "b" {
		t.Errorf("b.txt = %q", got)
	}
	if got := r.Git(r.Root, "show", st[0].Commit+":f.txt") + "\n"; got != lines(map[int]string{3: "from a"}) {
		t.Errorf("land-1 lands f.txt as\n%s", got)
	}
	// Another process stacking the same queue makes the same commits.
	again, err := New(&gitx.Runner{Env: coretest.Env(f.repo.Home)}, f.repo.Root, nil).Stack(context.Background(), t0, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, again) {
		t.Errorf("a second stack differs:\n%+v\n%+v", st, again)
	}
}

// A job that moves a directory and one that adds a file to it touch no common path, yet
// git's directory-rename detection makes their merge conflict (the added file's
// location): the cheap path must let the merge decide.
func TestDirectoryMovedUnderAnAddedFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.repo
	r.Write("d/a.txt", "a\n")
	r.Write("d/b.txt", "b\n")
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "a directory")
	t0 := f.head("main")
	r.Git(r.Root, "switch", "-q", "-c", "move", t0)
	r.Git(r.Root, "mv", "d", "e")
	r.Git(r.Root, "commit", "-q", "-m", "move d to e")
	moved := f.head("HEAD")
	r.Git(r.Root, "switch", "-q", "main")
	jobs := []Job{{"land-1", moved}, {"land-2", f.branch("add", t0, map[string]string{"d/new.txt": "new\n"})}}
	a := f.analyze(f.predictor(nil), t0, jobs)
	want := map[string][]Conflict{"land-1": {}, "land-2": {{Job: "land-1", Files: []string{"e/new.txt"}}}}
	if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %+v, want %+v", got, want)
	}
}

func TestProfilesMeet(t *testing.T) {
	t.Parallel()
	p := func(ch ...string) *profile {
		var cs []gitx.Change
		for _, c := range ch {
			cs = append(cs, gitx.Change{Status: c[0], Path: c[2:]})
		}
		return newProfile(cs)
	}
	for _, tc := range []struct {
		a, b *profile
		want bool
	}{
		{p("M f"), p("M f"), true},
		{p("M f"), p("M g"), false},
		{p("A d"), p("A d/x"), true},              // a file where the other has a directory
		{p("M a/b/c"), p("A a/b"), true},          // and deeper
		{p("D d/a", "A e/a"), p("A d/new"), true}, // a move out of d, an add into d
		{p("D d/a"), p("M d/b"), false},           // a delete and an edit beside it
		{p("D top"), p("A other"), false},         // the top directory is never renamed
		{p("M a/x"), p("M ab/x"), false},          // a prefix that is not a directory
	} {
		if got := tc.a.meets(tc.b); got != tc.want {
			t.Errorf("%v meets %v = %v, want %v", tc.a.sorted(), tc.b.sorted(), got, tc.want)
		}
		if got := tc.b.meets(tc.a); got != tc.want {
			t.Errorf("%v meets %v = %v, want %v (reversed)", tc.b.sorted(), tc.a.sorted(), got, tc.want)
		}
	}
}

// The queue the issue describes: 12 jobs, three planted pairs that edit the same lines of
// a shared file, and jobs that edit those files far from the planted lines. Every pair is
// reported on its later job, naming the earlier one and the file; nothing else is.
func TestTwelveJobsThreePlantedPairs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.repo
	for _, s := range []string{"s1.txt", "s2.txt", "s3.txt"} {
		r.Write(s, lines(nil))
	}
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "shared files")
	t0 := f.head("main")
	type plant struct {
		first, second int // 1-based job numbers
		file          string
	}
	plants := []plant{{2, 5, "s1.txt"}, {4, 9, "s2.txt"}, {7, 12, "s3.txt"}}
	files := make([]map[string]string, 13)
	for i := 1; i <= 12; i++ {
		files[i] = map[string]string{fmt.Sprintf("own/%d.txt", i): fmt.Sprintf("job %d\n", i)}
	}
	for _, p := range plants {
		files[p.first][p.file] = lines(map[int]string{10: fmt.Sprintf("job %d", p.first)})
		files[p.second][p.file] = lines(map[int]string{10: fmt.Sprintf("job %d", p.second)})
	}
	// Near misses: the same shared files, far from line 10.
	files[3]["s1.txt"] = lines(map[int]string{25: "job 3"})
	files[6]["s2.txt"] = lines(map[int]string{1: "job 6"})
	files[10]["s3.txt"] = lines(map[int]string{28: "job 10"})
	files[11]["s1.txt"] = lines(map[int]string{20: "job 11"})
	var jobs []Job
	for i := 1; i <= 12; i++ {
		jobs = append(jobs, Job{fmt.Sprintf("land-%d", i), f.branch(fmt.Sprintf("j%d", i), t0, files[i])})
	}
	a := f.analyze(f.predictor(nil), t0, jobs)
	want := map[string][]Conflict{}
	for _, j := range jobs {
		want[j.ID] = []Conflict{}
	}
	for _, p := range plants {
		want[fmt.Sprintf("land-%d", p.second)] = []Conflict{{Job: fmt.Sprintf("land-%d", p.first), Files: []string{p.file}}}
	}
	if got := conflictsOf(a); !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %+v\nwant %+v", got, want)
	}
}

func TestAppearedNamesOnlyNewConflicts(t *testing.T) {
	t.Parallel()
	c1 := Conflict{Job: "land-1", Files: []string{"f"}}
	before := &Analysis{Jobs: []Prediction{{Job: "land-2", Conflicts: []Conflict{c1}}, {Job: "land-3", Conflicts: []Conflict{}}}}
	after := &Analysis{Jobs: []Prediction{
		{Job: "land-2", Conflicts: []Conflict{c1, {Target: true, Files: []string{"f"}}}},
		{Job: "land-3", Conflicts: []Conflict{{Job: "land-1", Files: []string{"f", "g"}}}},
		{Job: "land-4", Conflicts: []Conflict{}},
	}}
	want := map[string][]Conflict{
		"land-2": {{Target: true, Files: []string{"f"}}},
		"land-3": {{Job: "land-1", Files: []string{"f", "g"}}},
	}
	if got := Appeared(before, after); !reflect.DeepEqual(got, want) {
		t.Errorf("Appeared = %+v, want %+v", got, want)
	}
	if got := Appeared(after, after); len(got) != 0 {
		t.Errorf("Appeared(a, a) = %+v, want nothing", got)
	}
	if got := Appeared(nil, before); !reflect.DeepEqual(got, map[string][]Conflict{"land-2": {c1}}) {
		t.Errorf("Appeared(nil, …) = %+v", got)
	}
}

func TestCacheDropsWhatTheLastAnalysisDidNotUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{3: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{27: "from b"})})},
	}
	f.repo.Write("main.txt", "moved\n")
	f.repo.Git(f.repo.Root, "add", "main.txt")
	f.repo.Git(f.repo.Root, "commit", "-q", "-m", "the target moves")
	t1 := f.head("main")
	cache := NewCache()
	cache.limit = 4 // each analysis here uses 6 answers
	p := f.predictor(cache)
	f.analyze(p, t0, jobs)
	f.analyze(p, t1, jobs)
	f.git.take()
	f.analyze(p, t1, jobs)
	if runs := f.git.take(); len(runs) != 0 {
		t.Errorf("the last analysis's answers were dropped: %q", runs)
	}
	if n := cache.Len(); n != 6 {
		t.Errorf("cache holds %d answers, want the 6 the analysis onto %s used", n, t1[:7])
	}
	f.analyze(p, t0, jobs)
	if runs := f.git.take(); len(runs) == 0 {
		t.Error("the answers for the old target were kept past the limit")
	}
}

func TestLoadCacheIgnoresDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id := strings.Repeat("a", 40)
	for name, content := range map[string]string{
		"garbage":       "not json",
		"other version": `{"v":2,"merges":{"` + id + " " + id + `":{"Tree":"` + id + `","Clean":true}}}`,
		"bad keys":      `{"v":1,"merges":{"main ` + id + `":{"Tree":"` + id + `","Clean":true}},"commits":{"x y z":"` + id + `"},"changes":{"` + id + " " + id + `":[{"s":"","p":"f"}]}}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if n := LoadCache(path).Len(); n != 0 {
			t.Errorf("%s: loaded %d answers, want none", name, n)
		}
	}
	if n := LoadCache(filepath.Join(dir, "missing")).Len(); n != 0 {
		t.Errorf("a missing file loaded %d answers", n)
	}
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte(`{"v":1,"merges":{"`+id+" "+id+`":{"Tree":"`+id+`","Clean":true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := LoadCache(good).Len(); n != 1 {
		t.Errorf("a good file loaded %d answers, want 1", n)
	}
}

// A saved cache may name a stacked commit git's gc has pruned since: the analysis starts
// again without the cache instead of failing.
func TestPrunedCommitInASavedCacheIsAskedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t0 := f.head("main")
	jobs := []Job{
		{"land-1", f.branch("a", t0, map[string]string{"f.txt": lines(map[int]string{5: "from a"})})},
		{"land-2", f.branch("b", t0, map[string]string{"f.txt": lines(map[int]string{5: "from b"})})},
	}
	p := f.predictor(nil)
	want := f.analyze(p, t0, jobs)
	path := filepath.Join(t.TempDir(), "predict.cache")
	if err := p.Cache().Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	commits := saved["commits"].(map[string]any)
	if len(commits) == 0 {
		t.Fatal("the analysis made no stacked commit")
	}
	for k := range commits {
		commits[k] = strings.Repeat("0", 39) + "1" // a commit that is not in the repository
	}
	if b, err = json.Marshal(saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got := f.analyze(f.predictor(LoadCache(path)), t0, jobs)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after a pruned commit: %+v, want %+v", got, want)
	}
}
