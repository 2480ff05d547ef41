package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// baseMeta reads what the new worktree's admin directory keeps about its base.
func baseMeta(t *testing.T, r *coretest.Repo, w *core.Worktree) *core.CreateBase {
	t.Helper()
	if w.ID == "" {
		t.Fatalf("created worktree %s has no id", w.Path)
	}
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "worktrees", w.ID, "copse.json"))
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	var m struct {
		V    int              `json:"v"`
		Base *core.CreateBase `json:"base"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.V != 1 {
		t.Fatalf("metadata %s: %v", b, err)
	}
	return m.Base
}

func TestCreateFromAnotherWorktreeStartsAtMainsBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := feature(t, r, "feat/a", "a.txt", "unreviewed\n")
	mainTip := r.Git(r.Root, "rev-parse", "main")
	s := open(t, r, a) // copse runs inside feat/a's worktree
	out, err := do(t, s, core.CreateRequest{Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git(r.Root, "rev-parse", "refs/heads/feat/x"); got != mainTip {
		t.Fatalf("feat/x starts at %s, want main's tip %s (not feat/a's %s)", got, mainTip, r.Git(a, "rev-parse", "HEAD"))
	}
	want := core.CreateBase{Ref: "main", Commit: mainTip, Branch: "main", From: core.BaseFromMain}
	if out.Base == nil || *out.Base != want {
		t.Fatalf("outcome base %+v, want %+v", out.Base, want)
	}
	if m := baseMeta(t, r, out.Worktree); m == nil || *m != want {
		t.Fatalf("metadata base %+v, want %+v", m, want)
	}
	// An explicit base still means what the caller says, here: this worktree's HEAD.
	out, err = do(t, s, core.CreateRequest{Branch: "feat/y", Base: core.Str("HEAD")})
	if err != nil {
		t.Fatal(err)
	}
	aTip := r.Git(a, "rev-parse", "HEAD")
	if out.Base == nil || out.Base.Commit != aTip || out.Base.Branch != "feat/a" || out.Base.From != core.BaseFromRequest {
		t.Fatalf("--base HEAD gave %+v, want feat/a at %s", out.Base, aTip)
	}
}

func TestCreateDefaultBaseFromConfig(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "develop")
	dev := commitOn(t, r, r.AddWorktree("other", "trees/other"), "o.txt", "o\n")
	r.Git(r.Root, "branch", "-f", "develop", dev)
	r.Git(r.Root, "config", "copse.base", "develop")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	want := core.CreateBase{Ref: "develop", Commit: dev, Branch: "develop", From: core.BaseFromConfig}
	if got := r.Git(r.Root, "rev-parse", "refs/heads/feat/x"); got != dev || out.Base == nil || *out.Base != want {
		t.Fatalf("feat/x at %s, base %+v; want %+v", got, out.Base, want)
	}
	// A tag is a base too, but not a branch to land into.
	r.Git(r.Root, "tag", "v1", "main")
	r.Git(r.Root, "config", "copse.base", "v1")
	out, err = do(t, s, core.CreateRequest{Branch: "feat/t"})
	if err != nil {
		t.Fatal(err)
	}
	if main := r.Git(r.Root, "rev-parse", "main"); out.Base == nil || out.Base.Commit != main || out.Base.Branch != "" || out.Base.Ref != "v1" {
		t.Fatalf("copse.base v1 gave %+v", out.Base)
	}
	// An existing branch is checked out where it is: no base applies.
	out, err = do(t, s, core.CreateRequest{Branch: "develop"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Base != nil || out.Worktree.Head != dev {
		t.Fatalf("existing branch: base %+v, head %s", out.Base, out.Worktree.Head)
	}
}

func TestCreateRefusesBadConfigBaseChangingNothing(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"no-such-branch", "-main", "main\x1b[2J"} {
		r := coretest.New(t)
		r.Git(r.Root, "config", "copse.base", v)
		s := open(t, r, r.Root)
		before := r.Snapshot()
		_, err := do(t, s, core.CreateRequest{Branch: "feat/x"})
		wantCode(t, err, core.KindUsage, core.CodeBadBaseConfig)
		if e := core.AsError(err); !strings.Contains(e.Message, "copse.base") || !strings.Contains(e.Hint, "git config") {
			t.Fatalf("copse.base %q: refusal %q / %q does not name the setting and the way out", v, e.Message, e.Hint)
		}
		if got := core.ExitCode(err); got != 2 {
			t.Fatalf("exit code %d, want 2", got)
		}
		r.Unchanged(before)
	}
}

func TestCreateFromDetachedMainCheckoutStartsAtItsCommit(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := feature(t, r, "feat/a", "a.txt", "a\n")
	r.Git(r.Root, "checkout", "-q", "--detach", "main")
	head := r.Git(r.Root, "rev-parse", "HEAD")
	s := open(t, r, a)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Base == nil || out.Base.Commit != head || out.Base.Ref != head || out.Base.Branch != "" {
		t.Fatalf("base %+v, want the main checkout's commit %s", out.Base, head)
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "no branch checked out") {
		t.Fatalf("warnings %q do not say the base is a detached commit", out.Warnings)
	}
}

func TestDryRunAndDefaultBaseNameTheBase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := feature(t, r, "feat/a", "a.txt", "a\n")
	s := open(t, r, a)
	mainTip := r.Git(r.Root, "rev-parse", "main")
	b, err := s.DefaultBase(context.Background())
	if err != nil || b.Ref != "main" || b.Commit != mainTip {
		t.Fatalf("DefaultBase = %+v, %v; want main at %s", b, err, mainTip)
	}
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), core.CreateRequest{Branch: "feat/x"})
	if err != nil {
		t.Fatal(err)
	}
	out := s.DryRun(p)
	if out.Base == nil || out.Base.Ref != "main" || out.Base.Commit != mainTip ||
		!strings.Contains(strings.Join(out.Commands, "\n"), mainTip) {
		t.Fatalf("dry run %+v base %+v", out, out.Base)
	}
	r.Unchanged(before)
}

func TestLandDefaultsToTheBranchTheWorktreeWasCreatedFrom(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "develop")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/d", Base: core.Str("develop")})
	if err != nil {
		t.Fatal(err)
	}
	into, _, err := s.LandDefaults(context.Background(), out.Path)
	if err != nil || into != "develop" {
		t.Fatalf("LandDefaults into %q, %v; want develop", into, err)
	}
	mainBefore := r.Git(r.Root, "rev-parse", "main")
	tip := commitOn(t, r, out.Path, "d.txt", "d\n")
	lo, err := land(t, s, core.LandRequest{Branch: core.Str("feat/d")})
	if err != nil {
		t.Fatalf("land: %v", err)
	}
	if lo.Land.Into != "develop" || lo.Land.State != core.LandLanded {
		t.Fatalf("landed into %q (%s), want develop", lo.Land.Into, lo.Land.State)
	}
	if got := r.Git(r.Root, "rev-parse", "develop"); got != tip {
		t.Fatalf("develop at %s, want %s", got, tip)
	}
	if got := r.Git(r.Root, "rev-parse", "main"); got != mainBefore {
		t.Fatalf("main moved to %s", got)
	}
}

func TestLandWithoutRecordedBranchDefaultsToMain(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "tag", "v1")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/t", Base: core.Str("v1")})
	if err != nil {
		t.Fatal(err)
	}
	into, _, err := s.LandDefaults(context.Background(), out.Path)
	if err != nil || into != "main" {
		t.Fatalf("LandDefaults into %q, %v; want main (a tag is no branch to land into)", into, err)
	}
	tip := commitOn(t, r, out.Path, "t.txt", "t\n")
	lo, err := land(t, s, core.LandRequest{Branch: core.Str("feat/t")})
	if err != nil || lo.Land.Into != "main" || r.Git(r.Root, "rev-parse", "main") != tip {
		t.Fatalf("land %+v, %v", lo, err)
	}
}

// In a bare layout the "main checkout" is the bare repository: its HEAD names the default
// branch, and a new branch starts there, not at the linked worktree copse runs in.
func TestCreateInBareRepositoryStartsAtItsHeadBranch(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	bare := filepath.Join(r.Base, "shop.git")
	r.Git(r.Base, "clone", "-q", "--bare", r.Root, bare)
	a := filepath.Join(r.Base, "shop.worktrees", "a")
	r.Git(bare, "worktree", "add", "-q", "-b", "feat/a", a)
	commitOn(t, r, a, "a.txt", "a\n")
	s := open(t, r, a)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/b"})
	if err != nil {
		t.Fatal(err)
	}
	mainTip := r.Git(bare, "rev-parse", "main")
	if out.Base == nil || out.Base.Ref != "main" || out.Base.Commit != mainTip || out.Worktree.Head != mainTip {
		t.Fatalf("base %+v head %s, want main at %s", out.Base, out.Worktree.Head, mainTip)
	}
}

// A forced remove records the worktree's metadata with it, and the restore writes it
// back: a restored worktree still lands into the branch it was created from.
func TestRestoreKeepsTheRecordedBase(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "develop")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.CreateRequest{Branch: "feat/d", Base: core.Str("develop")})
	if err != nil {
		t.Fatal(err)
	}
	coretest.WriteFile(t, filepath.Join(out.Path, "wip.txt"), "work in progress\n")
	rm, err := do(t, s, core.RemoveRequest{Path: core.Str(out.Path), Force: true})
	if err != nil || rm.RestoreID == "" {
		t.Fatalf("forced remove: %v %+v", err, rm)
	}
	if _, err := do(t, s, core.RestoreRequest{ID: core.Str(rm.RestoreID)}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	into, _, err := s.LandDefaults(context.Background(), out.Path)
	if err != nil || into != "develop" {
		t.Fatalf("after the restore LandDefaults into %q, %v; want develop", into, err)
	}
}
