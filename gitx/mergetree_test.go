package gitx

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// mergeRepo has main and three branches off it: a and b edit README's one line (they
// conflict), c adds c.txt (it merges with both).
func mergeRepo(t *testing.T) (s *sandbox, dir string, tips map[string]string) {
	s = newSandbox(t)
	dir = s.initRepo("repo")
	tips = map[string]string{"main": strings.TrimSpace(s.git(dir, "rev-parse", "main"))}
	for name, file := range map[string]string{"a": "README", "b": "README", "c": "c.txt"} {
		s.git(dir, "switch", "-q", "-c", name, "main")
		s.commit(dir, file, "from "+name+"\n", name)
		tips[name] = strings.TrimSpace(s.git(dir, "rev-parse", "HEAD"))
	}
	s.git(dir, "switch", "-q", "main")
	return s, dir, tips
}

func TestMergeTreesBatch(t *testing.T) {
	t.Parallel()
	s, dir, tips := mergeRepo(t)
	r := s.runner()
	res, err := r.MergeTrees(context.Background(), dir, [][2]string{{tips["a"], tips["b"]}, {tips["a"], tips["c"]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Clean || !reflect.DeepEqual(res[0].Conflicted, []string{"README"}) || !res[1].Clean || res[1].Conflicted != nil {
		t.Fatalf("results = %+v, want a conflict on README, then a clean merge", res)
	}
	// The clean merge's tree is a's README plus c's file; the conflicted one still has a tree.
	if got := s.git(dir, "cat-file", "-p", res[1].Tree+":c.txt"); got != "from c\n" {
		t.Errorf("merged c.txt = %q", got)
	}
	if got := s.git(dir, "cat-file", "-p", res[0].Tree+":README"); !strings.Contains(got, "<<<<<<<") {
		t.Errorf("the conflicted tree's README has no conflict markers: %q", got)
	}
	one, err := r.MergeTreeNames(context.Background(), dir, tips["a"], tips["b"])
	if err != nil || !reflect.DeepEqual(one, res[0]) {
		t.Errorf("MergeTreeNames = %+v, %v; want %+v", one, err, res[0])
	}
}

func TestMergeTreesStopsAtUnrelatedHistories(t *testing.T) {
	t.Parallel()
	s, dir, tips := mergeRepo(t)
	s.git(dir, "switch", "-q", "--orphan", "lonely")
	s.commit(dir, "x", "x\n", "unrelated")
	lonely := strings.TrimSpace(s.git(dir, "rev-parse", "HEAD"))
	res, err := s.runner().MergeTrees(context.Background(), dir,
		[][2]string{{tips["a"], tips["c"]}, {tips["a"], lonely}, {tips["a"], tips["b"]}})
	if err == nil || !strings.Contains(err.Error(), "unrelated histories") {
		t.Fatalf("err = %v, want git's refusal of unrelated histories", err)
	}
	if len(res) != 1 || !res[0].Clean {
		t.Errorf("results = %+v, want the one merge before the refused one", res)
	}
}

func TestForkChangesSinceTheFork(t *testing.T) {
	t.Parallel()
	s, dir, tips := mergeRepo(t)
	// main moves on; a's changes since its fork stay its own.
	s.commit(dir, "main.txt", "m\n", "main moves")
	s.git(dir, "switch", "-q", "c")
	s.git(dir, "rm", "-q", "README")
	s.git(dir, "commit", "-q", "-m", "c deletes README")
	c := strings.TrimSpace(s.git(dir, "rev-parse", "HEAD"))
	s.git(dir, "switch", "-q", "main")
	main := strings.TrimSpace(s.git(dir, "rev-parse", "main"))
	r := s.runner()
	got, err := r.ForkChanges(context.Background(), dir, main, tips["a"])
	if err != nil || !reflect.DeepEqual(got, []Change{{'M', "README"}}) {
		t.Errorf("a's changes = %+v, %v; want README modified only", got, err)
	}
	got, err = r.ForkChanges(context.Background(), dir, main, c)
	if err != nil || !reflect.DeepEqual(got, []Change{{'D', "README"}, {'A', "c.txt"}}) {
		t.Errorf("c's changes = %+v, %v; want README deleted, c.txt added", got, err)
	}
}

func TestStackCommitIsReproducible(t *testing.T) {
	t.Parallel()
	s, dir, tips := mergeRepo(t)
	tree := strings.TrimSpace(s.git(dir, "rev-parse", tips["c"]+"^{tree}"))
	r := s.runner()
	// Different dates and names in the environment change nothing: the commit's are fixed.
	other := &Runner{Env: append(append([]string(nil), s.env...), "GIT_COMMITTER_DATE=2030-01-01T00:00:00Z", "GIT_AUTHOR_NAME=else")}
	a, err := r.StackCommit(context.Background(), dir, tree, tips["main"], "copse: predicted land of land-1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.StackCommit(context.Background(), dir, tree, tips["main"], "copse: predicted land of land-1")
	if err != nil || a != b {
		t.Errorf("stacked commits %s and %s (%v), want one id", a, b, err)
	}
	if got := strings.TrimSpace(s.git(dir, "rev-parse", a+"^")); got != tips["main"] {
		t.Errorf("parent = %s, want %s", got, tips["main"])
	}
	if _, err := r.StackCommit(context.Background(), dir, tree, "main", "m"); err == nil {
		t.Error("a parent that is not an object id was accepted")
	}
}

func TestParseMergeTreesRejectsMalformed(t *testing.T) {
	t.Parallel()
	oid := strings.Repeat("a", 40)
	for _, in := range []string{"2\x00" + oid + "\x00\x00", "1\x00nottree\x00\x00", "0\x00" + oid + "\x00f"} {
		if _, err := ParseMergeTrees([]byte(in)); err == nil {
			t.Errorf("ParseMergeTrees(%q) accepted it", in)
		}
	}
	got, err := ParseMergeTrees([]byte("0\x00" + oid + "\x00f\x00f\x00g\x00\x001\x00" + oid + "\x00\x00"))
	want := []MergeResult{{Tree: oid, Conflicted: []string{"f", "g"}}, {Tree: oid, Clean: true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseMergeTrees = %+v, %v; want %+v", got, err, want)
	}
}

func TestPredictBuildersRefuseNonIDs(t *testing.T) {
	t.Parallel()
	id := strings.Repeat("b", 40)
	for name, build := range map[string]func() (Cmd, error){
		"batch, no merges":       func() (Cmd, error) { return MergeTreeBatchCmd("/r", nil) },
		"batch, a ref":           func() (Cmd, error) { return MergeTreeBatchCmd("/r", [][2]string{{id, id}, {"main", id}}) },
		"batch, an option":       func() (Cmd, error) { return MergeTreeBatchCmd("/r", [][2]string{{id, "--x"}}) },
		"fork changes, a range":  func() (Cmd, error) { return ForkChangesCmd("/r", "a..b", id) },
		"stack commit, a ref":    func() (Cmd, error) { return StackCommitCmd("/r", id, "HEAD", "m") },
		"stack commit, NUL":      func() (Cmd, error) { return StackCommitCmd("/r", id, id, "a\x00b") },
		"scratch, two lines":     func() (Cmd, error) { return WorktreeAddScratchCmd("/r", "/s", id, "a\nb") },
		"scratch, relative path": func() (Cmd, error) { return WorktreeAddScratchCmd("/r", "s", id, "r") },
	} {
		var be *BuildError
		if _, err := build(); !errors.As(err, &be) {
			t.Errorf("%s: err = %v, want a BuildError", name, err)
		}
	}
}
