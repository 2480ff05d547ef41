package core_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The cases of "what would be lost" that hide where git's own commands do not look: a
// long HEAD reflog, submodules whose repository lies elsewhere or was never initialised,
// a submodule's own HEAD reflog, the admin directory of a worktree whose checkout is gone,
// the ignored files a remove deletes, and the originals a land's rebase replaced.

// manyKeptCommits makes n commits on branch "many" in one fast-import (each kept by the
// branch) and returns them, oldest first.
func manyKeptCommits(t *testing.T, r *coretest.Repo, n int) []string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "commit refs/heads/many\ncommitter t <t@x> %d +0000\ndata 2\nc\n", 1000+i)
		if i == 0 {
			b.WriteString("from refs/heads/main\n")
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "-C", r.Root, "fast-import", "--quiet")
	cmd.Env = append(os.Environ(), coretest.Env(r.Home)...)
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	all := strings.Fields(r.Git(r.Root, "rev-list", "--reverse", "main..many"))
	if len(all) != n {
		t.Fatalf("fast-import made %d commits, want %d", len(all), n)
	}
	return all
}

// A commit only the oldest entry of a long HEAD reflog names is lost like any other:
// the reflog is read whole (it was cut to its newest 4000 commits, so this one was not
// seen and the remove went ahead).
func TestRemoveRefusesCommitOnlyAnOldReflogEntryHolds(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	lost := detachedCommit(r, wt, "feat")
	kept := manyKeptCommits(t, r, 4100)
	logFile := filepath.Join(r.Root, ".git", "worktrees", "feat", "logs", "HEAD")
	old, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(old)
	prev := r.Git(wt, "rev-parse", "HEAD")
	for i, c := range kept {
		fmt.Fprintf(&b, "%s %s t <t@x> %d +0000\tcheckout: moving\n", prev, c, 2000+i)
		prev = c
	}
	fmt.Fprintf(&b, "%s %s t <t@x> 9000 +0000\tcheckout: moving to feat\n", prev, r.Git(wt, "rev-parse", "HEAD"))
	if err := os.WriteFile(logFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(old), lost) {
		t.Fatalf("precondition: the reflog does not name %s", lost)
	}
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err = do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "worktree_only_commits")
	r.Unchanged(before)
}

// The ignored files a remove deletes are named before (its dry run, its confirmation) and
// after (its result), as prune's report and land's clean-up name them; they refuse nothing.
func TestRemoveDryRunAndResultNameIgnoredFiles(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	coretest.WriteFile(t, filepath.Join(wt, ".gitignore"), "*.env\n")
	r.Git(wt, "add", ".gitignore")
	r.Git(wt, "commit", "-q", "-m", "ignore env")
	coretest.WriteFile(t, filepath.Join(wt, "local.env"), "SECRET=1\n")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	p, err := s.Prepare(context.Background(), core.RemoveRequest{Path: core.Str(wt)})
	if err != nil {
		t.Fatal(err)
	}
	dry := s.DryRun(p)
	if n := strings.Join(dry.Notices, "\n"); !strings.Contains(n, "deletes 1 ignored file: local.env") {
		t.Errorf("the dry run does not name the ignored file: %q", dry.Notices)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "1 ignored file will be deleted: local.env") {
		t.Errorf("the confirmation does not name the ignored file: %q", line)
	}
	r.Unchanged(before)
	out, err := s.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(out.Notices, "\n"); !strings.Contains(n, "deleted with it: 1 ignored file: local.env") {
		t.Errorf("the result does not name the ignored file it deleted: %q", out.Notices)
	}
}
