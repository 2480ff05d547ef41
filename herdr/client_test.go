package herdr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// The client against the double, through the whole life of a worktree.
func TestClientLifecycle(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})

	l, err := c.List(bg, w.Repo)
	if err != nil {
		t.Fatal(err)
	}
	if l.Source.RepoRoot != w.Repo || l.Source.RepoName != "app" || l.Source.RepoKey != filepath.Join(w.Repo, ".git") ||
		l.Source.SourceWorkspaceID != "" || len(l.Worktrees) != 1 || l.Worktrees[0].Path != w.Repo || l.Worktrees[0].Branch != "main" {
		t.Fatalf("list = %+v", l)
	}

	created, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/login"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Worktrees, "app", "feat-login")
	if created.Workspace.WorkspaceID != "w1" || created.Worktree.Path != path || created.Worktree.Branch != "feat/login" ||
		!created.Worktree.IsLinkedWorktree || created.Worktree.Label != "app" || created.Worktree.OpenWorkspaceID != "w1" ||
		created.Workspace.Focused || created.AlreadyOpen || created.Workspace.Worktree.CheckoutPath != path {
		t.Fatalf("created = %+v", created)
	}
	if !w.gitHas(t, path) || w.Git(t, path, "branch", "--show-current") != "feat/login" {
		t.Fatal("git does not show the new worktree on feat/login")
	}
	// The argv that reached "herdr": scoped with --cwd, --no-focus, run in the checkout.
	var logged struct {
		Argv []string `json:"argv"`
		Dir  string   `json:"dir"`
	}
	inv := w.invocations(t)
	if err := json.Unmarshal([]byte(inv[len(inv)-1]), &logged); err != nil {
		t.Fatal(err)
	}
	if want := []string{"worktree", "create", "--cwd", w.Repo, "--branch", "feat/login", "--no-focus"}; !slices.Equal(logged.Argv, want) || logged.Dir != w.Repo {
		t.Fatalf("herdr ran %q in %s", logged.Argv, logged.Dir)
	}
	// Herdr #4032: the parent workspace was opened too, unreported.
	st := w.state(t)
	if len(st.Workspaces) != 2 || st.Workspaces[1].Checkout != w.Repo || st.Workspaces[1].Linked || st.Workspaces[1].ID != "w2" {
		t.Fatalf("state = %+v", st)
	}

	l, err = c.List(bg, w.Repo)
	if err != nil {
		t.Fatal(err)
	}
	if l.Source.SourceWorkspaceID != "w2" || len(l.Worktrees) != 2 || l.Worktrees[1].OpenWorkspaceID != "w1" || l.Worktrees[0].OpenWorkspaceID != "w2" {
		t.Fatalf("list = %+v", l)
	}

	opened, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "feat/login", Label: "login", Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	if !opened.AlreadyOpen || opened.Workspace.WorkspaceID != "w1" || opened.Workspace.Label != "login" || !opened.Workspace.Focused {
		t.Fatalf("opened = %+v", opened)
	}
	main, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Path: w.Repo})
	if err != nil {
		t.Fatal(err)
	}
	if !main.AlreadyOpen || main.Workspace.WorkspaceID != "w2" || main.Worktree.IsLinkedWorktree {
		t.Fatalf("open main = %+v", main)
	}

	removed, err := c.Remove(bg, "w1", false)
	if err != nil {
		t.Fatal(err)
	}
	if removed.WorkspaceID != "w1" || removed.Path != path || removed.Forced {
		t.Fatalf("removed = %+v", removed)
	}
	if w.gitHas(t, path) {
		t.Fatal("git still lists the removed worktree")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("checkout still on disk: %v", err)
	}
	if st := w.state(t); st.Find("w1") >= 0 || st.Focused != "w2" {
		t.Fatalf("state after remove = %+v", st)
	}
	// The branch is never deleted.
	w.Git(t, w.Repo, "rev-parse", "--verify", "refs/heads/feat/login")
}

func TestClientCreateOptions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	base := w.Git(t, w.Repo, "rev-parse", "HEAD")
	w.Git(t, w.Repo, "commit", "-q", "--allow-empty", "-m", "second")
	path := filepath.Join(filepath.Dir(w.Repo), "app.worktrees", "feat-x")
	r, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/x", Base: base, Path: path, Label: "Feature X", Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Worktree.Path != path || r.Workspace.Label != "Feature X" || !r.Workspace.Focused {
		t.Fatalf("created = %+v", r)
	}
	if got := w.Git(t, path, "rev-parse", "HEAD"); got != base {
		t.Fatalf("HEAD = %s, want base %s", got, base)
	}
	// An existing local branch is checked out as it is (base ignored, since 0.7.1).
	w.Git(t, w.Repo, "branch", "old", base)
	r, err = c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "old", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Git(t, r.Worktree.Path, "rev-parse", "HEAD"); got != base {
		t.Fatalf("existing branch moved: HEAD = %s", got)
	}
}

func TestClientRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	created, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/a"})
	if err != nil {
		t.Fatal(err)
	}
	linked := created.Worktree.Path
	before := w.WorktreePaths(t)

	_, err = c.Create(bg, CreateArgs{Cwd: linked, Branch: "feat/b"})
	replyErr(t, err, "linked_worktree_source")
	_, err = c.Open(bg, OpenArgs{Cwd: linked, Branch: "feat/a"})
	replyErr(t, err, "linked_worktree_source")
	_, err = c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/a"})
	he := replyErr(t, err, "worktree_create_failed")
	if !strings.Contains(he.Message, "feat/a") {
		t.Fatalf("message %q does not carry git's text", he.Message)
	}
	_, err = c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "nope"})
	replyErr(t, err, "worktree_not_found")
	_, err = c.Open(bg, OpenArgs{Cwd: w.Repo, Path: filepath.Join(w.Home, "nope")})
	replyErr(t, err, "worktree_not_found")
	_, err = c.List(bg, w.Home)
	replyErr(t, err, "not_git_worktree")
	_, err = c.Remove(bg, "w2", false) // the parent workspace
	replyErr(t, err, "not_linked_worktree")
	_, err = c.Remove(bg, "wZZ", false)
	replyErr(t, err, "workspace_not_found")
	if got := w.WorktreePaths(t); !slices.Equal(got, before) {
		t.Fatalf("a refusal changed git: %q → %q", before, got)
	}

	// list accepts a linked worktree and resolves it to the parent.
	l, err := c.List(bg, linked)
	if err != nil {
		t.Fatal(err)
	}
	if l.Source.RepoRoot != w.Repo || len(l.Worktrees) != 2 {
		t.Fatalf("list from linked = %+v", l)
	}
}

func TestClientRemoveDirty(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	r, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/dirty"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Worktree.Path, "notes.txt"), []byte("wip"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.Remove(bg, r.Workspace.WorkspaceID, false)
	he := replyErr(t, err, "dirty_worktree_requires_force")
	if !strings.Contains(he.Message, "use --force") {
		t.Fatalf("message = %q", he.Message)
	}
	if !w.gitHas(t, r.Worktree.Path) || w.state(t).Find(r.Workspace.WorkspaceID) < 0 {
		t.Fatal("a refused remove changed something")
	}
	gone, err := c.Remove(bg, r.Workspace.WorkspaceID, true)
	if err != nil {
		t.Fatal(err)
	}
	if !gone.Forced || w.gitHas(t, r.Worktree.Path) {
		t.Fatalf("forced remove = %+v", gone)
	}
}

// A workspace opened by hand has no worktree membership: remove refuses it.
func TestClientRemovePlainWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	herdrdouble.WriteState(t, w.State, herdrdouble.State{Next: 1, Workspaces: []herdrdouble.Workspace{{ID: "w1", Checkout: w.Repo, Label: "app"}}})
	_, err := w.client(herdrdouble.Knobs{}).Remove(bg, "w1", true)
	replyErr(t, err, "not_linked_worktree")
}

// Doubles running at once share one state file without losing an id.
func TestClientConcurrentCreates(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	const n = 6
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "feat/c" + string(rune('a'+i))})
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = r.Workspace.WorkspaceID
		}()
	}
	wg.Wait()
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != n {
		t.Fatalf("ids = %q", ids)
	}
	if st := w.state(t); len(st.Workspaces) != n+1 || len(w.WorktreePaths(t)) != n+1 {
		t.Fatalf("state has %d workspaces, git %d worktrees", len(st.Workspaces), len(w.WorktreePaths(t)))
	}
}

// Every refused command is refused before any process starts.
func TestClientRefusesBeforeRunning(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.client(herdrdouble.Knobs{})
	calls := map[string]func() error{
		"list relative":      func() error { _, err := c.List(bg, "app"); return err },
		"create no branch":   func() error { _, err := c.Create(bg, CreateArgs{Cwd: w.Repo}); return err },
		"create dash branch": func() error { _, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "-D"}); return err },
		"create newline":     func() error { _, err := c.Create(bg, CreateArgs{Cwd: w.Repo, Branch: "a", Label: "x\ny"}); return err },
		"open both":          func() error { _, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "a", Path: w.Repo}); return err },
		"open bidi":          func() error { _, err := c.Open(bg, OpenArgs{Cwd: w.Repo, Branch: "a\u202eb"}); return err },
		"remove number":      func() error { _, err := c.Remove(bg, "1", true); return err },
		"run zero Cmd":       func() error { _, err := c.Run(bg, Cmd{}); return err },
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if inv := w.invocations(t); len(inv) != 0 {
		t.Fatalf("herdr ran %d times: %q", len(inv), inv)
	}
	if len(w.WorktreePaths(t)) != 1 {
		t.Fatal("git changed")
	}
}
