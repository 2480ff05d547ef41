package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRemoteBranches(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	out := a + " refs/remotes/origin/HEAD refs/remotes/origin/HEAD\n" + // symbolic: skipped
		a + "  refs/remotes/origin/feat/x\n" +
		b + "  refs/remotes/team/alice/feat\n" + // remote "team/alice" beats "team"
		b + "  refs/remotes/gone/feat\n" // not a configured remote: skipped
	got, err := parseRemoteBranches(out, []string{"origin", "team", "team/alice"})
	if err != nil {
		t.Fatal(err)
	}
	want := []RemoteBranch{{"origin", "feat/x", a}, {"team/alice", "feat", b}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v want %+v", got, want)
	}
	if _, err := parseRemoteBranches("garbage\n", nil); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestRemoteBuildersRefuseOptions(t *testing.T) {
	t.Parallel()
	if _, err := WorktreeAddTrack("/r", "/p", "b", "-o", "x"); err == nil {
		t.Fatal("a remote starting with '-' was accepted")
	}
	if _, err := BranchDeleteIfAt("/r", "b", "HEAD"); err == nil {
		t.Fatal("a non-oid compare value was accepted")
	}
	c, err := BranchDeleteIfAt("/r", "feat/x", strings.Repeat("c", 40))
	if err != nil || c.String() != "git -C /r update-ref -d --end-of-options refs/heads/feat/x "+strings.Repeat("c", 40) {
		t.Fatalf("%v %v", c, err)
	}
	c, _ = BranchConfigList("/r", "a.b+c")
	if got := c.Argv()[len(c.Argv())-1]; got != `^branch\.a\.b\+c\.` {
		t.Fatalf("regexp %q", got)
	}
}

// A rebase that started detached names no branch; one that started on a branch does.
func TestAddHeldBranch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitDir := filepath.Join(dir, ".git")
	write := func(rel, content string) {
		p := filepath.Join(gitDir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	row := func() Worktree { return Worktree{Path: dir, Head: strings.Repeat("d", 40), Detached: true} }
	w := row()
	addHeldBranch(&w)
	if w.Branch != "" || w.Rebasing {
		t.Fatalf("plain detached row changed: %+v", w)
	}
	write("rebase-merge/head-name", "detached HEAD\n")
	w = row()
	addHeldBranch(&w)
	if w.Branch != "" || w.Rebasing {
		t.Fatalf("detached rebase gained a branch: %+v", w)
	}
	write("rebase-merge/head-name", "refs/heads/feat/y\n")
	w = row()
	addHeldBranch(&w)
	if w.Branch != "feat/y" || !w.Rebasing || !w.Detached {
		t.Fatalf("rebase row: %+v", w)
	}
	os.RemoveAll(filepath.Join(gitDir, "rebase-merge"))
	write("BISECT_START", strings.Repeat("e", 40)+"\n")
	w = row()
	addHeldBranch(&w)
	if w.Branch != "" {
		t.Fatalf("bisect from a detached HEAD gained a branch: %+v", w)
	}
	write("BISECT_START", "hunt\n")
	w = row()
	addHeldBranch(&w)
	if w.Branch != "hunt" || !w.Bisecting {
		t.Fatalf("bisect row: %+v", w)
	}
	write("BISECT_START", "bad name..\n")
	w = row()
	addHeldBranch(&w)
	if w.Branch != "" {
		t.Fatalf("invalid name accepted: %+v", w)
	}
}
