package core_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// loggedGit is a git that appends each command line to log, for counting git statuses.
func loggedGit(t *testing.T, r *coretest.Repo) (wrapper, log string) {
	t.Helper()
	log = filepath.Join(r.Base, "git.log")
	wrapper = filepath.Join(r.Base, "git-logged")
	coretest.WriteFile(t, wrapper, "#!/bin/sh\necho \"$*\" >>'"+log+"'\nexec git \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, log
}

// pastTheSecond waits until the clock has passed the second it is called in.
func pastTheSecond() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
}

// A listing of worktrees that have not changed since the last one shows the same statuses
// without running git status for them; a worktree that changed runs git again and shows
// the change. git is real, started through a wrapper that logs each command.
func TestListStatusReusesProvedStatuses(t *testing.T) {
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", filepath.Join(r.Base, "app.worktrees", "a"))
	b := r.AddWorktree("feat/b", filepath.Join(r.Base, "app.worktrees", "b"))
	coretest.WriteFile(t, filepath.Join(b, "wip.txt"), "wip\n")
	wrapper, log := loggedGit(t, r)
	// A status read in the second of a change is not kept (the racy rule): start once the
	// clock has passed the second the files were written in.
	pastTheSecond()

	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), GitBin: wrapper})
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

// The ahead and behind a listing shows are git's, counted against the ref git takes for
// the upstream. A local branch called origin/main makes git print the upstream as
// remotes/origin/main; it still counts against refs/remotes/origin/main, which a fetch
// moves. Once the cache serves the worktree, the fetch must bring git's new figures, as
// `git status --porcelain=v2 --branch` prints them.
func TestListStatusUpstreamAsGitResolvesIt(t *testing.T) {
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", filepath.Join(r.Base, "app.worktrees", "a"))
	r.Git(r.Root, "config", "remote.origin.url", filepath.Join(r.Base, "nowhere.git"))
	r.Git(r.Root, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
	r.Git(r.Root, "update-ref", "refs/remotes/origin/main", "main")
	r.Git(a, "config", "branch.feat/a.remote", "origin")
	r.Git(a, "config", "branch.feat/a.merge", "refs/heads/main")
	r.Git(r.Root, "branch", "origin/main", "main")
	r.Git(a, "commit", "-q", "--allow-empty", "-m", "ahead")
	wrapper, log := loggedGit(t, r)
	pastTheSecond()
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home), GitBin: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	// listed is a's status in a fresh listing, and how many git statuses ran in a.
	listed := func() (core.Status, int) {
		t.Helper()
		os.Remove(log)
		l, err := s.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(log)
		ran := 0
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "-C "+a+" ") && strings.Contains(line, " status ") {
				ran++
			}
		}
		for _, w := range l.Worktrees {
			if w.Path == a && w.Status != nil {
				return *w.Status, ran
			}
		}
		t.Fatalf("no status for %s in %+v", a, l.Worktrees)
		return core.Status{}, 0
	}
	// gits is what git prints for a's upstream and its ahead/behind. Optional locks are
	// off, as copse's own reads have them: a git status that refreshed a's index would
	// change what the cache proves, and the case would no longer test the upstream.
	gits := func() (upstream, ab string) {
		t.Helper()
		cmd := exec.Command("git", "-C", a, "status", "--porcelain=v2", "--branch")
		cmd.Env = append(append(os.Environ(), coretest.Env(r.Home)...), "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "# branch.upstream "); ok {
				upstream = v
			}
			if v, ok := strings.CutPrefix(line, "# branch.ab "); ok {
				ab = v
			}
		}
		return upstream, ab
	}
	shown := func(st core.Status) (string, string) {
		return st.Upstream, "+" + strconv.Itoa(st.Ahead) + " -" + strconv.Itoa(st.Behind)
	}
	served := false
	for range 3 {
		if _, ran := listed(); ran == 0 {
			served = true
			break
		}
	}
	if !served {
		t.Fatal("the cache never served the unchanged listing")
	}
	st, _ := listed()
	if up, ab := gits(); up != "remotes/origin/main" || ab != "+1 -0" {
		t.Fatalf("git prints upstream %q %q; the case needs remotes/origin/main +1 -0", up, ab)
	}
	if gotUp, gotAB := shown(st); gotUp != "remotes/origin/main" || gotAB != "+1 -0" {
		t.Fatalf("the cached listing shows %q %q, git prints remotes/origin/main +1 -0", gotUp, gotAB)
	}
	r.Git(r.Root, "commit", "-q", "--allow-empty", "-m", "fetched")
	r.Git(r.Root, "update-ref", "refs/remotes/origin/main", "main")
	st, ran := listed()
	wantUp, wantAB := gits()
	if gotUp, gotAB := shown(st); gotUp != wantUp || gotAB != wantAB || ran != 1 {
		t.Fatalf("after the fetch the listing shows %q %q (%d git statuses); git prints %q %q", gotUp, gotAB, ran, wantUp, wantAB)
	}
}
