package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// Piped, copse list prints every value whole: a claim's session as long as it is, so what
// a person (or a script) copies from the row is what `copse release --session` takes.
func TestListPipedPrintsTheWholeSession(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/long", filepath.Join(r.Base, "long"))
	session := "pi:workspace-0123456789abcdef"
	want(t, run(t, r, r.Root, "claim", wt, "--session", session), 0)
	res := run(t, r, r.Root, "list")
	want(t, res, 0)
	m := regexp.MustCompile(`(?m)^  feat/long .*⚑ (\S+)`).FindStringSubmatch(res.stdout)
	if m == nil || m[1] != session {
		t.Fatalf("copse list piped shows the claim as %q, want %q whole:\n%s", m, session, res.stdout)
	}
	want(t, run(t, r, r.Root, "release", wt, "--session", m[1]), 0, "released")
}

// copse list, with --status or without, marks a blocked land as the picker does, word
// for word (TestPickerShowsABlockedLandWithoutRefresh sees the same words there).
func TestListShowsABlockedLandAsThePickerDoes(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/gate")
	want(t, run(t, r, r.Root, "land", "feat/gate", "--test", "false"), 1, "test_failed")
	for _, args := range [][]string{{"list", "--status"}, {"list"}} {
		res := run(t, r, r.Root, args...)
		want(t, res, 0)
		var row string
		for _, l := range strings.Split(res.stdout, "\n") {
			if strings.HasPrefix(l, "  feat/gate ") {
				row = l
			}
		}
		if !strings.Contains(row, "blocked: test_failed") {
			t.Fatalf("copse %s: feat/gate's row %q lacks the picker's \"blocked: test_failed\":\n%s", strings.Join(args, " "), row, res.stdout)
		}
	}
	// A land that succeeded leaves nothing to act on, in list as in the picker.
	landTree(t, r, "feat/ok")
	want(t, run(t, r, r.Root, "land", "feat/ok", "--test", "true", "--keep"), 0)
	if res := run(t, r, r.Root, "list"); strings.Contains(res.stdout, "land landed") || strings.Contains(res.stdout, "land #") {
		t.Fatalf("a landed job is marked:\n%s", res.stdout)
	}
}

// copse list orders its rows as the picker does by name: main first, then numbers as
// numbers (task-2 before task-10, which git's and a byte order put first).
func TestListSortsNumbersNaturally(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	for _, b := range []string{"task-10", "task-2", "task-1"} {
		r.AddWorktree(b, filepath.Join(r.Base, "app.worktrees", b))
	}
	res := run(t, r, r.Root, "list")
	want(t, res, 0)
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		order = append(order, strings.Fields(strings.TrimPrefix(l, "*"))[0])
	}
	if got := strings.Join(order, " "); got != "main task-1 task-2 task-10" {
		t.Fatalf("copse list order %q, want main task-1 task-2 task-10:\n%s", got, res.stdout)
	}
}
