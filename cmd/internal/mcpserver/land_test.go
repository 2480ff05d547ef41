package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test command in an MCP request runs only after the user saw it (elicitation): declined,
// nothing runs and nothing is queued; accepted, the land runs that very command.
func TestMCPLandTestCommandAsks(t *testing.T) {
	f := newFixture(t)
	f.CommitIn(t, f.Feat, "feat.txt")
	ran := filepath.Join(t.TempDir(), "ran")
	req := `{"operation":"land","branch":"feat","test":"touch ` + ran + `","wait":true}`
	before := f.Snapshot()
	d := connect(t, f.Open, decline)
	if rep, _ := d.call(t, req); rep.OK || rep.Error.Code != "declined" || d.asked.Load() != 1 {
		t.Fatalf("declined land: %+v (asked %d)", rep.Error, d.asked.Load())
	}
	if last, _ := d.last.Load().(string); !strings.Contains(last, "test (sh -c): touch "+ran) {
		t.Errorf("the question does not show the command: %q", last)
	}
	f.Unchanged(before)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a declined command ran")
	}
	a := connect(t, f.Open, accept)
	rep, _ := a.call(t, req)
	if !rep.OK || a.asked.Load() != 1 {
		t.Fatalf("accepted land: %+v (asked %d)", rep.Error, a.asked.Load())
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("the accepted command did not run")
	}
}
