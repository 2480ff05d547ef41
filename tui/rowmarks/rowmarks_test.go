package rowmarks

import (
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
)

func texts(ps []Piece) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Long())
	}
	return strings.Join(s, " ")
}

func ptr(s string) *string { return &s }

func TestBadges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wt      core.Worktree
		pending bool
		want    string
	}{
		{"clean", core.Worktree{Status: &core.Status{}}, false, "✓"},
		{"changes and conflicts", core.Worktree{Status: &core.Status{Staged: 1, Unstaged: 2, Untracked: 3, Conflicted: 1, Merging: true}}, false, "✚6 ✖1 merge"},
		{"ahead behind", core.Worktree{Status: &core.Status{Ahead: 2, Behind: 5}}, false, "↑2 ↓5"},
		{"rebase shown once", core.Worktree{Rebasing: true, Status: &core.Status{Unstaged: 1, Rebasing: true}}, false, "✚1"},
		{"rebase in status", core.Worktree{Status: &core.Status{Rebasing: true}}, false, "rebase"},
		{"unknown is never clean", core.Worktree{Status: &core.Status{Error: "boom\x1b[2J"}}, false, `status unknown: boom\x1b[2J`},
		{"pending", core.Worktree{}, true, "…"},
		{"not asked", core.Worktree{}, false, ""},
		{"prunable has no status", core.Worktree{Prunable: ptr("gone"), Status: &core.Status{Error: "cannot chdir"}}, false, ""},
		{"bare has no status", core.Worktree{Bare: true, Status: &core.Status{}}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := texts(Badges(tc.wt, tc.pending)); got != tc.want {
				t.Errorf("Badges = %q, want %q", got, tc.want)
			}
		})
	}
	if p := Badges(core.Worktree{Status: &core.Status{Error: "x"}}, false)[0]; p.Text != "?" || p.Kind != Unknown {
		t.Errorf("unknown status piece = %+v", p)
	}
}

func TestMarkers(t *testing.T) {
	ws, procs, none := "wG", 2, 0
	wt := core.Worktree{Main: true, Rebasing: true, Locked: ptr("on a \u202eUSB drive"), Prunable: ptr(""), WorkspaceID: &ws, Processes: &procs}
	if got, want := texts(Markers(wt)), `main rebasing locked: on a \u202eUSB drive prunable [wG] 2 proc`; got != want {
		t.Errorf("Markers = %q, want %q", got, want)
	}
	// No process, or not counted: no marker.
	for _, n := range []*int{&none, nil} {
		if got := texts(Markers(core.Worktree{Processes: n})); got != "" {
			t.Errorf("Processes %v: markers %q", n, got)
		}
	}
	// A claim replaces the lock it is made of; a long session is cut.
	wt = core.Worktree{Locked: ptr("copse claim"), Claim: &core.Claim{Session: "agent-with-a-very-long-session-name\n", Since: time.Unix(0, 0)}}
	ps := Markers(wt)
	if len(ps) != 1 || ps[0].Kind != Claimed || ps[0].Text != "⚑ agent-with-a-ve…" {
		t.Errorf("claim markers = %+v", ps)
	}
}

func TestLabel(t *testing.T) {
	oid := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		wt   core.Worktree
		want string
	}{
		{core.Worktree{Branch: "feat/x\u202e"}, `feat/x\u202e`},
		{core.Worktree{Branch: "feat/x", Detached: true, Rebasing: true}, "feat/x"},
		{core.Worktree{Detached: true, Head: oid}, "(detached 0123456)"},
		{core.Worktree{Bare: true}, "(bare)"},
	} {
		if got := Label(tc.wt); got != tc.want {
			t.Errorf("Label(%+v) = %q, want %q", tc.wt, got, tc.want)
		}
	}
}

func TestLand(t *testing.T) {
	for _, tc := range []struct {
		j    core.LandJob
		want Piece
	}{
		{core.LandJob{State: core.LandQueued, Position: 2}, Piece{Text: "land #2", Kind: Progress}},
		{core.LandJob{State: core.LandRunning, Phase: core.PhaseTest}, Piece{Text: "landing: test", Kind: Progress}},
		{core.LandJob{State: core.LandBlocked, Code: "rebase_conflict\x1b"}, Piece{Text: `blocked: rebase_conflict\x1b`, Kind: Blocked}},
		{core.LandJob{State: core.LandUncertain}, Piece{Text: "land uncertain", Kind: Blocked}},
	} {
		if got := Land(&tc.j); got != tc.want {
			t.Errorf("Land(%+v) = %+v, want %+v", tc.j.State, got, tc.want)
		}
	}
}

// Every agent of a row gets its state word, its program first; a wrapper copse or a shell
// put around it never shows as the program; a done agent shows a non-zero exit code, and
// an unread one its mark; a process only known to run, or an agent in no known state, has
// no word (the proc count covers it).
func TestAgentStateWords(t *testing.T) {
	two, zero := 2, 0
	wt := core.Worktree{Agents: []core.Agent{
		{Command: "claude", State: core.AgentWorking},
		{Command: "/usr/bin/pi", State: core.AgentBlocked},
		{Command: "copse-run", State: core.AgentIdle},
		{Command: "/bin/sh", State: core.AgentIdle},
		{Command: "codex", State: core.AgentDone, ExitCode: &two},
		{Command: "omp", State: core.AgentDone, ExitCode: &zero, Unread: true},
		{Command: "node", State: core.AgentRunning},
		{State: core.AgentUnknown},
		{Command: "evil\x1b[2J", State: core.AgentWorking},
	}}
	got := Agents(wt)
	want := []Piece{
		{Text: "claude working", Kind: Working},
		{Text: "pi needs you", Kind: NeedsYou},
		{Text: "idle", Kind: Idle},
		{Text: "idle", Kind: Idle},
		{Text: "codex done (exit 2)", Kind: Failed},
		{Text: "● omp done", Kind: Unread},
		{Text: `evil\x1b[2J working`, Kind: Working},
	}
	if len(got) != len(want) {
		t.Fatalf("Agents = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("agent %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if m := texts(Markers(core.Worktree{Agents: []core.Agent{{Command: "claude", State: core.AgentBlocked}}})); m != "claude needs you" {
		t.Errorf("markers of a row with a blocked agent: %q", m)
	}
}

// A claim whose --run command ended says so on its marker.
func TestEndedClaimMarker(t *testing.T) {
	wt := core.Worktree{Claim: &core.Claim{Session: "agent:x", Ended: true}}
	if m := texts(Markers(wt)); m != "⚑ agent:x (ended)" {
		t.Errorf("markers %q", m)
	}
}
