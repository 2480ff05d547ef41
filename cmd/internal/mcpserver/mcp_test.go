package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/copse-dev/copse/cmd/internal/agent"
	"github.com/copse-dev/copse/core/ops"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer is what the fake human says to an elicitation; nil means the client has no
// elicitation handler at all.
type answer func(*mcp.ElicitRequest) *mcp.ElicitResult

func accept(req *mcp.ElicitRequest) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
}
func decline(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }
func cancel(*mcp.ElicitRequest) *mcp.ElicitResult  { return &mcp.ElicitResult{Action: "cancel"} }
func sayNo(*mcp.ElicitRequest) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}
}

type mcpClient struct {
	*mcp.ClientSession
	asked atomic.Int32 // elicitations seen
	last  atomic.Value // last elicitation message
}

// connect runs NewMCPServer and a Go SDK client over in-memory transports.
func connect(t *testing.T, open agent.Opener, ans answer, versions ...string) *mcpClient {
	t.Helper()
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(open, "test", versions).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := &mcpClient{}
	opts := &mcp.ClientOptions{}
	if ans != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.asked.Add(1)
			c.last.Store(req.Params.Message)
			return ans(req), nil
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c.ClientSession = cs
	return c
}

// call invokes the worktree tool with raw JSON arguments and decodes the reply.
func (c *mcpClient) call(t *testing.T, args string) (agent.Reply, *mcp.CallToolResult) {
	t.Helper()
	res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolName, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool(%s): %d content items", args, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var rep agent.Reply
	if err := json.Unmarshal([]byte(text), &rep); err != nil {
		t.Fatalf("reply %q: %v", text, err)
	}
	if rep.OK == res.IsError {
		t.Fatalf("IsError %v does not match reply %s", res.IsError, text)
	}
	return rep, res
}

func TestMCPListsOneToolWithTheSchema(t *testing.T) {
	c := connect(t, noOpen(t), nil)
	res, err := c.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != ToolName {
		t.Fatalf("tools: %+v", res.Tools)
	}
	tool := res.Tools[0]
	got, _ := json.Marshal(tool.InputSchema)
	want, _ := json.Marshal(ops.All.Schema())
	if string(got) != string(want) {
		t.Errorf("input schema differs from ops.All.Schema():\n got %s\nwant %s", got, want)
	}
	a := tool.Annotations
	if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint {
		t.Errorf("annotations %+v: want the worst case (destructive, not read-only, not idempotent)", a)
	}
	for _, op := range ops.All.Operations() {
		if !strings.Contains(tool.Description, string(op)+" ("+string(ops.All.ApprovalOf(op))+")") {
			t.Errorf("description lacks %s's approval class: %s", op, tool.Description)
		}
	}
}

// Bad arguments are refused by core.Decode on the raw bytes, before the repository is
// opened: duplicate keys survive the MCP framing and are caught.
func TestMCPRefusesBadArguments(t *testing.T) {
	c := connect(t, noOpen(t), accept)
	for args, code := range map[string]string{
		`{"operation":"remove","branch":"feat","branch":"main"}`: "duplicate_key",
		`{"operation":"create","branch":"b","Force":true}`:       "unknown_field",
		`{"operation":"open","path":"/a","branch":"b"}`:          "exactly_one",
		`{"operation":"list","status":"yes"}`:                    "wrong_type",
		`{"operation":"nuke"}`:                                   "unknown_operation",
		`{}`:                                                     "missing_field",
	} {
		rep, _ := c.call(t, args)
		if rep.OK || rep.Error.Code != code {
			t.Errorf("%s: %+v, want %s", args, rep.Error, code)
		}
	}
	if c.asked.Load() != 0 {
		t.Error("the user was asked about a request that was refused")
	}
}

func TestMCPListCreateRemove(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.Open, accept)
	t.Logf("protocol %s", c.InitializeResult().ProtocolVersion)

	rep, _ := c.call(t, `{"operation":"list"}`)
	if !rep.OK || rep.Result.(map[string]any)["repo_root"] != f.Root {
		t.Fatalf("list: %+v", rep)
	}

	rep, _ = c.call(t, `{"operation":"create","branch":"fresh"}`)
	if !rep.OK {
		t.Fatalf("create: %+v", rep.Error)
	}
	path := rep.Result.(map[string]any)["worktree"].(map[string]any)["path"].(string)
	if !f.WorktreeListed(path) {
		t.Fatalf("created %s, but git does not list it", path)
	}
	if base, _ := rep.Result.(map[string]any)["base"].(map[string]any); base["ref"] != "main" || base["commit"] != f.Git(f.Root, "rev-parse", "main") {
		t.Fatalf("create reply names base %v, want main at its commit", base)
	}
	if c.asked.Load() != 0 {
		t.Error("create without a path asked for confirmation")
	}

	rep, _ = c.call(t, `{"operation":"remove","path":`+mustJSON(t, path)+`}`)
	if !rep.OK || f.WorktreeListed(path) {
		t.Fatalf("remove (accepted): %+v; still listed %v", rep.Error, f.WorktreeListed(path))
	}
	if c.asked.Load() != 1 || !strings.Contains(c.last.Load().(string), path) {
		t.Errorf("asked %d times, last message %q; want once, naming %s", c.asked.Load(), c.last.Load(), path)
	}
}

func TestMCPCreateWithPathAsks(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	wt := f.Base + "/elsewhere"
	args := `{"operation":"create","branch":"fresh","path":` + mustJSON(t, wt) + `}`

	rep, _ := connect(t, f.Open, decline).call(t, args)
	if rep.OK || rep.Error.Code != "declined" {
		t.Fatalf("declined create: %+v", rep)
	}
	f.Unchanged(before)

	c := connect(t, f.Open, accept)
	if rep, _ := c.call(t, args); !rep.OK || !f.WorktreeListed(wt) {
		t.Fatalf("accepted create: %+v", rep.Error)
	}
	if c.asked.Load() != 1 {
		t.Errorf("asked %d times, want 1", c.asked.Load())
	}
}

// Every way of not saying yes leaves the worktree in place; a client that cannot ask
// gets needs_approval without anyone being asked.
func TestMCPRemoveNotConfirmed(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	for name, ans := range map[string]answer{"decline": decline, "cancel": cancel, "accept with no": sayNo} {
		c := connect(t, f.Open, ans)
		rep, _ := c.call(t, `{"operation":"remove","branch":"feat"}`)
		if rep.OK || rep.Error.Code != "declined" || c.asked.Load() != 1 {
			t.Errorf("%s: %+v (asked %d)", name, rep.Error, c.asked.Load())
		}
		f.Unchanged(before)
	}

	c := connect(t, f.Open, nil)
	rep, _ := c.call(t, `{"operation":"remove","branch":"feat"}`)
	if rep.OK || rep.Error.Code != "needs_approval" || !strings.Contains(rep.Error.Message, "feat") {
		t.Errorf("no elicitation: %+v", rep.Error)
	}
	f.Unchanged(before)
	if !f.WorktreeListed(f.Feat) {
		t.Fatal("feat was removed")
	}
}

// A client cannot answer a confirmation it was not shown: a forged request state or
// an answer to another request runs nothing.
func TestMCPForgedAnswerRunsNothing(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	c := connect(t, f.Open, nil)
	yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	for _, state := range []string{"", "forged"} {
		res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolName,
			Arguments: json.RawMessage(`{"operation":"remove","branch":"feat"}`), InputResponses: yes, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "stale_confirmation") {
			t.Errorf("state %q: %+v", state, res.Content[0])
		}
	}
	f.Unchanged(before)
}

// Clients on protocol versions before 2026-07-28 get the same confirmation as a
// server-to-client elicitation/create (the SDK's server-side multi round-trip path).
func TestMCPLegacyProtocolElicits(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	rep, _ := connect(t, f.Open, decline, "2025-11-25").call(t, `{"operation":"remove","branch":"feat"}`)
	if rep.OK || rep.Error.Code != "declined" {
		t.Fatalf("declined: %+v", rep.Error)
	}
	f.Unchanged(before)

	c := connect(t, f.Open, accept, "2025-11-25")
	if v := c.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s, want the legacy 2025-11-25", v)
	}
	if rep, _ := c.call(t, `{"operation":"remove","branch":"feat"}`); !rep.OK || f.WorktreeListed(f.Feat) {
		t.Fatalf("accepted: %+v; still listed %v", rep.Error, f.WorktreeListed(f.Feat))
	}
	if c.asked.Load() != 1 {
		t.Errorf("asked %d times", c.asked.Load())
	}
}

// The user approves what the elicitation showed. If what the remove would lose changes
// while they read it (an agent writes a file in the worktree), their yes does not cover
// it: stale_state, nothing runs. needs_approval carries the token of what it showed.
func TestMCPApprovalCoversWhatWasShown(t *testing.T) {
	f := newFixture(t)
	writeWhileAsking := func(req *mcp.ElicitRequest) *mcp.ElicitResult {
		if err := os.WriteFile(filepath.Join(f.Feat, "late.txt"), []byte("written while the user read"), 0o644); err != nil {
			t.Error(err)
		}
		return accept(req)
	}
	c := connect(t, f.Open, writeWhileAsking)
	rep, _ := c.call(t, `{"operation":"remove","branch":"feat","force":true}`)
	if rep.OK || rep.Error.Code != "stale_state" {
		t.Fatalf("want stale_state, got %+v", rep)
	}
	if !f.WorktreeListed(f.Feat) {
		t.Fatal("feat was removed after the state it was approved for changed")
	}
	if _, err := os.Stat(filepath.Join(f.Feat, "late.txt")); err != nil {
		t.Fatal("the file written meanwhile is gone")
	}

	nc := connect(t, f.Open, nil)
	rep, _ = nc.call(t, `{"operation":"remove","branch":"feat","force":true}`)
	if rep.OK || rep.Error.Code != "needs_approval" || rep.Error.StateToken == "" {
		t.Fatalf("needs_approval without a state_token: %+v", rep.Error)
	}
}
