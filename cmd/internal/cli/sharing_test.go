package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The commands parallel agents share a repository with: claim and release, prune, events,
// ids (docs/lifecycle.md).

// startTogether starts one copse process per argument list, all released at once through
// a shared pipe, and waits for them.
func startTogether(t *testing.T, r *coretest.Repo, env [][]string, argv [][]string) []result {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
	}
	procs := make([]*proc, len(argv))
	for i, args := range argv {
		p := &proc{}
		p.cmd = exec.Command("/bin/sh", append([]string{"-c", `read _ ; exec "$COPSE" "$@"`, "sh"}, args...)...)
		p.cmd.Dir = r.Root
		p.cmd.Env = cleanEnv(r.Home, append([]string{"COPSE=" + copseBin}, env[i]...)...)
		p.cmd.Stdin = pr
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	pr.Close()
	pw.Close()
	out := make([]result, len(procs))
	for i, p := range procs {
		err := p.cmd.Wait()
		res := result{args: argv[i], stdout: p.stdout.String(), stderr: p.stderr.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			res.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.stderr, "DATA RACE") {
			t.Fatalf("data race:\n%s", res)
		}
		out[i] = res
	}
	return out
}

// readEventsFile checks every line of events.jsonl is one whole event, seqs 1..n dense.
func readEventsFile(t *testing.T, r *coretest.Repo) []core.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Root, ".git", "copse", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var evs []core.Event
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var e core.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not an event: %v\n%q", i+1, err, line)
		}
		if e.Seq != int64(i+1) || e.V != 1 || e.Repo != r.Root {
			t.Fatalf("line %d: %+v", i+1, e)
		}
		evs = append(evs, e)
	}
	return evs
}

// Six sessions claim one worktree at once: exactly one wins; the others are refused
// naming the winner, and one event is written.
func TestConcurrentClaims(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat", "app.worktrees/feat")
	var env, argv [][]string
	for i := range 6 {
		env = append(env, []string{fmt.Sprintf("COPSE_SESSION=agent-%d", i)})
		argv = append(argv, []string{"claim", "feat"})
	}
	res := startTogether(t, r, env, argv)
	winner := -1
	for i, rs := range res {
		switch rs.code {
		case 0:
			if winner >= 0 {
				t.Fatalf("two winners:\n%s\n%s", res[winner], rs)
			}
			winner = i
		case 1:
			if !strings.Contains(rs.stderr, "is claimed by session agent-") {
				t.Fatalf("loser does not name the holder:\n%s", rs)
			}
		default:
			t.Fatalf("unexpected:\n%s", rs)
		}
	}
	if winner < 0 {
		t.Fatal("nobody won")
	}
	holder := fmt.Sprintf("agent-%d", winner)
	for i, rs := range res {
		if i != winner && !strings.Contains(rs.stderr, "session "+holder) {
			t.Fatalf("loser names another holder than %s:\n%s", holder, rs)
		}
	}
	wl := r.Git(r.Root, "worktree", "list", "--porcelain")
	if !strings.Contains(wl, "locked copse claim: session="+holder+" since=") {
		t.Fatalf("lock reason:\n%s", wl)
	}
	evs := readEventsFile(t, r)
	if len(evs) != 1 || evs[0].Event != "worktree.claimed" || evs[0].Session != holder || evs[0].Worktree.Path != feat || evs[0].Worktree.ID != "feat" {
		t.Fatalf("events %+v", evs)
	}
}

// Many processes mutate at once (creates, claims, releases): every event line is whole,
// seqs are dense, and each mutation that succeeded has its event.
func TestEventsConcurrentWriters(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	var env, argv [][]string
	for i := range 8 {
		env = append(env, []string{fmt.Sprintf("COPSE_SESSION=s%d", i)})
		argv = append(argv, []string{"create", fmt.Sprintf("ev/b%d", i), "--claim"})
	}
	res := startTogether(t, r, env, argv)
	for _, rs := range res {
		want(t, rs, 0, "claimed for session")
	}
	env, argv = nil, nil
	for i := range 8 {
		env = append(env, []string{fmt.Sprintf("COPSE_SESSION=s%d", i)})
		argv = append(argv, []string{"release", fmt.Sprintf("ev/b%d", i)})
	}
	for _, rs := range startTogether(t, r, env, argv) {
		want(t, rs, 0, "released")
	}
	evs := readEventsFile(t, r)
	if len(evs) != 24 {
		t.Fatalf("%d events, want 24", len(evs))
	}
	count := map[string]int{}
	lastOf := map[string]string{}
	for _, e := range evs {
		count[e.Event]++
		b := e.Worktree.Branch
		// per worktree: created, then claimed, then released
		switch lastOf[b] + ">" + e.Event {
		case ">worktree.created", "worktree.created>worktree.claimed", "worktree.claimed>worktree.released":
		default:
			t.Fatalf("order for %s: %s after %q", b, e.Event, lastOf[b])
		}
		lastOf[b] = e.Event
	}
	if count["worktree.created"] != 8 || count["worktree.claimed"] != 8 || count["worktree.released"] != 8 {
		t.Fatalf("counts %v", count)
	}

	// copse events prints them; --since skips; --json is the recorded line.
	out := run(t, r, r.Root, "events", "--since", "20", "--json")
	want(t, out, 0)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"seq":21`) {
		t.Fatalf("events --since 20 --json:\n%s", out)
	}
	text := run(t, r, r.Root, "events")
	want(t, text, 0, "1 ", "worktree.created", "session=s")
	if n := strings.Count(text.stdout, "\n"); n != 24 {
		t.Fatalf("events: %d lines\n%s", n, text)
	}
	want(t, run(t, r, r.Root, "events", "--since", "x"), 2, "--since")
}

// --follow prints events as they come and ends cleanly (exit 0) on SIGINT and SIGTERM.
func TestEventsFollowEndsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r := coretest.New(t)
			cmd := exec.Command(copseBin, "events", "--follow", "--json")
			cmd.Dir = r.Root
			cmd.Env = cleanEnv(r.Home)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 10)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			want(t, run(t, r, r.Root, "create", "followed"), 0)
			select {
			case l := <-lines:
				if !strings.Contains(l, `"event":"worktree.created"`) || !strings.Contains(l, `"branch":"followed"`) {
					t.Fatalf("followed line %s", l)
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("no event followed")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				for range lines {
				}
				done <- cmd.Wait()
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("follow ended with %v\n%s", err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("follow did not end on the signal")
			}
		})
	}
}

func TestClaimCommands(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	odd := filepath.Join(r.Base, "app.worktrees", "two words\nand a line")
	r.AddWorktree("odd", odd)
	env := []string{"COPSE_SESSION=agent-a"}

	spaced := r.AddWorktree("spaced", filepath.Join(r.Base, "app.worktrees", "two words"))
	want(t, runWith(t, r, r.Root, env, nil, "claim", spaced), 0, "claimed")
	want(t, runWith(t, r, r.Root, env, nil, "release", spaced), 0, "released")

	// A path with a newline cannot be typed as a value (exit 2); its id names it.
	want(t, runWith(t, r, r.Root, env, nil, "claim", odd), 2, "control character")
	var l struct{ Worktrees []core.Worktree }
	lj := run(t, r, r.Root, "list", "--json")
	if err := json.Unmarshal([]byte(lj.stdout), &l); err != nil {
		t.Fatal(err)
	}
	oddID := ""
	for _, w := range l.Worktrees {
		if w.Path == odd {
			oddID = w.ID
		}
	}
	if oddID == "" {
		t.Fatalf("no id for the newline path:\n%s", lj)
	}
	res := runWith(t, r, r.Root, env, nil, "claim", "id:"+oddID, "--json")
	want(t, res, 0)
	var out struct {
		Claim    core.Claim    `json:"claim"`
		Worktree core.Worktree `json:"worktree"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Claim.Session != "agent-a" || out.Worktree.Path != odd || out.Worktree.ID == "" {
		t.Fatalf("claim --json: %v\n%s", err, res)
	}
	id := out.Worktree.ID
	list := run(t, r, r.Root, "list")
	want(t, list, 0, "⚑ agent-a")

	before := r.Snapshot()
	// Another session is refused naming the holder; force needs --yes without a terminal.
	want(t, run(t, r, r.Root, "claim", "id:"+id, "--session", "agent-b"), 1, "claimed by session agent-a", "--force")
	want(t, run(t, r, r.Root, "claim", "id:"+id, "--session", "agent-b", "--force"), 1, "pass --yes")
	want(t, run(t, r, r.Root, "release", "id:"+id, "--session", "agent-b"), 1, "agent-a")
	want(t, run(t, r, r.Root, "claim", "id:"+id), 2, "session")
	want(t, run(t, r, r.Root, "claim", "main", "--session", "x"), 1, "main checkout")
	want(t, run(t, r, r.Root, "claim", "id:nope", "--session", "x"), 1, "no worktree has id")
	r.Unchanged(before)

	res = run(t, r, r.Root, "claim", "id:"+id, "--session", "agent-b", "--force", "--yes")
	want(t, res, 0, "taken over from session agent-a")
	want(t, run(t, r, r.Root, "release", "id:"+id, "--session", "agent-b"), 0, "released")

	// copse tool: claim by id, a forced claim needs approval.
	tool := func(req string, approved bool) result {
		args := []string{"tool"}
		if approved {
			args = append(args, "--approved")
		}
		return runWith(t, r, r.Root, nil, strings.NewReader(req), args...)
	}
	want(t, tool(`{"operation":"claim","id":"`+id+`","session":"bot-1"}`, false), 0, `"session":"bot-1"`)
	before = r.Snapshot()
	want(t, tool(`{"operation":"claim","id":"`+id+`","session":"bot-2","force":true}`, false), 1, "needs_approval", "bot-1")
	want(t, tool(`{"operation":"release","id":"`+id+`","session":"bot-2"}`, false), 1, "claimed_by_other")
	// Nothing to prune (all kept): nothing to approve either.
	want(t, tool(`{"operation":"prune"}`, false), 0, `"removed":[]`, `"reason":"claimed"`)
	r.Unchanged(before)
	want(t, tool(`{"operation":"release","id":"`+id+`","session":"bot-1"}`, false), 0)
}

func TestPruneCommand(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	old := r.AddWorktree("old", "app.worktrees/old")
	dirty := r.AddWorktree("dirty", "app.worktrees/dirty")
	coretest.WriteFile(t, filepath.Join(dirty, "x"), "x")
	past := time.Now().Add(-100 * time.Hour)
	for _, id := range []string{"old", "dirty"} {
		for _, f := range []string{"index", "logs/HEAD", "HEAD"} {
			os.Chtimes(filepath.Join(r.Root, ".git", "worktrees", id, f), past, past)
		}
	}
	before := r.Snapshot()
	res := run(t, r, r.Root, "prune", "--dry-run")
	want(t, res, 0, "would remove", "app.worktrees/old (old)", "kept", "dirty (dirty): uncommitted changes: 1 untracked", "app (main): the main checkout")
	want(t, run(t, r, r.Root, "prune"), 1, "pass --yes")
	res = run(t, r, r.Root, "prune", "--dry-run", "--json")
	want(t, res, 0)
	var o struct {
		DryRun bool             `json:"dry_run"`
		Prune  core.PruneReport `json:"prune"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &o); err != nil || !o.DryRun || len(o.Prune.Removed) != 1 || o.Prune.Removed[0].ID != "old" {
		t.Fatalf("prune --dry-run --json: %v\n%s", err, res)
	}
	want(t, run(t, r, r.Root, "prune", "--older-than", "soon"), 2, "older_than")
	r.Unchanged(before)

	res = run(t, r, r.Root, "prune", "--yes", "--delete-branch")
	want(t, res, 0, "removed", "branch deleted")
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("old still there: %v", err)
	}
	ev := run(t, r, r.Root, "events")
	want(t, ev, 0, "worktree.pruned", "reason=idle", "id:old")
	_ = io.Discard

	// The record of what prune removed expires: a dry run names it, prune drops it.
	records := func() string { return r.Git(r.Root, "for-each-ref", "refs/copse/removed/") }
	if records() == "" {
		t.Fatal("prune kept no record of what it removed")
	}
	r.Git(r.Root, "config", "copse.keepRemoved", "1ns")
	want(t, run(t, r, r.Root, "prune", "--dry-run"), 0, "would drop 1 restore record past copse.keepRemoved")
	if records() == "" {
		t.Fatal("the dry run dropped the record")
	}
	want(t, run(t, r, r.Root, "prune", "--yes"), 0, "dropped 1 restore record past copse.keepRemoved")
	if got := records(); got != "" {
		t.Fatalf("the expired record is still there: %s", got)
	}
}

// copse setup names its target by id too.
func TestSetupByID(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	want(t, run(t, r, r.Root, "create", "feat", "--no-setup"), 0)
	r.Git(r.Root, "config", "--add", "copse.setup", "touch made-by-setup")
	want(t, run(t, r, r.Root, "setup", "id:feat"), 0)
	if _, err := os.Stat(filepath.Join(r.Base, "app.worktrees", "feat", "made-by-setup")); err != nil {
		t.Fatalf("setup id:feat did not run in feat: %v", err)
	}
	want(t, run(t, r, r.Root, "setup", "id:nope"), 1, "no worktree has id")
}
