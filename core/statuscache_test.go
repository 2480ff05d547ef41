package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// A listing of worktrees that have not changed since the last one shows the same statuses
// without running git status for them; a worktree that changed runs git again and shows
// the change. git is real, started through a wrapper that logs each command.
func TestListStatusReusesProvedStatuses(t *testing.T) {
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", filepath.Join(r.Base, "app.worktrees", "a"))
	b := r.AddWorktree("feat/b", filepath.Join(r.Base, "app.worktrees", "b"))
	coretest.WriteFile(t, filepath.Join(b, "wip.txt"), "wip\n")
	log := filepath.Join(r.Base, "git.log")
	wrapper := filepath.Join(r.Base, "git-logged")
	coretest.WriteFile(t, wrapper, "#!/bin/sh\necho \"$*\" >>'"+log+"'\nexec git \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	// A status read in the second of a change is not kept (the racy rule): start once the
	// clock has passed the second the files were written in.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))

	s, err := core.Open(context.Background(), core.Options{Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), GitBin: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	statuses := func() (map[string]core.Status, int) {
		t.Helper()
		os.Remove(log)
		l, err := s.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]core.Status{}
		for _, w := range l.Worktrees {
			if w.Status == nil || w.Status.Error != "" {
				t.Fatalf("%s: status %+v", w.Path, w.Status)
			}
			out[w.Path] = *w.Status
		}
		b, _ := os.ReadFile(log)
		t.Logf("git: %s", b)
		return out, strings.Count(string(b), " status ")
	}
	first, ran := statuses()
	if ran != 3 {
		t.Fatalf("the first listing ran git status %d times, want 3 (one per worktree)", ran)
	}
	if first[b].Untracked != 1 {
		t.Fatalf("b shows %+v, want its untracked file", first[b])
	}
	second, ran := statuses()
	if ran != 0 {
		t.Fatalf("an unchanged listing ran git status %d times, want none", ran)
	}
	for p, st := range first {
		if second[p] != st {
			t.Fatalf("%s: cached %+v, read %+v", p, second[p], st)
		}
	}
	paths := []string{r.Root, a, b}
	os.Remove(log)
	if got := s.CachedStatuses(paths); len(got) != 3 {
		t.Fatalf("CachedStatuses of unchanged worktrees gave %d, want 3", len(got))
	}
	coretest.WriteFile(t, filepath.Join(a, "README.md"), "edited\n")
	for _, res := range s.CachedStatuses(paths) {
		if res.Path == a {
			t.Fatalf("CachedStatuses served the edited worktree: %+v", res.Status)
		}
	}
	if b, _ := os.ReadFile(log); len(b) != 0 {
		t.Fatalf("CachedStatuses ran git: %s", b)
	}
	third, ran := statuses()
	if ran != 1 || third[a].Unstaged != 1 {
		t.Fatalf("after an edit in a: %d git status runs, a shows %+v; want 1 run and the edit", ran, third[a])
	}
}
