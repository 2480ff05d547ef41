package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// A worktree mid-rebase is listed, switched to and refused for create under its branch.
func TestCLIRebasingWorktree(t *testing.T) {
	r := coretest.New(t)
	wt := r.AddWorktree("topic", filepath.Join(r.Base, "app.worktrees", "topic"))
	coretest.WriteFile(t, filepath.Join(wt, "README.md"), "topic\n")
	r.Git(wt, "commit", "-q", "-am", "topic edit")
	r.Write("README.md", "main\n")
	r.Git(r.Root, "commit", "-q", "-am", "main edit")
	if _, err := r.TryGit(wt, "rebase", "main"); err == nil {
		t.Fatal("the rebase should stop on a conflict")
	}
	res := runWith(t, r, r.Root, []string{"HOME=" + r.Base}, nil, "list")
	want(t, res, 0)
	if !strings.Contains(res.stdout, "  topic  ~/app.worktrees/topic  rebasing\n") {
		t.Fatalf("list:\n%s", res.stdout)
	}
	res = run(t, r, r.Root, "list", "--json")
	if !strings.Contains(res.stdout, `"branch":"topic","path":"`+wt+`"`) || !strings.Contains(res.stdout, `"rebasing":true`) {
		t.Fatalf("list --json:\n%s", res.stdout)
	}
	res = run(t, r, r.Root, "switch", "topic")
	want(t, res, 0)
	if strings.TrimSpace(res.stdout) != wt {
		t.Fatalf("switch topic:\n%s", res)
	}
	before := r.Snapshot()
	res = run(t, r, r.Root, "create", "topic")
	want(t, res, 1, "being rebased at "+wt)
	r.Unchanged(before)
}

func TestCLICreateFromRemote(t *testing.T) {
	r := coretest.New(t)
	r.Git(r.Root, "branch", "feat")
	for _, name := range []string{"origin", "upstream"} {
		r.Git(r.Root, "remote", "add", name, r.Root)
		r.Git(r.Root, "fetch", "-q", name)
	}
	r.Git(r.Root, "branch", "-D", "-q", "feat")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 1, "origin, upstream", "copse create origin/feat")
	r.Unchanged(before)

	res = run(t, r, r.Root, "create", "origin/feat")
	want(t, res, 0)
	if !strings.Contains(res.stderr, "created branch feat from origin/feat (tracking it)") {
		t.Fatalf("no notice:\n%s", res)
	}
}

// git's fatal line reaches the user, not "Preparing worktree".
func TestCLIFailedCreateShowsGitError(t *testing.T) {
	r := coretest.New(t)
	r.Write(".gitattributes", "data.txt filter=bad\n")
	r.Write("data.txt", "payload\n")
	r.Git(r.Root, "add", ".")
	r.Git(r.Root, "commit", "-q", "-m", "filtered")
	r.Git(r.Root, "config", "filter.bad.smudge", "false")
	r.Git(r.Root, "config", "filter.bad.required", "true")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat/x")
	want(t, res, 1, "fatal: data.txt: smudge filter bad failed", "nothing changed")
	if strings.Contains(res.stderr, "Preparing worktree") {
		t.Fatalf("progress shown as the error:\n%s", res)
	}
	r.Unchanged(before)
}
