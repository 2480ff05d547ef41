package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// copse land --help names every source of the gate in the order the land looks, the
// committed .copse.conf included, not only --test and git config copse.test.
func TestLandHelpNamesEveryGateSource(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "land", "--help")
	want(t, res, 0, "--test; git config copse.test; the committed .copse.conf's", "copse approve",
		"else .copse.conf's approved copse.test")
}

// A remove or land of a branch no worktree has names the checked-out branch it is closest
// to and never offers a create (a new worktree is no answer to a remove); a name near none
// points at copse list. Nothing changes.
func TestRemoveAndLandOfAMistypedBranchSuggestTheWorktreeNotACreate(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/login", filepath.Join(r.Base, "app.worktrees", "login"))
	before := r.Snapshot()
	for _, verb := range []string{"remove", "land"} {
		res := run(t, r, r.Root, verb, "feat/logn", "--yes")
		want(t, res, 1, "no worktree has branch feat/logn", "did you mean feat/login?")
		if strings.Contains(res.stderr, "copse create") {
			t.Fatalf("%s of a mistyped branch offers a create:\n%s", verb, res)
		}
		res = run(t, r, r.Root, verb, "release/2.0", "--yes")
		want(t, res, 1, "no worktree has branch release/2.0", "`copse list` shows the worktrees")
		if strings.Contains(res.stderr, "copse create") || strings.Contains(res.stderr, "did you mean") {
			t.Fatalf("%s of a branch near none: %s", verb, res)
		}
	}
	r.Unchanged(before)
}

// The last part of a branch (eur for feat/eur), or a piece of it, finds the branch: no
// edit distance does.
func TestSwitchSuggestsTheBranchThatEndsWithTheName(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/eur", filepath.Join(r.Base, "app.worktrees", "eur"))
	r.AddWorktree("fix/currency-euro", filepath.Join(r.Base, "app.worktrees", "euro"))
	before := r.Snapshot()
	res := run(t, r, r.Root, "switch", "eur")
	want(t, res, 1, "no worktree has branch eur", "did you mean feat/eur?", "`copse create eur`")
	res = run(t, r, r.Root, "switch", "currency")
	want(t, res, 1, "did you mean fix/currency-euro?")
	r.Unchanged(before)
}

// A mistyped flag gets the flag it is closest to, as a mistyped command gets the command.
func TestMistypedFlagSuggestsTheClosestFlag(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "list", "--statu")
	want(t, res, 2, "unknown flag: --statu", "did you mean --status?", "`copse list --help`")
	res = run(t, r, r.Root, "list", "--jsn")
	want(t, res, 2, "did you mean --json?")
	res = run(t, r, r.Root, "list", "--zzzzzzzz")
	want(t, res, 2, "unknown flag: --zzzzzzzz")
	if strings.Contains(res.stderr, "did you mean") {
		t.Fatalf("a flag near none got a suggestion:\n%s", res)
	}
}

// One rule for paths: the text a person reads writes the home directory as ~ (results,
// progress, notes, messages, a job's status), while hints and --json keep paths whole, so
// their commands run as written. A land whose gate fails shows every kind of them.
func TestLandTextShowsHomeAsTildeAndHintsStayAbsolute(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/gate")
	home := []string{"HOME=" + r.Base}
	res := runWith(t, r, r.Root, home, nil, "land", "feat/gate", "--test", "echo gate-failed; exit 1")
	want(t, res, 1, "(log ~/", "lines of ~/", ", from --test)")
	if strings.Contains(res.stderr, "(log "+r.Base) || strings.Contains(res.stderr, "lines of "+r.Base) {
		t.Fatalf("the land's text names a path under HOME in full:\n%s", res)
	}
	res = runWith(t, r, r.Root, home, nil, "land", "status", "land-1")
	want(t, res, 0, "log:         ~/", "worktree:    ~/", "test from:   --test", "hint:        fix it, commit, and land again; the output is in "+r.Base)
	if strings.Contains(res.stdout, "log:         "+r.Base) {
		t.Fatalf("land status names the log in full:\n%s", res)
	}
	res = runWith(t, r, r.Root, home, nil, "land", "status", "land-1", "--json")
	want(t, res, 0, `"log":"`+r.Base)
}
