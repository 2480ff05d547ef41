package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Claims through MCP: a plain claim runs at once; a forced takeover asks through
// elicitation, runs nothing when declined, and reports the previous session when
// accepted. The events log records each change made through this entry point.
func TestMCPClaimTakeoverAsks(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.Open, nil)
	rep, _ := c.call(t, `{"operation":"claim","branch":"feat","session":"agent-a"}`)
	if !rep.OK || c.asked.Load() != 0 {
		t.Fatalf("claim: %+v (asked %d)", rep.Error, c.asked.Load())
	}
	takeover := `{"operation":"claim","branch":"feat","session":"agent-b","force":true}`
	before := f.Snapshot()
	d := connect(t, f.Open, decline)
	if rep, _ := d.call(t, takeover); rep.OK || rep.Error.Code != "declined" || d.asked.Load() != 1 {
		t.Fatalf("declined takeover: %+v (asked %d)", rep.Error, d.asked.Load())
	}
	if last, _ := d.last.Load().(string); !strings.Contains(last, "agent-a") {
		t.Errorf("the question does not name the holder: %q", last)
	}
	f.Unchanged(before)
	a := connect(t, f.Open, accept)
	rep, _ = a.call(t, takeover)
	if !rep.OK {
		t.Fatalf("accepted takeover: %+v", rep.Error)
	}
	res := rep.Result.(map[string]any)
	if res["previous"] != "agent-a" || res["claim"].(map[string]any)["session"] != "agent-b" {
		t.Fatalf("takeover result %v", res)
	}
	b, err := os.ReadFile(filepath.Join(f.Root, ".git", "copse", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if strings.Count(log, "\n") != 2 || !strings.Contains(log, `"event":"worktree.claimed","repo":`) || !strings.Contains(log, `"previous":"agent-a"`) {
		t.Fatalf("events:\n%s", log)
	}
}

// Through MCP: land needs no elicitation; land_status reads the record.
func TestMCPLand(t *testing.T) {
	f := newFixture(t)
	f.CommitIn(t, f.Feat, "feat.txt")
	c := connect(t, f.Open, accept)
	rep, _ := c.call(t, `{"operation":"land","branch":"feat","wait":true}`)
	if !rep.OK {
		t.Fatalf("land: %+v", rep.Error)
	}
	job := rep.Result.(map[string]any)["land"].(map[string]any)
	if job["state"] != "landed" || c.asked.Load() != 0 {
		t.Fatalf("land %v, asked %d", job, c.asked.Load())
	}
	rep, _ = c.call(t, `{"operation":"land_status","job":"land-1"}`)
	if !rep.OK || rep.Result.(map[string]any)["land"].(map[string]any)["state"] != "landed" {
		t.Fatalf("status: %+v", rep)
	}
	if f.WorktreeListed(f.Feat) {
		t.Error("the landed worktree is still listed")
	}
}
