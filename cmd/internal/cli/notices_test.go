package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/cmd/internal/cli"
	"github.com/copse-dev/copse/core/coretest"
)

// Creating from a remote branch says once, as information, that the branch tracks it:
// "copse: …", never "copse: warning: …"; --json carries it under "notices".
func TestCLICreateFromRemoteIsANotice(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.Git(r.Root, "branch", "feat")
	r.Git(r.Root, "remote", "add", "origin", r.Root)
	r.Git(r.Root, "fetch", "-q", "origin")
	r.Git(r.Root, "branch", "-D", "-q", "feat")
	const notice = "created branch feat from origin/feat (tracking it)"
	res := run(t, r, r.Root, "create", "origin/feat")
	want(t, res, 0)
	if n := strings.Count(res.stderr, notice); n != 1 || !strings.Contains(res.stderr, "copse: "+notice+"\n") {
		t.Fatalf("want the notice once as %q:\n%s", "copse: "+notice, res)
	}
	if strings.Contains(res.stderr, "warning") {
		t.Fatalf("a notice printed as a warning:\n%s", res)
	}

	r.Git(r.Root, "branch", "other")
	r.Git(r.Root, "fetch", "-q", "origin")
	r.Git(r.Root, "branch", "-D", "-q", "other")
	res = run(t, r, r.Root, "create", "origin/other", "--json")
	want(t, res, 0)
	var reply struct {
		Notices  []string `json:"notices"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &reply); err != nil {
		t.Fatalf("%v:\n%s", err, res)
	}
	if len(reply.Notices) != 1 || reply.Notices[0] != "created branch other from origin/other (tracking it)" || len(reply.Warnings) != 0 {
		t.Fatalf("notices %q, warnings %q", reply.Notices, reply.Warnings)
	}
}

// A remove that keeps the branch does not speak of its unique commits as lost: they stay
// on the branch, and the output says so as a notice, not as a warning.
func TestCLIRemoveKeepingBranchLosesNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "only on feat")
	tip := r.Git(r.Root, "rev-parse", "feat")
	res := run(t, r, r.Root, "remove", "feat", "--yes")
	want(t, res, 0, "removed")
	for _, bad := range []string{"warning", "lost", "keeps 1 commit"} {
		if strings.Contains(res.stdout+res.stderr, bad) {
			t.Fatalf("remove keeping the branch says %q:\n%s", bad, res)
		}
	}
	if !strings.Contains(res.stderr, "copse: branch feat stays, with its 1 commit") {
		t.Fatalf("no notice that the branch keeps its commit:\n%s", res)
	}
	if got := r.Git(r.Root, "rev-parse", "feat"); got != tip {
		t.Fatalf("branch feat at %s, want %s", got, tip)
	}
}

// What the confirmation showed on a terminal is not said again after the remove: the
// notice appears once, in the prompt.
func TestCLIConfirmedNoticeShownOnce(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	r.Git(wt, "commit", "-q", "--allow-empty", "-m", "only on feat")
	f, out, errb := testFactory(r, strings.NewReader("y\n"), true)
	if code := cli.Run(context.Background(), f, []string{"-C", r.Root, "remove", "feat"}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	const notice = "branch feat stays, with its 1 commit"
	if n := strings.Count(errb.String(), notice); n != 1 {
		t.Fatalf("notice shown %d times, want once:\n%s", n, errb)
	}
	if !strings.Contains(errb.String(), "  · "+notice) || strings.Contains(errb.String(), "! "+notice) {
		t.Fatalf("the prompt shows the notice as a warning, or not at all:\n%s", errb)
	}
	if !strings.Contains(out.String(), "removed ") {
		t.Fatalf("no result:\n%s", out)
	}
}

// Without a terminal and without --yes, prune lists what it would do one worktree a line,
// then the command that goes ahead; nothing changes. --json keeps the one-line hint.
func TestCLIPruneWithoutTerminalListsThePlan(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("idle-1", "app.worktrees/idle-1")
	r.AddWorktree("idle-2", "app.worktrees/idle-2")
	before := r.Snapshot()
	res := runWith(t, r, r.Root, []string{"HOME=" + r.Base}, nil, "prune", "--older-than", "0s")
	want(t, res, 1, "needs confirmation", "`copse prune --older-than 0s --yes`")
	r.Unchanged(before)
	lines := strings.Split(res.stderr, "\n")
	var removes []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  remove  ") {
			removes = append(removes, l)
		}
		if len(l) > 200 {
			t.Errorf("a line of %d bytes:\n%s", len(l), l)
		}
	}
	wantLines := []string{"  remove  ~/app.worktrees/idle-1 (idle-1)", "  remove  ~/app.worktrees/idle-2 (idle-2)"}
	if strings.Join(removes, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("remove lines %q, want %q:\n%s", removes, wantLines, res)
	}
	if !strings.Contains(res.stderr, "  · keeps ~/app: the main checkout\n") {
		t.Fatalf("what stays is not listed:\n%s", res)
	}

	res = run(t, r, r.Root, "prune", "--older-than", "0s", "--json")
	want(t, res, 1, `"code":"needs_confirmation"`, "remove: "+filepath.Join(r.Base, "app.worktrees", "idle-1"))
	if strings.Contains(res.stderr, "  remove  ") {
		t.Fatalf("--json printed the list for people too:\n%s", res)
	}
	r.Unchanged(before)
}

// Text events show the time as people read it, in the local zone to the second; --json
// keeps the recorded RFC 3339 time.
func TestCLIEventsTimeForPeople(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	want(t, run(t, r, r.Root, "create", "feat"), 0)
	js := run(t, r, r.Root, "events", "--json")
	want(t, js, 0)
	var ev struct {
		Time string `json:"time"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(js.stdout, "\n", 2)[0]), &ev); err != nil {
		t.Fatalf("%v:\n%s", err, js)
	}
	at, err := time.Parse(time.RFC3339Nano, ev.Time)
	if err != nil || !strings.Contains(ev.Time, "T") {
		t.Fatalf("--json time %q is not RFC 3339: %v", ev.Time, err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatalf("no time zone data: %v", err)
	}
	text := runWith(t, r, r.Root, []string{"TZ=Asia/Tokyo"}, nil, "events")
	want(t, text, 0)
	line := "1 " + at.In(tokyo).Format("2006-01-02 15:04:05") + " worktree.created "
	if !strings.HasPrefix(text.stdout, line) {
		t.Fatalf("want the line to start %q:\n%s", line, text)
	}
	if regexp.MustCompile(`\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`).MatchString(text.stdout) {
		t.Fatalf("text shows an RFC 3339 time:\n%s", text)
	}
}

// Text results and error messages show the home directory as ~; --json keeps the path
// whole.
func TestCLIPathsForPeopleUseTilde(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	home := []string{"HOME=" + r.Base}
	res := runWith(t, r, r.Root, home, nil, "create", "feat")
	want(t, res, 0)
	if !strings.Contains(res.stdout, "created feat at ~/app.worktrees/feat from ") {
		t.Fatalf("create's result:\n%s", res)
	}
	before := r.Snapshot()
	res = runWith(t, r, r.Root, home, nil, "create", "feat")
	want(t, res, 1, "copse: branch feat is already checked out at ~/app.worktrees/feat\n")
	r.Unchanged(before)
	res = runWith(t, r, r.Root, home, nil, "create", "feat", "--json")
	want(t, res, 1, "checked out at "+filepath.Join(r.Base, "app.worktrees", "feat"))
	r.Unchanged(before)
}

// setup's report keeps the order things happened: the copies, then the steps and their
// output.
func TestCLISetupReportInOrder(t *testing.T) {
	t.Parallel()
	r := setupRepo(t)
	r.Git(r.Root, "config", "--add", "copse.copy", ".env")
	r.Git(r.Root, "config", "--add", "copse.setup", "echo step-output")
	res := run(t, r, r.Root, "create", "feat")
	want(t, res, 0)
	copied := strings.Index(res.stderr, "copse: copied 1 file from the main checkout: .env")
	step := strings.Index(res.stderr, "copse: setup 1/1: echo step-output")
	output := strings.Index(res.stderr, "\nstep-output\n")
	if copied < 0 || step < 0 || output < 0 || !(copied < step && step < output) {
		t.Fatalf("want the copies, then the step, then its output:\n%s", res)
	}
}
