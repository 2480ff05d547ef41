package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/eventlog"
)

func TestRenderListEscapesAndColours(t *testing.T) {
	t.Parallel()
	reason := "agent\x1b[2J"
	ws := "wG"
	l := &core.Listing{Worktrees: []core.Worktree{
		{Branch: "main", Path: "/home/u/src/app", Main: true, Current: true, Head: "0123456789abcdef"},
		{Path: "/home/u/evil\x1b]0;pwned\x07\u202e", Detached: true, Head: "fedcba9876543210", Locked: &reason, WorkspaceID: &ws,
			Status: &core.Status{Error: "boom"}},
	}}
	var plain bytes.Buffer
	if err := renderList(&plain, l, "/home/u", false, 0); err != nil {
		t.Fatal(err)
	}
	want := "* main                ~/src/app                     main\n" +
		"  (detached fedcba9)  ~/evil\\x1b]0;pwned\\x07\\u202e  locked: agent\\x1b[2J [wG] status unknown: boom\n"
	if plain.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", plain.String(), want)
	}
	var colour bytes.Buffer
	renderList(&colour, l, "/home/u", true, 0)
	if !strings.Contains(colour.String(), ansiBold+ansiGreen) || strings.Contains(colour.String(), "\x1b]") {
		t.Fatalf("colour output: %q", colour.String())
	}
}

// On a terminal every row fits its width: paths are cut in the middle (start and leaf
// kept), and what is still too long ends in "…"; piped (width 0) values stay whole.
func TestRenderListFitsWidth(t *testing.T) {
	t.Parallel()
	long := "/srv/projects/customer-portal.worktrees/feature-very-long-branch-name-for-checkout"
	l := &core.Listing{Worktrees: []core.Worktree{
		{Branch: "main", Path: "/srv/projects/customer-portal", Main: true, Head: "0123456789abcdef"},
		{Branch: "feat/x", Path: long, Head: "fedcba9876543210", Status: &core.Status{Staged: 3, Ahead: 2}},
	}}
	for _, colour := range []bool{false, true} {
		var out bytes.Buffer
		if err := renderList(&out, l, "", colour, 60); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if w := ansi.StringWidth(line); w > 60 {
				t.Errorf("colour=%v: line of %d cells on a 60-cell terminal: %q", colour, w, line)
			}
		}
		if !strings.Contains(ansi.Strip(out.String()), "/srv/projects/…") || !strings.Contains(ansi.Strip(out.String()), "name-for-checkout") || !strings.Contains(ansi.Strip(out.String()), "✚3 ↑2") {
			t.Errorf("colour=%v: the path's leaf or the badges are lost:\n%s", colour, out.String())
		}
	}
	var piped bytes.Buffer
	renderList(&piped, l, "", false, 0)
	if !strings.Contains(piped.String(), long) {
		t.Errorf("piped output cut the path:\n%s", piped.String())
	}
}

// copse list says what the picker says for the same state (both render package rowmarks):
// conflicts as ✖N beside the other changes, a merge as "merge", and a prunable worktree as
// prunable with git's reason, never as a status error.
func TestRenderListSharesPickerVocabulary(t *testing.T) {
	t.Parallel()
	gone := "gitdir file points to non-existent location"
	l := &core.Listing{Worktrees: []core.Worktree{
		{Branch: "merge-up", Path: "/src/m", Head: "0123456789abcdef", Status: &core.Status{Unstaged: 1, Conflicted: 1, Merging: true}},
		{Branch: "old", Path: "/src/old", Head: "fedcba9876543210", Prunable: &gone, Status: &core.Status{Error: "cannot change to /src/old"}},
	}}
	var out bytes.Buffer
	if err := renderList(&out, l, "", false, 0); err != nil {
		t.Fatal(err)
	}
	want := "  merge-up  /src/m    ✚1 ✖1 merge\n" +
		"  old       /src/old  prunable: gitdir file points to non-existent location\n"
	if out.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestSplitTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		isPath bool
	}{
		{"/abs/x", true}, {"./x", true}, {"../x", true}, {".", true}, {"~/x", true},
		{"feat/x", false}, {"x", false}, {"-x", false}, {"@{-1}", false},
	} {
		p, b := splitTarget(tc.in)
		if (p != nil) != tc.isPath || (b != nil) == tc.isPath {
			t.Errorf("%q: path=%v branch=%v", tc.in, p, b)
		}
	}
}

// Home is ~ where it starts a path in a sentence, never inside a longer path or a
// backquoted command (which must run as written).
func TestTildeInSentences(t *testing.T) {
	t.Parallel()
	const home = "/home/me"
	for in, want := range map[string]string{
		"branch feat is already checked out at /home/me/src/app.worktrees/feat": "branch feat is already checked out at ~/src/app.worktrees/feat",
		"/home/me is the main checkout":                                         "~ is the main checkout",
		"keeps /home/me/a: dirty; keeps /home/me/b: claimed":                    "keeps ~/a: dirty; keeps ~/b: claimed",
		"not /srv/home/me/x nor /home/meg/x":                                    "not /srv/home/me/x nor /home/meg/x",
		"rerun it: `copse setup '/home/me/x'` in /home/me/x":                    "rerun it: `copse setup '/home/me/x'` in ~/x",
	} {
		if got := tildeIn(in, home); got != want {
			t.Errorf("tildeIn(%q) = %q, want %q", in, got, want)
		}
	}
	if got := tildeIn("/home/me/x", ""); got != "/home/me/x" {
		t.Errorf("no home: %q", got)
	}
}

// copse events names an agent.state change as it happened, then the agent, escaped (a
// command name is the program's own text).
func TestEventLineOfAnAgentState(t *testing.T) {
	ev := core.Event{Seq: 9, Time: "2026-01-02T03:04:09Z", Event: core.EventAgentState,
		Worktree: &core.EventWorktree{Path: "/home/me/app.worktrees/feat", Branch: "feat"},
		Agent:    &eventlog.Agent{PID: 4242, Command: "cl\x1b[2Jaude", Workspace: "@1", State: "blocked", Previous: "working"}}
	got := eventLine(ev, "/home/me")
	for _, w := range []string{" agent.state ~/app.worktrees/feat (feat) working->blocked command=", " pid=4242 workspace=@1"} {
		if !strings.Contains(got, w) {
			t.Errorf("event line %q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("event line %q carries an escape sequence", got)
	}
}

// copse events says when a remove (or a land's clean-up) deleted the branch too.
func TestEventLineSaysTheBranchWasDeleted(t *testing.T) {
	t.Parallel()
	ev := core.Event{Seq: 3, Time: "2026-01-02T03:04:09Z", Event: core.EventRemoved, Commit: "0123456789abcdef",
		Worktree: &core.EventWorktree{Path: "/home/me/app.worktrees/feat", Branch: "feat"}, BranchDeleted: true}
	if got := eventLine(ev, "/home/me"); !strings.HasSuffix(got, " commit=0123456 branch-deleted") {
		t.Errorf("event line %q does not say the branch was deleted", got)
	}
	ev.BranchDeleted = false
	if got := eventLine(ev, "/home/me"); strings.Contains(got, "branch-deleted") {
		t.Errorf("event line %q says a kept branch was deleted", got)
	}
}
