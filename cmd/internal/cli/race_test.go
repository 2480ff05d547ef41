package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// Twelve copse processes, started together: eight create eight branches, four create one
// shared branch. Exactly one create per branch succeeds; the others are clean refusals;
// git's list is consistent and no stray directory is left.
func TestConcurrentCreates(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	var branches []string
	for i := range 8 {
		branches = append(branches, fmt.Sprintf("race/b%d", i))
	}
	for range 4 {
		branches = append(branches, "race/shared")
	}

	// Each process waits in `read` on one shared pipe; closing its write end releases all
	// of them at once, and each execs copse.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		branch         string
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
	}
	procs := make([]*proc, len(branches))
	for i, b := range branches {
		p := &proc{branch: b}
		p.cmd = exec.Command("/bin/sh", "-c", `read _ ; exec "$COPSE" create "$BRANCH"`)
		p.cmd.Dir = r.Root
		p.cmd.Env = cleanEnv(r.Home, "COPSE="+copseBin, "BRANCH="+b)
		p.cmd.Stdin = pr
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	pr.Close()
	pw.Close() // go

	wins := map[string]int{}
	for _, p := range procs {
		err := p.cmd.Wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		desc := fmt.Sprintf("create %s → exit %d\nstdout: %s\nstderr: %s", p.branch, code, p.stdout.String(), p.stderr.String())
		switch code {
		case 0:
			wins[p.branch]++
			if !strings.HasPrefix(p.stdout.String(), "created "+p.branch+" at ") {
				t.Errorf("success without the report: %s", desc)
			}
		case 1:
			if p.branch != "race/shared" {
				t.Errorf("a create of its own branch was refused: %s", desc)
			}
			// Checks of a mutation wait for the repository lock, so a loser never sees the
			// winner half-way: it sees the winner's worktree and names the branch.
			if !strings.Contains(p.stderr.String(), "branch race/shared is already checked out at ") {
				t.Errorf("refusal does not name the branch: %s", desc)
			}
		default:
			t.Errorf("unexpected exit: %s", desc)
		}
	}
	for _, b := range branches {
		if wins[b] != 1 {
			t.Errorf("branch %s: %d successful creates, want exactly 1", b, wins[b])
		}
	}

	// git's view: the main checkout plus nine worktrees, each on its branch at its default path.
	list := r.Git(r.Root, "worktree", "list", "--porcelain")
	records := strings.Split(strings.TrimSpace(list), "\n\n")
	if len(records) != 10 {
		t.Fatalf("git lists %d worktrees, want 10:\n%s", len(records), list)
	}
	onBranch := map[string]string{} // path → branch
	for _, rec := range records {
		var path, branch string
		for _, line := range strings.Split(rec, "\n") {
			if p, ok := strings.CutPrefix(line, "worktree "); ok {
				path = p
			}
			if b, ok := strings.CutPrefix(line, "branch refs/heads/"); ok {
				branch = b
			}
		}
		onBranch[path] = branch
	}
	dir := filepath.Join(r.Base, "app.worktrees")
	for _, b := range branches {
		path := filepath.Join(dir, strings.ReplaceAll(b, "/", "-"))
		if onBranch[path] != b {
			t.Errorf("git lists %s on %q, want %s:\n%s", path, onBranch[path], b, list)
		}
		if got := r.Git(path, "branch", "--show-current"); got != b {
			t.Errorf("%s is on %q, want %s", path, got, b)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) != 9 {
		t.Fatalf("stray directories in %s: %v", dir, names)
	}
	if out := r.Git(r.Root, "worktree", "prune", "--dry-run", "-v"); out != "" {
		t.Fatalf("git would prune: %s", out)
	}
}
