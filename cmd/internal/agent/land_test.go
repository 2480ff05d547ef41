package agent

import (
	"strings"
	"testing"

	"github.com/copse-dev/copse/cmd/internal/agent/agenttest"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// land without wait queues and returns the job; land_status reads it; land with wait runs
// the queue (the earlier job first) and replies with the landed job. A plain land needs no
// approval (execute class); one that carries a test command does.
func TestToolLandQueueStatusWait(t *testing.T) {
	f := newFixture(t)
	f.CommitIn(t, f.Feat, "feat.txt")
	other := f.AddWorktree("other", "app.worktrees/other")
	f.CommitIn(t, other, "other.txt")

	r := runToolJSON(t, f.Open, `{"operation":"land","branch":"feat"}`, false)
	if r.code != 0 {
		t.Fatalf("queue: %s", r.raw)
	}
	job := r.reply.Result.(map[string]any)["land"].(map[string]any)
	if job["job"] != "land-1" || job["state"] != "queued" || job["position"] != float64(1) || job["owned"] != false {
		t.Fatalf("queued job %v", job)
	}
	s := runToolJSON(t, f.Open, `{"operation":"land_status","job":"land-1"}`, false)
	if s.code != 0 || s.reply.Result.(map[string]any)["land"].(map[string]any)["state"] != "queued" {
		t.Fatalf("status: %s", s.raw)
	}
	w := approvedTool(t, f.Open, `{"operation":"land","id":"other","wait":true,"test":"test -f other.txt"}`)
	if w.code != 0 {
		t.Fatalf("land wait: %s", w.raw)
	}
	got := w.reply.Result.(map[string]any)["land"].(map[string]any)
	if got["job"] != "land-2" || got["state"] != "landed" {
		t.Fatalf("landed job %v", got)
	}
	all := runToolJSON(t, f.Open, `{"operation":"land_status"}`, false)
	jobs := all.reply.Result.(map[string]any)["land_jobs"].([]any)
	if len(jobs) != 2 || jobs[0].(map[string]any)["state"] != "landed" {
		t.Fatalf("the queued job ahead was not run first: %s", all.raw)
	}
	log := f.Git(f.Root, "log", "--format=%s", "main")
	if strings.Index(log, "add other.txt") > strings.Index(log, "add feat.txt") {
		t.Fatalf("out of order:\n%s", log)
	}
	// A blocked land: exit 1 with the stable code, and the hint.
	third := f.AddWorktree("third", "app.worktrees/third")
	f.CommitIn(t, third, "third.txt")
	b := approvedTool(t, f.Open, `{"operation":"land","branch":"third","wait":true,"test":"exit 4"}`)
	if b.code != 1 || b.reply.Error.Code != "test_failed" || b.reply.Error.Hint == "" {
		t.Fatalf("blocked: %s", b.raw)
	}
}

func TestSchemaHasLand(t *testing.T) {
	var land, status map[string]any
	for _, v := range ops.All.Schema()["oneOf"].([]any) {
		m := v.(map[string]any)
		switch m["title"] {
		case "land":
			land = m
		case "land_status":
			status = m
		}
	}
	if land == nil || status == nil || land["x-approval"] != "execute" || status["x-approval"] != "read" {
		t.Fatalf("land %v status %v", land, status)
	}
	props := land["properties"].(map[string]any)
	for _, k := range []string{"path", "branch", "id", "into", "test", "keep", "force_restart", "wait", "expected_state_token"} {
		if _, ok := props[k]; !ok {
			t.Errorf("land lacks %s", k)
		}
	}
	// A request's test command and a forced claim ask first; nothing else does.
	if c := agenttest.MustJSON(t, land["x-confirm-if"]); !strings.Contains(c, `"required":["force_claim"]`) || !strings.Contains(c, `"required":["test"]`) || strings.Count(c, "required") != 2 {
		t.Errorf("land x-confirm-if %s", c)
	}
}

// approvedTool sends req the way a host does once its user agreed: first without
// approval (the reply is needs_approval with a state_token), then approved with that token.
func approvedTool(t *testing.T, open Opener, req string) toolRun {
	t.Helper()
	first := runToolJSON(t, open, req, false)
	if first.code != 1 || first.reply.Error == nil || first.reply.Error.Code != core.CodeNeedsApproval {
		t.Fatalf("want needs_approval for %s: %s", req, first.raw)
	}
	return runToolJSON(t, open, strings.TrimSuffix(req, "}")+`,"expected_state_token":"`+first.reply.Error.StateToken+`"}`, true)
}
