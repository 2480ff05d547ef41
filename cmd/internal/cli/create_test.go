package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// A worktree mid-rebase is listed, switched to and refused for create under its branch.
func TestCLIRebasingWorktree(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// From inside another agent's worktree, a new branch starts at the main checkout's
// branch, and every output says which ref and commit.
func TestCLICreateNamesItsBase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("feat/a", filepath.Join(r.Base, "trees", "a"))
	coretest.WriteFile(t, filepath.Join(a, "a.txt"), "unreviewed\n")
	r.Git(a, "add", "a.txt")
	r.Git(a, "commit", "-q", "-m", "unreviewed work")
	mainTip := r.Git(r.Root, "rev-parse", "main")

	before := r.Snapshot()
	res := run(t, r, a, "create", "feat/dry", "--dry-run")
	want(t, res, 0, "the new branch would start from main at "+mainTip[:7], mainTip)
	r.Unchanged(before)

	res = run(t, r, a, "create", "feat/x")
	want(t, res, 0, "created feat/x at ", " from main at "+mainTip[:7]+"\n")
	if got := r.Git(r.Root, "rev-parse", "feat/x"); got != mainTip {
		t.Fatalf("feat/x at %s, want main's %s", got, mainTip)
	}

	res = run(t, r, a, "create", "feat/y", "--json")
	want(t, res, 0)
	var out struct {
		Base map[string]string `json:"base"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("%v:\n%s", err, res)
	}
	if out.Base["ref"] != "main" || out.Base["commit"] != mainTip || out.Base["from"] != "main" {
		t.Fatalf("base %v:\n%s", out.Base, res)
	}
}

func TestCLICreateRefusesBadConfigBase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "config", "copse.base", "gone")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat/x", "--json")
	want(t, res, 2)
	if e := decodeError(t, res); e.Code != "bad_base_config" || !strings.Contains(e.Message, "copse.base") || !strings.Contains(e.Hint, "--unset copse.base") {
		t.Fatalf("error %+v", e)
	}
	r.Unchanged(before)
	// A base given on the command line does not need the setting.
	res = run(t, r, r.Root, "create", "feat/x", "--base", "main")
	want(t, res, 0, "from main at ")
}
