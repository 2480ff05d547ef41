package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// shapeCases are refused by core.Decode: exit 2, with the code and a message naming names.
var shapeCases = []struct{ in, code, names string }{
	{``, "invalid_json", ""},
	{`{"operation":"teleport"}`, "unknown_operation", "teleport"},
	{`{"operation":"create","branch":"b","force":true}`, "unknown_field", "force"},
	{`{"operation":"create","branch":"a","branch":"b"}`, "duplicate_key", "branch"},
	{`{"operation":"remove","operation":"list"}`, "duplicate_key", "operation"},
	{`{"operation":"create","branch":7}`, "wrong_type", "branch"},
	{`{"operation":"create","branch":null}`, "wrong_type", "branch"},
	{`{"operation":"list","status":"yes"}`, "wrong_type", "status"},
	{`{"operation":"create"}`, "missing_field", "branch"},
	{`{"operation":"open","path":"/a","branch":"b"}`, "exactly_one", "path, branch"},
	{`{"operation":"open"}`, "exactly_one", "path, branch"},
	{`{"operation":"switch","path":"/a","branch":"b"}`, "exactly_one", "path, branch"},
	{`{"operation":"remove"}`, "exactly_one", "workspace_id"},
	{`{"operation":"list","x\u001b[2J\n\u202e":1}`, "unknown_field", `x\x1b[2J\n\u202e`},
	{`{"operation":"open","path":1}`, "wrong_type", "path"},
	{`{"operation":"list"} {"operation":"remove","branch":"b"}`, "trailing_data", ""},
	{`{"operation":"list","` + strings.Repeat("x", MaxRequestBytes) + `":1}`, "too_large", ""},
}

// Shape errors are refused with exit 2 before the repository is even opened.
func TestToolRefusesBadShapeBeforeOpening(t *testing.T) {
	for _, tc := range shapeCases {
		r := runToolJSON(t, noOpen(t), tc.in, true)
		if r.code != 2 || r.reply.Error.Code != tc.code || !strings.Contains(r.reply.Error.Message, tc.names) {
			t.Errorf("%.80s: exit %d, %.300s; want exit 2, code %s naming %q", tc.in, r.code, r.raw, tc.code, tc.names)
		}
	}
}

var (
	controls = []string{"\n", "\r", "\t", "\x1b", "\x00", "\x07", "\x08", "\x7f", "\u0085", "\u009b"}
	bidi     = []string{"\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
		"\u2066", "\u2067", "\u2068", "\u2069"}
)

// hostileValues returns the values every string field must refuse. Path fields get them
// inside an absolute path, so only the character itself can be the reason to refuse.
func hostileValues(isPath bool, dir string) map[string]string {
	wrap := func(s string) string {
		if isPath {
			return filepath.Join(dir, "wt"+s+"x")
		}
		return "ok" + s + "x"
	}
	vals := map[string]string{
		"leading dash":    "-x",
		"option as value": "--branch=x",
		"lone dash":       "-",
		"leading space":   " " + wrap(""),
		"trailing space":  wrap("") + " ",
		"empty":           "",
	}
	for _, c := range controls {
		vals[fmt.Sprintf("control %q", c)] = wrap(c)
	}
	for _, b := range bidi {
		vals[fmt.Sprintf("bidi %U", []rune(b)[0])] = wrap(b)
	}
	return vals
}

// stringFields lists every string field of every operation, read from the schema so a
// new field is covered without touching this test.
func stringFields(t *testing.T) map[core.Operation][]string {
	out := map[core.Operation][]string{}
	for _, v := range ops.All.Schema()["oneOf"].([]any) {
		m := v.(map[string]any)
		props := m["properties"].(map[string]any)
		op := core.Operation(props["operation"].(map[string]any)["const"].(string))
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if name != "operation" && props[name].(map[string]any)["type"] == "string" {
				out[op] = append(out[op], name)
			}
		}
	}
	if len(out[core.OpCreate]) == 0 || len(out[core.OpRemove]) == 0 {
		t.Fatalf("no string fields found in the schema: %v", out)
	}
	return out
}

// validRequest is a request for op that would be accepted (and, being approved, run),
// with field set to value. Targets the existing feat worktree; create makes "fresh".
func validRequest(op core.Operation, field, value string) map[string]any {
	m := map[string]any{"operation": string(op)}
	switch op {
	case core.OpCreate:
		m["branch"] = "fresh"
	case core.OpOpen, core.OpSwitch, core.OpRemove, core.OpClaim, core.OpRelease, core.OpLand:
		if field != "path" && field != "branch" && field != "workspace_id" && field != "id" {
			m["branch"] = "feat" // the target; field is an extra such as label
		}
	}
	m[field] = value
	return m
}

// Every hostile value in every string field is refused as bad input (exit 2), the
// message names the field, and nothing changes. Requests are approved, so the parsers
// are the only thing standing in the way.
func TestToolRefusesHostileValues(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	// One Service for all ~340 requests: opening is not what is under test, and the
	// requests still take the full Decode -> Prepare path of `copse tool`.
	svc, err := f.Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	open := func(context.Context) (*core.Service, error) { return svc, nil }
	n := 0
	for op, fields := range stringFields(t) {
		for _, field := range fields {
			isPath := field == "path"
			for name, val := range hostileValues(isPath, f.Base) {
				req := validRequest(op, field, val)
				r := runToolJSON(t, open, mustJSON(t, req), true)
				n++
				if r.code != 2 || r.reply.Error == nil || !strings.Contains(r.reply.Error.Message, field) {
					t.Errorf("%s.%s %s: exit %d, %s; want exit 2 naming %q", op, field, name, r.code, strings.TrimSpace(r.raw), field)
				}
				if strings.ContainsAny(r.raw, "\x1b\x00\u202e") {
					t.Errorf("%s.%s %s: raw hostile character in reply %q", op, field, name, r.raw)
				}
			}
			f.Unchanged(before)
		}
	}
	// Shape errors against the real repository, approved: still nothing changes.
	for _, tc := range shapeCases {
		if r := runToolJSON(t, f.Open, tc.in, true); r.code != 2 {
			t.Errorf("%.80s: exit %d", tc.in, r.code)
		}
		n++
	}
	f.Unchanged(before)
	t.Logf("%d hostile requests refused", n)
}

func TestToolRefusesBadBranchesAndPaths(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	dir := f.Base
	cases := []struct {
		name string
		req  map[string]any
		exit int
		word string // the message names this
	}{
		{"256-char branch", map[string]any{"operation": "create", "branch": strings.Repeat("b", 256)}, 2, "branch"},
		{"relative path", map[string]any{"operation": "create", "branch": "fresh", "path": "rel/wt"}, 2, "path"},
		{"dot relative path", map[string]any{"operation": "create", "branch": "fresh", "path": "./wt"}, 2, "path"},
		{"dotdot segment", map[string]any{"operation": "create", "branch": "fresh", "path": dir + "/x/../wt"}, 2, "path"},
		{"dotdot into git dir", map[string]any{"operation": "create", "branch": "fresh", "path": f.Root + "/x/../.git/wt"}, 2, "path"},
		{"path inside .git", map[string]any{"operation": "create", "branch": "fresh", "path": f.Root + "/.git/wt"}, 2, ".git"},
		{"path inside a worktree", map[string]any{"operation": "create", "branch": "fresh", "path": f.Feat + "/sub"}, 2, "worktree"},
		{"open relative", map[string]any{"operation": "open", "path": "app"}, 2, "path"},
		{"switch dotdot", map[string]any{"operation": "switch", "path": f.Feat + "/../feat"}, 2, "path"},
		{"remove relative", map[string]any{"operation": "remove", "path": "app.worktrees/feat"}, 2, "path"},
		{"remove bad workspace id", map[string]any{"operation": "remove", "workspace_id": "x!"}, 2, "workspace_id"},
		{"base option", map[string]any{"operation": "create", "branch": "fresh", "base": "--all"}, 2, "base"},
		{"base unknown", map[string]any{"operation": "create", "branch": "fresh", "base": "no-such-ref"}, 2, "base"},
	}
	for _, bad := range []string{"a..b", "a.lock", "a b", "a~1", "a^", "a:b", "a?b", "a*b", "a[b", "/a", "a/", ".a", "a@{1}", "refs/heads/x/..", "a\\b"} {
		cases = append(cases, struct {
			name string
			req  map[string]any
			exit int
			word string
		}{"ref name " + bad, map[string]any{"operation": "create", "branch": bad}, 2, "branch"})
	}
	for _, tc := range cases {
		r := runToolJSON(t, f.Open, mustJSON(t, tc.req), true)
		if r.code != tc.exit || !strings.Contains(r.reply.Error.Message+r.reply.Error.Hint, tc.word) {
			t.Errorf("%s: exit %d, %s; want exit %d naming %q", tc.name, r.code, strings.TrimSpace(r.raw), tc.exit, tc.word)
		}
		f.Unchanged(before)
	}
}

// Mutations that need a human's yes are refused without --approved, with the
// confirmation as the message, and nothing runs.
func TestToolNeedsApproval(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	wt := filepath.Join(f.Base, "elsewhere")
	for _, req := range []map[string]any{
		{"operation": "remove", "branch": "feat"},
		{"operation": "remove", "path": f.Feat, "force": true, "delete_branch": true},
		{"operation": "create", "branch": "fresh", "path": wt},
	} {
		r := runToolJSON(t, f.Open, mustJSON(t, req), false)
		e := r.reply.Error
		if r.code != 1 || e.Code != "needs_approval" || e.Uncertain || e.Message == "" || strings.Contains(e.Message, "\n") {
			t.Errorf("%v: exit %d, %s; want exit 1 needs_approval", req, r.code, r.raw)
		}
		if !strings.Contains(e.Message, "feat") && !strings.Contains(e.Message, wt) {
			t.Errorf("%v: confirmation %q does not say what it would do", req, e.Message)
		}
		f.Unchanged(before)
	}
}

// approve does what a host does: send the request, show the needs_approval line, then
// resend it approved with the state_token of that confirmation.
func approve(t *testing.T, open Opener, req map[string]any) toolRun {
	t.Helper()
	first := runToolJSON(t, open, mustJSON(t, req), false)
	if first.code != 1 || first.reply.Error == nil || first.reply.Error.Code != "needs_approval" || first.reply.Error.StateToken == "" {
		t.Fatalf("%v: want needs_approval with a state_token, got exit %d %s", req, first.code, first.raw)
	}
	again := map[string]any{"expected_state_token": first.reply.Error.StateToken}
	for k, v := range req {
		again[k] = v
	}
	return runToolJSON(t, open, mustJSON(t, again), true)
}

func TestToolApprovedRuns(t *testing.T) {
	f := newFixture(t)
	wt := filepath.Join(f.Base, "elsewhere")

	r := approve(t, f.Open, map[string]any{"operation": "create", "branch": "fresh", "path": wt})
	if r.code != 0 || !f.WorktreeListed(wt) {
		t.Fatalf("approved create: exit %d, %s; listed %v", r.code, r.raw, f.WorktreeListed(wt))
	}
	if got := f.Git(wt, "branch", "--show-current"); got != "fresh" {
		t.Errorf("new worktree is on %q, want fresh", got)
	}

	r = approve(t, f.Open, map[string]any{"operation": "remove", "path": wt})
	if r.code != 0 || f.WorktreeListed(wt) {
		t.Fatalf("approved remove: exit %d, %s; still listed %v", r.code, r.raw, f.WorktreeListed(wt))
	}
	if _, err := os.Lstat(wt); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still exists (%v)", wt, err)
	}
	// create without a path needs no confirmation.
	r = runToolJSON(t, f.Open, `{"operation":"create","branch":"other"}`, false)
	if r.code != 0 {
		t.Fatalf("create without path: exit %d, %s", r.code, r.raw)
	}
	res := r.reply.Result.(map[string]any)
	path, _ := res["worktree"].(map[string]any)["path"].(string)
	if path == "" || !f.WorktreeListed(path) {
		t.Errorf("create reply %s: path %q not listed by git", r.raw, path)
	}
	// The reply names where the new branch starts: ref and commit.
	if base, _ := res["base"].(map[string]any); base["ref"] != "main" || base["commit"] != f.Git(f.Root, "rev-parse", "main") {
		t.Errorf("create reply %s: base %v, want main at its commit", r.raw, base)
	}

	r = runToolJSON(t, f.Open, `{"operation":"list"}`, false)
	var listing core.Listing
	if b, _ := json.Marshal(r.reply.Result); r.code != 0 || json.Unmarshal(b, &listing) != nil || len(listing.Worktrees) != 3 {
		t.Errorf("list: exit %d, %s", r.code, r.raw)
	}
}

// --approved approves only what the human saw: without the confirmation's token it is bad
// input, with a token of another state it is stale, and in both cases nothing runs.
func TestToolApprovalNeedsTheShownState(t *testing.T) {
	f := newFixture(t)
	before := f.Snapshot()
	req := map[string]any{"operation": "remove", "branch": "feat"}

	r := runToolJSON(t, f.Open, mustJSON(t, req), true)
	if r.code != 2 || r.reply.Error.Code != "state_token_required" || r.reply.Error.Field != "expected_state_token" {
		t.Fatalf("approved without a token: exit %d %s; want exit 2 state_token_required", r.code, r.raw)
	}
	f.Unchanged(before)

	// The list's token is not the confirmation's: approving with it would approve a
	// confirmation nobody saw.
	list := runToolJSON(t, f.Open, `{"operation":"list"}`, false)
	listTok, _ := list.reply.Result.(map[string]any)["state_token"].(string)
	if listTok == "" {
		t.Fatalf("list reply carries no state_token: %s", list.raw)
	}
	r = runToolJSON(t, f.Open, mustJSON(t, map[string]any{"operation": "remove", "branch": "feat", "expected_state_token": listTok}), true)
	if r.code != 1 || r.reply.Error.Code != "stale_state" {
		t.Fatalf("approved with the list token: exit %d %s; want stale_state", r.code, r.raw)
	}
	f.Unchanged(before)

	// The confirmation was shown; then a file appears in the worktree. The old token no
	// longer describes what the remove would lose: stale, nothing runs.
	shown := runToolJSON(t, f.Open, mustJSON(t, map[string]any{"operation": "remove", "branch": "feat", "force": true}), false)
	tok := shown.reply.Error.StateToken
	if shown.reply.Error.Code != "needs_approval" || tok == "" {
		t.Fatalf("want needs_approval with a token: %s", shown.raw)
	}
	if err := os.WriteFile(filepath.Join(f.Feat, "new.txt"), []byte("work"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = f.Snapshot()
	r = runToolJSON(t, f.Open, mustJSON(t, map[string]any{"operation": "remove", "branch": "feat", "force": true, "expected_state_token": tok}), true)
	if r.code != 1 || r.reply.Error.Code != "stale_state" {
		t.Fatalf("approved after the losses changed: exit %d %s; want stale_state", r.code, r.raw)
	}
	f.Unchanged(before)
	if !f.WorktreeListed(f.Feat) {
		t.Fatal("the worktree was removed")
	}
}

// A non-confirmed mutation sent with a list token runs while the list is unchanged and
// is refused once it changed.
func TestToolExpectedStateTokenOnMutations(t *testing.T) {
	f := newFixture(t)
	list := runToolJSON(t, f.Open, `{"operation":"list"}`, false)
	tok, _ := list.reply.Result.(map[string]any)["state_token"].(string)
	r := runToolJSON(t, f.Open, mustJSON(t, map[string]any{"operation": "create", "branch": "one", "expected_state_token": tok}), false)
	if r.code != 0 {
		t.Fatalf("create with the current token: exit %d %s", r.code, r.raw)
	}
	before := f.Snapshot()
	r = runToolJSON(t, f.Open, mustJSON(t, map[string]any{"operation": "create", "branch": "two", "expected_state_token": tok}), false)
	if r.code != 1 || r.reply.Error.Code != "stale_state" {
		t.Fatalf("create with a stale token: exit %d %s; want stale_state", r.code, r.raw)
	}
	f.Unchanged(before)
}

func TestWriteSchema(t *testing.T) {
	var out bytes.Buffer
	if err := WriteSchema(&out); err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(ops.All.Schema())
	if b, _ := json.Marshal(got); !bytes.Equal(b, want) {
		t.Error("--schema output differs from ops.All.Schema()")
	}
}
