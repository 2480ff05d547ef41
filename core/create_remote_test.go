package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// withRemoteBranch makes remotes (named) that are the repository itself, fetched, so each
// has <remote>/feat one commit ahead of main, and no local feat exists. It returns feat's commit.
func withRemoteBranch(t *testing.T, r *coretest.Repo, remotes ...string) string {
	t.Helper()
	r.Git(r.Root, "branch", "feat")
	oid := r.Git(r.Root, "commit-tree", "-p", "HEAD", "-m", "remote work", "HEAD^{tree}")
	r.Git(r.Root, "update-ref", "refs/heads/feat", oid)
	for _, name := range remotes {
		r.Git(r.Root, "remote", "add", name, r.Root)
		r.Git(r.Root, "fetch", "-q", name)
	}
	r.Git(r.Root, "branch", "-D", "-q", "feat")
	return oid
}

func TestCreateFromSingleRemote(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	oid := withRemoteBranch(t, r, "origin")
	s := open(t, r, r.Root)
	p, err := s.Prepare(context.Background(), core.CreateRequest{Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	if dry := s.DryRun(p); len(dry.Commands) != 1 || !strings.Contains(dry.Commands[0], "worktree add --track -b feat -- ") ||
		!strings.HasSuffix(dry.Commands[0], " refs/remotes/origin/feat") {
		t.Fatalf("commands %q", dry.Commands)
	}
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Worktree.Branch != "feat" || out.Worktree.Head != oid {
		t.Fatalf("created %+v, want feat at %s", out.Worktree, oid)
	}
	if up := r.Git(out.Path, "rev-parse", "--abbrev-ref", "feat@{upstream}"); up != "origin/feat" {
		t.Fatalf("upstream %q", up)
	}
	if !strings.Contains(strings.Join(out.Notices, "\n"), "created branch feat from origin/feat (tracking it)") || len(out.Warnings) != 0 {
		t.Fatalf("notices %q, warnings %q", out.Notices, out.Warnings)
	}
}

func TestCreateAmbiguousRemoteRefused(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	withRemoteBranch(t, r, "origin", "upstream")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "feat"})
	wantCode(t, err, core.KindRefused, "ambiguous_remote_branch")
	e := core.AsError(err)
	if !strings.Contains(e.Message, "origin, upstream") || !strings.Contains(e.Hint, "`copse create origin/feat`") ||
		!strings.Contains(e.Hint, "`copse create upstream/feat`") || core.ExitCode(err) != 1 {
		t.Fatalf("refusal should name the remotes and how to pick: %v", e)
	}
	r.Unchanged(before)

	k, err := s.CreateKind(context.Background(), "feat", false)
	if err != nil || k.Source != core.CreateAmbiguous || strings.Join(k.Remotes, ",") != "origin,upstream" {
		t.Fatalf("CreateKind %+v %v", k, err)
	}
}

// origin/feat means the remote branch: local feat, tracking upstream/feat here.
func TestCreateNamedRemoteBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	oid := withRemoteBranch(t, r, "origin", "upstream")
	s := open(t, r, r.Root)
	k, err := s.CreateKind(context.Background(), "upstream/feat", false)
	if err != nil || k.Source != core.CreateFromRemote || k.Branch != "feat" || k.Remote != "upstream/feat" {
		t.Fatalf("CreateKind %+v %v", k, err)
	}
	out, err := do(t, s, core.CreateRequest{Branch: "upstream/feat"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Worktree.Branch != "feat" || out.Worktree.Head != oid || !strings.HasSuffix(out.Path, "/feat") {
		t.Fatalf("created %+v at %s", out.Worktree, out.Path)
	}
	if up := r.Git(out.Path, "rev-parse", "--abbrev-ref", "feat@{upstream}"); up != "upstream/feat" {
		t.Fatalf("upstream %q", up)
	}
	if _, err := r.TryGit(r.Root, "show-ref", "--verify", "refs/heads/upstream/feat"); err == nil {
		t.Fatal("a local branch literally named upstream/feat was made")
	}
}

func TestCreateNamedRemoteRefusals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	withRemoteBranch(t, r, "origin")
	r.Git(r.Root, "branch", "local")
	r.Git(r.Root, "update-ref", "refs/remotes/origin/local", "HEAD")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	for _, c := range []struct {
		req  core.CreateRequest
		kind core.Kind
		code string
	}{
		{core.CreateRequest{Branch: "origin/nope"}, core.KindRefused, "no_remote_branch"},
		{core.CreateRequest{Branch: "origin/local"}, core.KindRefused, "branch_exists"},
		{core.CreateRequest{Branch: "origin/feat", Base: core.Str("HEAD")}, core.KindUsage, "base_with_remote_branch"},
	} {
		_, err := do(t, s, c.req)
		wantCode(t, err, c.kind, c.code)
		if c.code == "no_remote_branch" && !strings.Contains(err.Error(), "git fetch origin") {
			t.Fatalf("hint: %v", err)
		}
	}
	r.Unchanged(before)
	// A base means a new branch of one's own: no remote is looked for.
	k, err := s.CreateKind(context.Background(), "feat", true)
	if err != nil || k.Source != core.CreateNew {
		t.Fatalf("with a base: %+v %v", k, err)
	}
	k, err = s.CreateKind(context.Background(), "local", false)
	if err != nil || k.Source != core.CreateExisting {
		t.Fatalf("local: %+v %v", k, err)
	}
	k, err = s.CreateKind(context.Background(), "brand-new", false)
	if err != nil || k.Source != core.CreateNew || !strings.Contains(k.Describe(), "new branch brand-new") {
		t.Fatalf("new: %+v %v", k, err)
	}
}

// A remote create that fails takes back the branch and the upstream settings --track wrote.
func TestFailedRemoteCreateTakesConfigBack(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	failingSmudge(t, r)
	withRemoteBranch(t, r, "origin")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.CreateRequest{Branch: "feat"})
	e := wantFailedCleanly(t, err, "smudge filter bad failed")
	if !strings.Contains(e.Message, "upstream settings") {
		t.Fatalf("message %q", e.Message)
	}
	r.Unchanged(before) // includes .git/config
}
