package agent

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
	c := connect(t, f.open, nil)
	rep, _ := c.call(t, `{"operation":"claim","branch":"feat","session":"agent-a"}`)
	if !rep.OK || c.asked.Load() != 0 {
		t.Fatalf("claim: %+v (asked %d)", rep.Error, c.asked.Load())
	}
	takeover := `{"operation":"claim","branch":"feat","session":"agent-b","force":true}`
	before := f.Snapshot()
	d := connect(t, f.open, decline)
	if rep, _ := d.call(t, takeover); rep.OK || rep.Error.Code != "declined" || d.asked.Load() != 1 {
		t.Fatalf("declined takeover: %+v (asked %d)", rep.Error, d.asked.Load())
	}
	if last, _ := d.last.Load().(string); !strings.Contains(last, "agent-a") {
		t.Errorf("the question does not name the holder: %q", last)
	}
	f.Unchanged(before)
	a := connect(t, f.open, accept)
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
