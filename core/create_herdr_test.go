package core_test

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
)

// Herdr creates the branch at the remote's commit; copse sets the upstream with git.
func TestHerdrCreateFromRemote(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	oid := withRemoteBranch(t, w.Repo, "origin")
	s := w.plain(t)
	p, err := s.Prepare(bg, core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 2 || !strings.Contains(p.Commands[0], "--branch feat --base "+oid) ||
		!strings.HasSuffix(p.Commands[1], "branch --set-upstream-to=refs/remotes/origin/feat -- feat") {
		t.Fatalf("commands %q", p.Commands)
	}
	out, err := s.Execute(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Worktree.Head != oid || out.WorkspaceID == "" {
		t.Fatalf("outcome %+v", out)
	}
	if up := w.Git(out.Path, "rev-parse", "--abbrev-ref", "feat@{upstream}"); up != "origin/feat" {
		t.Fatalf("upstream %q", up)
	}
}

// Under Herdr, a worktree mid-rebase is switched to by its branch, though git (and Herdr)
// see it detached.
func TestHerdrSwitchToRebasingWorktree(t *testing.T) {
	t.Parallel()
	w := newHW(t)
	wt := midRebase(t, w.Repo)
	s := w.plain(t)
	out, err := do(t, s, core.SwitchRequest{Branch: core.Str("topic")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != wt || out.WorkspaceID == "" {
		t.Fatalf("outcome %+v", out)
	}
}
