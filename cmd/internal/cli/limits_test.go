package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// Worktrees locked with very long reasons (3 MB in all, past the 2 MB default output cap)
// still list: the cap of `git worktree list` is larger.
func TestListWithHugeLockReasons(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	reason := strings.Repeat("r", 1<<20)
	for _, name := range []string{"a", "b", "c"} {
		r.AddWorktree("feat/"+name, name)
		// git takes a reason on the command line, where one argument is capped at 128 KiB;
		// the reason is the content of the admin dir's "locked" file.
		if err := os.WriteFile(filepath.Join(r.Root, ".git", "worktrees", name, "locked"), []byte(reason), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, r, r.Root, "list", "--json")
	want(t, res, 0)
	var got struct {
		Worktrees []struct {
			Branch string  `json:"branch"`
			Locked *string `json:"locked"`
		} `json:"worktrees"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("%v\n%.300s", err, res.stdout)
	}
	locked := 0
	for _, w := range got.Worktrees {
		if w.Locked != nil && *w.Locked == reason {
			locked++
		}
	}
	if len(got.Worktrees) != 4 || locked != 3 {
		t.Fatalf("want 4 worktrees, 3 locked with the full reason; got %d, %d locked", len(got.Worktrees), locked)
	}
}

// The output cap's message names the git command that passed it.
func TestOutputLimitNamesCommand(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	installHook(t, r, "head -c 3000000 /dev/zero | tr '\\0' x\n")
	before := r.Snapshot()
	res := run(t, r, r.Root, "create", "feat/loud")
	want(t, res, 1, "git worktree add printed more than the 2 MB limit")
	r.Unchanged(before)
}
