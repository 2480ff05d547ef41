package core_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

func TestDefaultPathAndHeadCommit(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/here", "app.worktrees/here")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "work in here")
	s := open(t, r, wt)
	ctx := context.Background()
	p, err := s.DefaultPath(ctx, "feat/new-thing")
	if want := filepath.Join(r.Base, "app.worktrees", "feat-new-thing"); err != nil || p != want {
		t.Fatalf("DefaultPath = %q, %v; want %s", p, err, want)
	}
	if _, err := s.DefaultPath(ctx, "bad..name"); err == nil {
		t.Error("an invalid branch has a default path")
	}
	c, err := s.HeadCommit(ctx)
	if err != nil || c.OID != r.Git(wt, "rev-parse", "HEAD") || c.Subject != "work in here" {
		t.Fatalf("HeadCommit = %+v, %v: want this worktree's HEAD, not the main checkout's", c, err)
	}
}

func TestCommitsDescribeHeads(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/x", "app.worktrees/x")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "subject with\x1b[31m escape")
	s := open(t, r, r.Root)
	a, b := r.Git(r.Root, "rev-parse", "HEAD"), r.Git(wt, "rev-parse", "HEAD")
	cs, err := s.Commits(context.Background(), []string{a, b, a, "", "not-an-oid"})
	if err != nil || len(cs) != 2 {
		t.Fatalf("Commits = %+v, %v", cs, err)
	}
	if cs[a].Subject != "initial" || cs[a].Author != "copse test" || cs[a].When.IsZero() {
		t.Errorf("main's commit = %+v", cs[a])
	}
	if strings.Contains(cs[b].Subject, "\x1b") || !strings.HasPrefix(cs[b].Subject, "subject with") {
		t.Errorf("subject not escaped: %q", cs[b].Subject)
	}
}

// The sort a person picks is their preference: it goes to the user's global git config,
// never into the repository's (which a repository that sets copse.sort itself keeps).
func TestSortOrderRemembered(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	ctx := context.Background()
	if got := s.SortOrder(ctx); got != core.SortName {
		t.Errorf("unset sort = %q", got)
	}
	if err := s.SetSortOrder(ctx, core.SortRecent); err != nil {
		t.Fatal(err)
	}
	if got := r.Git(r.Root, "config", "--global", "copse.sort"); got != "recent" {
		t.Errorf("git config --global copse.sort = %q", got)
	}
	if got, err := r.TryGit(r.Root, "config", "--local", "copse.sort"); err == nil {
		t.Errorf("the sort was written into the repository's config: %q", got)
	}
	if got := open(t, r, r.Root).SortOrder(ctx); got != core.SortRecent {
		t.Errorf("reopened sort = %q", got)
	}
	before := r.Snapshot()
	wantCode(t, s.SetSortOrder(ctx, "size"), core.KindUsage, "bad_sort")
	r.Unchanged(before)
	r.Git(r.Root, "config", "copse.sort", "bogus")
	if got := s.SortOrder(ctx); got != core.SortName {
		t.Errorf("unknown sort = %q", got)
	}
	// The repository's own value wins over the global one, so the cycle writes there.
	if err := s.SetSortOrder(ctx, core.SortPath); err != nil {
		t.Fatal(err)
	}
	if got := r.Git(r.Root, "config", "--local", "copse.sort"); got != "path" {
		t.Errorf("a repository's own copse.sort was not updated: %q", got)
	}
	if got := r.Git(r.Root, "config", "--global", "copse.sort"); got != "recent" {
		t.Errorf("the global copse.sort changed beside a local one: %q", got)
	}
	if got := s.SortOrder(ctx); got != core.SortPath {
		t.Errorf("sort after the cycle = %q", got)
	}
}

func TestWorktreesStampChanges(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	ctx := context.Background()
	a, err := s.WorktreesStamp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wt := r.AddWorktree("feat/x", "app.worktrees/x")
	b, _ := s.WorktreesStamp(ctx)
	if a == b {
		t.Fatalf("adding a worktree did not change the stamp %q", a)
	}
	if c, _ := s.WorktreesStamp(ctx); c != b {
		t.Errorf("stamp changed with nothing done: %q → %q", b, c)
	}
	r.Git(r.Root, "worktree", "lock", "--reason", "usb", wt)
	c, _ := s.WorktreesStamp(ctx)
	if c == b {
		t.Errorf("locking did not change the stamp")
	}
	r.Git(r.Root, "switch", "-q", "-c", "other")
	if d, _ := s.WorktreesStamp(ctx); d == c {
		t.Errorf("the main checkout changing branch did not change the stamp")
	}
}

func TestEditorAndShellCommands(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	env := map[string]string{"EDITOR": "vi -n"}
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: func(k string) string { return env[k] }, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.EditorCommand(r.Root)
	if err != nil || c.Dir != r.Root || strings.Join(c.Args, " ") != `sh -c vi -n "$1" sh `+r.Root {
		t.Fatalf("EditorCommand = %v, %v", c, err)
	}
	env["VISUAL"] = "code -w"
	if c, _ = s.EditorCommand(r.Root); !strings.Contains(c.Args[2], "code -w") {
		t.Errorf("VISUAL does not come first: %v", c.Args)
	}
	delete(env, "VISUAL")
	delete(env, "EDITOR")
	if _, err := s.EditorCommand(r.Root); err == nil || !strings.Contains(err.Error(), "EDITOR") {
		t.Errorf("no editor: %v", err)
	}
	if sh := s.ShellCommand(r.Root); sh.Path != "/bin/sh" || sh.Dir != r.Root {
		t.Errorf("ShellCommand = %s in %s", sh.Path, sh.Dir)
	}
	env["SHELL"] = "/bin/bash"
	if sh := s.ShellCommand(r.Root); sh.Args[0] != "/bin/bash" {
		t.Errorf("SHELL ignored: %v", sh.Args)
	}
	// Both get Options.Env over the process's, as copse's own git does (the last value of
	// a variable wins in exec.Cmd.Env).
	env["EDITOR"] = "vi"
	ed, _ := s.EditorCommand(r.Root)
	want := "HOME=" + r.Home
	for _, c := range []*exec.Cmd{ed, s.ShellCommand(r.Root)} {
		if i := slices.Index(c.Env, want); i < 0 || slices.ContainsFunc(c.Env[i+1:], func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }) {
			t.Errorf("%s: HOME is not Options.Env's %s", c.Path, r.Home)
		}
	}
}

func TestPreviewAndDivergence(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/p", "app.worktrees/p")
	coretest.WriteFile(t, filepath.Join(wt, "new.txt"), "one\ntwo\n")
	r.Git(wt, "add", "new.txt")
	r.Git(wt, "commit", "-q", "-m", "add new.txt")
	r.Git(r.Root, "commit", "-q", "--allow-empty", "-m", "main moves on")
	coretest.WriteFile(t, filepath.Join(wt, "README.md"), "changed\n")
	coretest.WriteFile(t, filepath.Join(wt, "untracked\x1b[31m.txt"), "x\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	p, err := s.Preview(context.Background(), wt, "main")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(p.Status, "\n") + "\n" + strings.Join(p.Log, "\n") + "\n" + strings.Join(p.DiffStat, "\n")
	for _, want := range []string{" M README.md", "?? ", "add new.txt", "initial", "new.txt", "2 files changed"} {
		if !strings.Contains(all, want) {
			t.Errorf("preview lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "\x1b") || !strings.HasPrefix(p.Base, "main (") || len(p.Problems) != 0 {
		t.Errorf("base %q problems %v, escapes: %q", p.Base, p.Problems, all)
	}
	r.Unchanged(before)
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	rows := append(l.Worktrees, core.Worktree{Path: "/nonexistent", Head: strings.Repeat("0", 40)})
	d := s.Divergences(context.Background(), "main", rows)
	if d[wt] != (core.Divergence{Ahead: 1, Behind: 1}) || d[r.Root] != (core.Divergence{}) || len(d) != 2 {
		t.Errorf("divergences = %+v", d)
	}
	if _, err := s.Preview(context.Background(), "relative", "main"); err == nil {
		t.Error("a relative path was previewed")
	}
}
