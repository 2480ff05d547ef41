package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/copse-dev/copse/core/ops"
)

// openAs opens a Service whose environment names a session (COPSE_SESSION).
func openAs(t *testing.T, r *coretest.Repo, dir, session string) *core.Service {
	t.Helper()
	getenv := func(k string) string {
		if k == "COPSE_SESSION" {
			return session
		}
		return r.Getenv(k)
	}
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: dir, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func events(t *testing.T, r *coretest.Repo) []core.Event {
	t.Helper()
	var evs []core.Event
	if _, err := eventlog.Read(filepath.Join(r.Root, ".git"), 0, func(e core.Event, _ []byte) error {
		evs = append(evs, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.V != 1 || e.Seq != int64(i+1) || e.Repo != r.Root || e.Time == "" {
			t.Fatalf("event %d malformed: %+v", i, e)
		}
	}
	return evs
}

func eventNames(evs []core.Event) string {
	var n []string
	for _, e := range evs {
		s := e.Event
		if e.Session != "" {
			s += "@" + e.Session
		}
		if e.Previous != "" {
			s += "<" + e.Previous
		}
		n = append(n, s)
	}
	return strings.Join(n, " ")
}

func lockReason(t *testing.T, r *coretest.Repo, path string) (string, bool) {
	t.Helper()
	s := open(t, r, r.Root)
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range l.Worktrees {
		if w.Path == path {
			if w.Locked == nil {
				return "", false
			}
			return *w.Locked, true
		}
	}
	t.Fatalf("%s not listed", path)
	return "", false
}

func TestClaimFormatParse(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	reason := core.FormatClaim(core.Claim{Session: "agent-1", Since: since})
	if reason != "copse claim: session=agent-1 since=2026-11-30T12:00:00Z" {
		t.Fatalf("reason %q", reason)
	}
	c, ok := core.ParseClaim(reason)
	if !ok || c.Session != "agent-1" || !c.Since.Equal(since) {
		t.Fatalf("parsed %+v %v", c, ok)
	}
	for _, bad := range []string{"", "mine", "copse claim: session= since=2026-11-30T12:00:00Z",
		"copse claim: session=a b since=2026-11-30T12:00:00Z", "copse claim: session=a since=yesterday",
		"copse claim: session=a"} {
		if _, ok := core.ParseClaim(bad); ok {
			t.Errorf("%q parsed as a claim", bad)
		}
	}
}

func TestClaimLifecycle(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	a := openAs(t, r, r.Root, "agent-a")
	b := openAs(t, r, r.Root, "agent-b")
	ctx := context.Background()

	// list reports the id (admin dir name) and no claim.
	l, err := a.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if l.Worktrees[0].ID != "" || l.Worktrees[1].ID != "feat" || l.Worktrees[1].Claim != nil {
		t.Fatalf("ids/claims: %+v", l.Worktrees)
	}
	js, _ := json.Marshal(l.Worktrees[1])
	if !strings.Contains(string(js), `"id":"feat"`) || !strings.Contains(string(js), `"claim":null`) {
		t.Fatalf("json %s", js)
	}

	out, err := do(t, a, core.ClaimRequest{ID: core.Str("feat")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Claim == nil || out.Claim.Session != "agent-a" || out.Worktree.Claim == nil || out.Worktree.ID != "feat" {
		t.Fatalf("claim outcome %+v", out)
	}
	reason, locked := lockReason(t, r, wt)
	if c, ok := core.ParseClaim(reason); !locked || !ok || c.Session != "agent-a" {
		t.Fatalf("lock reason %q", reason)
	}

	// Same session again: nothing changes.
	before := r.Snapshot()
	if out, err := do(t, a, core.ClaimRequest{Path: &wt}); err != nil || len(out.Warnings) == 0 {
		t.Fatalf("re-claim: %v %+v", err, out)
	}
	r.Unchanged(before)

	// Another session is refused, naming the holder; nothing changes.
	_, err = do(t, b, core.ClaimRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, "claimed")
	if !strings.Contains(err.Error(), "agent-a") {
		t.Fatalf("refusal does not name the holder: %v", err)
	}
	_, err = do(t, b, core.ReleaseRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, "claimed_by_other")
	r.Unchanged(before)

	// Force takes over (after confirmation) and reports the previous session.
	p, err := b.Prepare(ctx, core.ClaimRequest{Branch: core.Str("feat"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil || !strings.Contains(p.Confirm.Line(), "agent-a") {
		t.Fatalf("forced claim must ask, naming the holder: %+v", p.Confirm)
	}
	if _, err := b.Do(ctx, core.ClaimRequest{Branch: core.Str("feat"), Force: true}, false); core.AsError(err).Code != "needs_approval" {
		t.Fatalf("unapproved force: %v", err)
	}
	r.Unchanged(before)
	out, err = b.Execute(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Previous != "agent-a" || out.Claim.Session != "agent-b" {
		t.Fatalf("takeover %+v", out)
	}

	// The old holder cannot release; the holder can.
	_, err = do(t, a, core.ReleaseRequest{Path: &wt})
	wantCode(t, err, core.KindRefused, "claimed_by_other")
	if _, err := do(t, b, core.ReleaseRequest{Path: &wt}); err != nil {
		t.Fatal(err)
	}
	if _, locked := lockReason(t, r, wt); locked {
		t.Fatal("still locked after release")
	}
	_, err = do(t, b, core.ReleaseRequest{Path: &wt})
	wantCode(t, err, core.KindRefused, "not_claimed")

	// A forced release by anyone (no session needed) ends another's claim.
	if _, err := do(t, a, core.ClaimRequest{Path: &wt}); err != nil {
		t.Fatal(err)
	}
	nobody := open(t, r, r.Root)
	if _, err := do(t, nobody, core.ReleaseRequest{Path: &wt}); core.AsError(err).Code != "session_required" {
		t.Fatalf("release without session: %v", err)
	}
	if _, err := do(t, nobody, core.ReleaseRequest{Path: &wt, Force: true}); err != nil {
		t.Fatal(err)
	}

	got := eventNames(events(t, r))
	want := "worktree.claimed@agent-a worktree.claimed@agent-b<agent-a worktree.released@agent-b worktree.claimed@agent-a worktree.released@agent-a"
	if got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
}

func TestClaimRefusals(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	s := openAs(t, r, r.Root, "agent-a")
	ctx := context.Background()

	before := r.Snapshot()
	_, err := do(t, s, core.ClaimRequest{Path: &r.Root})
	wantCode(t, err, core.KindRefused, "main_checkout")
	_, err = do(t, s, core.ClaimRequest{Branch: core.Str("main")})
	wantCode(t, err, core.KindRefused, "main_checkout")
	_, err = do(t, open(t, r, r.Root), core.ClaimRequest{Path: &wt})
	wantCode(t, err, core.KindUsage, "session_required")
	_, err = do(t, s, core.ClaimRequest{Path: &wt, Session: core.Str("two words")})
	wantCode(t, err, core.KindUsage, "bad_session")
	_, err = do(t, s, core.ClaimRequest{ID: core.Str("nope")})
	wantCode(t, err, core.KindRefused, "no_such_worktree")
	_, err = do(t, s, core.ClaimRequest{ID: core.Str("../feat")})
	wantCode(t, err, core.KindUsage, "bad_id")
	_, err = do(t, s, core.ClaimRequest{ID: core.Str("feat"), Path: &wt})
	wantCode(t, err, core.KindUsage, "exactly_one")
	r.Unchanged(before)

	// A human's lock is refused without force, by claim and by release.
	r.Git(r.Root, "worktree", "lock", "--reason", "do not touch: bisecting", wt)
	before = r.Snapshot()
	_, err = do(t, s, core.ClaimRequest{Path: &wt})
	wantCode(t, err, core.KindRefused, "locked_by_human")
	if !strings.Contains(err.Error(), "bisecting") {
		t.Fatalf("refusal does not show the lock: %v", err)
	}
	_, err = do(t, s, core.ReleaseRequest{Path: &wt})
	wantCode(t, err, core.KindRefused, "locked_by_human")
	r.Unchanged(before)
	out, err := s.Do(ctx, core.ClaimRequest{Path: &wt, Force: true}, true)
	if err != nil || out.Claim == nil {
		t.Fatalf("forced claim of a human lock: %v %+v", err, out)
	}
}

func TestCreateClaimAndIDTargets(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := openAs(t, r, r.Root, "agent-a")
	out, err := do(t, s, core.CreateRequest{Branch: "task/1", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Claim == nil || out.Claim.Session != "agent-a" || out.Worktree.ID == "" || out.Worktree.Claim == nil {
		t.Fatalf("create --claim outcome %+v", out)
	}
	if reason, ok := lockReason(t, r, out.Path); !ok || !strings.Contains(reason, "session=agent-a") {
		t.Fatalf("not claimed: %q", reason)
	}
	// Dry run shows the lock command among create's.
	p, err := s.Prepare(context.Background(), core.CreateRequest{Branch: "task/2", Claim: true, Session: core.Str("agent-z")})
	if err != nil {
		t.Fatal(err)
	}
	if cmds := strings.Join(p.Commands, "\n"); !strings.Contains(cmds, "worktree lock --reason") || !strings.Contains(cmds, "session=agent-z") {
		t.Fatalf("commands %s", cmds)
	}
	// create --claim without any session is refused before anything runs.
	before := r.Snapshot()
	_, err = do(t, open(t, r, r.Root), core.CreateRequest{Branch: "task/3", Claim: true})
	wantCode(t, err, core.KindUsage, "session_required")
	r.Unchanged(before)

	// Release, then remove by id.
	if _, err := do(t, s, core.ReleaseRequest{ID: &out.Worktree.ID}); err != nil {
		t.Fatal(err)
	}
	rm, err := do(t, s, core.RemoveRequest{ID: &out.Worktree.ID})
	if err != nil {
		t.Fatal(err)
	}
	if rm.Worktree.ID != out.Worktree.ID {
		t.Fatalf("removed %+v", rm.Worktree)
	}
	got := eventNames(events(t, r))
	if got != "worktree.created@agent-a worktree.claimed@agent-a worktree.released@agent-a worktree.removed@agent-a" {
		t.Fatalf("events %s", got)
	}
	evs := events(t, r)
	if evs[0].Worktree == nil || evs[0].Worktree.ID != out.Worktree.ID || evs[0].Worktree.Branch != "task/1" || evs[0].Commit == "" {
		t.Fatalf("created event %+v", evs[0])
	}
}

// age makes a worktree look idle for d: its admin index and HEAD log (and HEAD) get old
// modification times.
func age(t *testing.T, r *coretest.Repo, id string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	admin := filepath.Join(r.Root, ".git", "worktrees", id)
	for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
		if err := os.Chtimes(filepath.Join(admin, f), old, old); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func reasons(rep *core.PruneReport) map[string]string {
	m := map[string]string{}
	for _, e := range rep.Kept {
		m[filepath.Base(e.Path)] = "kept:" + e.Reason
	}
	for _, e := range rep.Removed {
		m[filepath.Base(e.Path)] = "removed:" + e.Reason
	}
	for _, e := range rep.Forgotten {
		m[filepath.Base(e.Path)] = "forgotten:" + e.Reason
	}
	return m
}

func TestPruneReasons(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	mk := func(name string) string {
		p := r.AddWorktree(name, "app.worktrees/"+name)
		return p
	}
	idle := mk("idle")
	spaced := r.AddWorktree("spaced", filepath.Join(r.Base, "app.worktrees", "with space\nand newline"))
	current := mk("current")
	claimed := mk("claimed")
	human := mk("human")
	landing := mk("landing")
	blocked := mk("blocked")
	mid := mk("mid")
	dirty := mk("dirty")
	unique := mk("unique")
	mk("fresh")
	gone := mk("gone")
	goneLocked := mk("gonelocked")
	_ = current

	r.Git(r.Root, "worktree", "lock", "--reason", core.FormatClaim(core.Claim{Session: "agent-x", Since: time.Now()}), claimed)
	r.Git(r.Root, "worktree", "lock", "--reason", "mine", human)
	landDir := filepath.Join(r.Root, ".git", "copse", "land")
	// Job records as copse land writes them (land-N.json); a worktree's latest job counts.
	job := func(n int, state, extra, id, path string) {
		coretest.WriteFile(t, filepath.Join(landDir, fmt.Sprintf("land-%d.json", n)),
			fmt.Sprintf(`{"v":1,"job":"land-%d","ticket":%d,"state":%q,%s"worktree":{"id":%q,"path":%q,"branch":%q}}`, n, n, state, extra, id, path, id))
	}
	job(1, "running", `"phase":"test",`, "landing", landing)
	job(2, "blocked", `"phase":"rebase","code":"rebase_conflict",`, "blocked", blocked)
	job(3, "landed", `"phase":"done",`, "idle", idle)
	job(9, "blocked", `"code":"test_failed",`, "landing", landing) // older than 10 below
	job(10, "queued", `"phase":"queued",`, "landing", landing)     // latest: landing
	job(11, "blocked", `"code":"rebase_conflict",`, "idle", idle)  // older…
	job(12, "abandoned", ``, "idle", idle)                         // …than this: idle may go
	// mid: a merge stopped on a conflict.
	coretest.WriteFile(t, filepath.Join(mid, "README.md"), "mid\n")
	r.Git(mid, "commit", "-qam", "mid side")
	r.Git(r.Root, "branch", "other", "main")
	r.Git(r.Root, "update-ref", "refs/heads/keepmid", "HEAD") // mid's commit is not unique to make "mid" the reason anyway
	coretest.WriteFile(t, filepath.Join(r.Root, "README.md"), "main side\n")
	r.Git(r.Root, "commit", "-qam", "main side")
	if _, err := r.TryGit(mid, "merge", "main"); err == nil {
		t.Fatal("merge should conflict")
	}
	coretest.WriteFile(t, filepath.Join(dirty, "new.txt"), "x\n")
	coretest.WriteFile(t, filepath.Join(unique, "u.txt"), "u\n")
	r.Git(unique, "add", "u.txt")
	r.Git(unique, "commit", "-qm", "unique work")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	r.Git(r.Root, "worktree", "lock", "--reason", "on a usb disk", goneLocked)
	if err := os.RemoveAll(goneLocked); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"idle", "current", "claimed", "human", "landing", "blocked", "mid", "dirty", "unique", "gone", "gonelocked"} {
		age(t, r, id, 100*time.Hour)
	}
	// The spaced worktree's id is git's choice; find it through list.
	s := openAs(t, r, current, "agent-p")
	l, err := s.List(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range l.Worktrees {
		if w.Path == spaced {
			if w.ID == "" {
				t.Fatalf("no id for %q", spaced)
			}
			age(t, r, w.ID, 100*time.Hour)
		}
	}

	before := r.Snapshot()
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Unchanged(before)
	if _, err := os.Stat(eventlog.Path(filepath.Join(r.Root, ".git"))); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote events: %v", err)
	}
	got := reasons(out.Prune)
	want := map[string]string{
		"app": "kept:main", "current": "kept:current", "claimed": "kept:claimed", "human": "kept:locked",
		"landing": "kept:landing", "blocked": "kept:blocked", "mid": "kept:mid_operation", "dirty": "kept:dirty",
		"unique": "kept:unique_commits", "fresh": "kept:not_idle", "gonelocked": "kept:locked",
		"idle": "removed:idle", "with space\nand newline": "removed:idle", "gone": "forgotten:directory_gone",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: got %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("report has %d entries, want %d: %v", len(got), len(want), got)
	}
	if !strings.Contains(strings.Join(out.Commands, "\n"), "worktree remove -- "+gone) {
		t.Errorf("dry run commands %v", out.Commands)
	}

	// Not approved: nothing runs.
	if _, err := s.Do(context.Background(), core.PruneRequest{}, false); core.AsError(err).Code != "needs_approval" {
		t.Fatalf("unapproved prune: %v", err)
	}
	r.Unchanged(before)

	out, err = do(t, s, core.PruneRequest{DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Removed) != 2 || len(out.Prune.Forgotten) != 1 {
		t.Fatalf("prune report %+v", out.Prune)
	}
	for _, p := range []string{idle, spaced} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%q not removed", p)
		}
	}
	for _, b := range []string{"idle", "spaced"} {
		if _, err := r.TryGit(r.Root, "rev-parse", "--verify", "refs/heads/"+b); err == nil {
			t.Errorf("branch %s not deleted", b)
		}
	}
	wl := r.Git(r.Root, "worktree", "list", "--porcelain")
	if strings.Contains(wl, "/gone\n") || !strings.Contains(wl, "gonelocked") {
		t.Fatalf("git worktree prune: forgot the wrong entries:\n%s", wl)
	}
	for _, p := range []string{dirty, unique, mid, claimed, human} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s should be kept: %v", p, err)
		}
	}
	evs := events(t, r)
	if eventNames(evs) != "worktree.pruned@agent-p worktree.pruned@agent-p worktree.pruned@agent-p" {
		t.Fatalf("events %s", eventNames(evs))
	}
	paths := map[string]string{}
	for _, e := range evs {
		paths[e.Worktree.Path] = e.Reason
	}
	if paths[idle] != "idle" || paths[spaced] != "idle" || paths[gone] != "directory_gone" {
		t.Fatalf("pruned events %v", paths)
	}
}

func TestPruneOlderThan(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("a", "app.worktrees/a")
	age(t, r, "a", 2*time.Hour)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil || reasons(out.Prune)["a"] != "kept:not_idle" || out.Prune.OlderThan != "72h" {
		t.Fatalf("default 72h: %v %+v", err, out.Prune)
	}
	r.Git(r.Root, "config", "copse.pruneAfter", "1h")
	out, err = do(t, s, core.PruneRequest{DryRun: true})
	if err != nil || reasons(out.Prune)["a"] != "removed:idle" {
		t.Fatalf("config 1h: %v %+v", err, out.Prune)
	}
	out, err = do(t, s, core.PruneRequest{DryRun: true, OlderThan: core.Str("1d")})
	if err != nil || reasons(out.Prune)["a"] != "kept:not_idle" {
		t.Fatalf("--older-than 1d: %v %+v", err, out.Prune)
	}
	before := r.Snapshot()
	for _, bad := range []string{"soon", "-1h", "1x"} {
		_, err = do(t, s, core.PruneRequest{OlderThan: core.Str(bad)})
		if e := core.AsError(err); e == nil || e.Kind != core.KindUsage {
			t.Errorf("older_than %q: %v", bad, err)
		}
	}
	r.Unchanged(before)
	r.Git(r.Root, "config", "copse.pruneAfter", "whenever")
	before = r.Snapshot()
	_, err = do(t, s, core.PruneRequest{})
	wantCode(t, err, core.KindUsage, "bad_duration")
	r.Unchanged(before)
	_ = wt
}

func TestSessionFromHerdrWorkspace(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "app.worktrees/feat")
	getenv := func(k string) string {
		switch k {
		case "HERDR_ENV":
			return "1"
		case "HERDR_WORKSPACE_ID":
			return "wA7"
		}
		return r.Getenv(k)
	}
	s, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := do(t, s, core.ClaimRequest{Path: &wt})
	if err != nil || out.Claim.Session != "herdr:wA7" {
		t.Fatalf("claim in a Herdr workspace: %v %+v", err, out)
	}
	// --session wins over the environment.
	if _, err := do(t, s, core.ReleaseRequest{Path: &wt, Session: core.Str("other")}); core.AsError(err).Code != "claimed_by_other" {
		t.Fatalf("explicit session: %v", err)
	}
	// A malformed COPSE_SESSION is named as the culprit.
	bad := openAs(t, r, r.Root, "has space")
	_, err = do(t, bad, core.ReleaseRequest{Path: &wt})
	wantCode(t, err, core.KindUsage, "bad_session")
	if !strings.Contains(err.Error(), "COPSE_SESSION") {
		t.Fatalf("error does not name COPSE_SESSION: %v", err)
	}
}

// What the human confirmed is what prune may remove: a worktree that became dirty after
// the preview makes the confirmation stale, and nothing is removed.
func TestPruneStaleConfirmationRemovesNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	a := r.AddWorktree("a", "app.worktrees/a")
	r.AddWorktree("b", "app.worktrees/b")
	age(t, r, "a", 100*time.Hour)
	age(t, r, "b", 100*time.Hour)
	s := open(t, r, r.Root)
	ctx := context.Background()
	p, err := s.Prepare(ctx, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm == nil || len(p.Confirm.Fields) != 2 {
		t.Fatalf("preview %+v", p.Confirm)
	}
	coretest.WriteFile(t, filepath.Join(a, "new.txt"), "work started meanwhile\n")
	before := r.Snapshot()
	_, err = s.Execute(ctx, p)
	wantCode(t, err, core.KindRefused, "stale_state")
	r.Unchanged(before)
}

// What prune removes is recorded first, like a forced remove: restore brings it back,
// branch included when --delete-branch deleted it.
func TestPruneIsRestorable(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("gone/soon", "app.worktrees/soon")
	head := r.Git(wt, "rev-parse", "HEAD")
	age(t, r, "soon", 100*time.Hour)
	s := open(t, r, r.Root)
	out, err := do(t, s, core.PruneRequest{DeleteBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prune.Removed) != 1 || out.Prune.Removed[0].RestoreID == "" || !out.Prune.Removed[0].BranchDeleted {
		t.Fatalf("prune report %+v", out.Prune.Removed)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
	back, err := do(t, s, core.RestoreRequest{ID: &out.Prune.Removed[0].RestoreID})
	if err != nil {
		t.Fatal(err)
	}
	if back.Path != wt || back.Worktree.Branch != "gone/soon" || back.Worktree.Head != head {
		t.Fatalf("restored %+v", back.Worktree)
	}
	if got := eventNames(events(t, r)); got != "worktree.pruned worktree.restored" {
		t.Fatalf("events %s", got)
	}
}
