package core_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// decodeCase is one request of the shared table: Decode must accept it (code == "") and
// return want, or reject it with code. The schema test runs the same table through a
// JSON Schema validator and requires the same verdict.
type decodeCase struct {
	name string
	in   string
	want core.Request // for accepted cases
	code string       // for rejected cases
	// shapeOnly marks rejections the schema cannot express (duplicate keys, trailing
	// data, broken text): a validator sees the already-parsed value.
	shapeOnly bool
}

var decodeCases = []decodeCase{
	// accepted
	{name: "list", in: `{"operation":"list"}`, want: core.ListRequest{}},
	{name: "list status", in: `{"operation":"list","status":true}`, want: core.ListRequest{Status: true}},
	{name: "create minimal", in: `{"operation":"create","branch":"feat/x"}`, want: core.CreateRequest{Branch: "feat/x"}},
	{name: "create full", in: `{"operation":"create","branch":"b","base":"main","path":"/p","label":"L","focus":true}`,
		want: core.CreateRequest{Branch: "b", Base: core.Str("main"), Path: core.Str("/p"), Label: core.Str("L"), Focus: true}},
	{name: "create empty optional kept", in: `{"operation":"create","branch":"b","base":""}`,
		want: core.CreateRequest{Branch: "b", Base: core.Str("")}},
	{name: "field order free", in: ` { "branch" : "b" , "operation" : "create" } `, want: core.CreateRequest{Branch: "b"}},
	{name: "open path", in: `{"operation":"open","path":"/p"}`, want: core.OpenRequest{Path: core.Str("/p")}},
	{name: "open branch label", in: `{"operation":"open","branch":"b","label":"l","focus":false}`,
		want: core.OpenRequest{Branch: core.Str("b"), Label: core.Str("l")}},
	{name: "switch branch", in: `{"operation":"switch","branch":"b"}`, want: core.SwitchRequest{Branch: core.Str("b")}},
	{name: "remove workspace", in: `{"operation":"remove","workspace_id":"wG","force":true,"delete_branch":true}`,
		want: core.RemoveRequest{WorkspaceID: core.Str("wG"), Force: true, DeleteBranch: true}},
	{name: "back", in: `{"operation":"back"}`, want: core.BackRequest{}},
	// Values are not judged here: Prepare refuses them with a precise message.
	{name: "hostile value passes shape", in: `{"operation":"create","branch":"--x\u202e\n"}`,
		want: core.CreateRequest{Branch: "--x\u202e\n"}},
	{name: "escaped pair", in: `{"operation":"create","branch":"\ud83d\ude00"}`, want: core.CreateRequest{Branch: "😀"}},

	// rejected by shape
	{name: "empty", in: ``, code: "invalid_json"},
	{name: "not json", in: `operation=list`, code: "invalid_json"},
	{name: "array", in: `[{"operation":"list"}]`, code: "not_object"},
	{name: "string", in: `"list"`, code: "not_object"},
	{name: "null", in: `null`, code: "not_object"},
	{name: "no operation", in: `{"branch":"b"}`, code: "missing_field"},
	{name: "operation null", in: `{"operation":null}`, code: "wrong_type"},
	{name: "operation number", in: `{"operation":1}`, code: "wrong_type"},
	{name: "unknown operation", in: `{"operation":"frobnicate"}`, code: "unknown_operation"},
	{name: "operation case", in: `{"operation":"List"}`, code: "unknown_operation"},
	{name: "unknown field", in: `{"operation":"list","force":true}`, code: "unknown_field"},
	{name: "field case differs", in: `{"operation":"create","Branch":"b"}`, code: "unknown_field"},
	{name: "field of other variant", in: `{"operation":"switch","branch":"b","label":"x"}`, code: "unknown_field"},
	{name: "back takes nothing", in: `{"operation":"back","path":"/p"}`, code: "unknown_field"},
	{name: "missing branch", in: `{"operation":"create"}`, code: "missing_field"},
	{name: "branch number", in: `{"operation":"create","branch":1}`, code: "wrong_type"},
	{name: "branch null", in: `{"operation":"create","branch":null}`, code: "wrong_type"},
	{name: "base null", in: `{"operation":"create","branch":"b","base":null}`, code: "wrong_type"},
	{name: "branch array", in: `{"operation":"create","branch":["b"]}`, code: "wrong_type"},
	{name: "branch object", in: `{"operation":"create","branch":{"b":1}}`, code: "wrong_type"},
	{name: "bool as string", in: `{"operation":"list","status":"true"}`, code: "wrong_type"},
	{name: "bool as number", in: `{"operation":"remove","branch":"b","force":1}`, code: "wrong_type"},
	{name: "bool null", in: `{"operation":"remove","branch":"b","force":null}`, code: "wrong_type"},
	{name: "open neither", in: `{"operation":"open"}`, code: "exactly_one"},
	{name: "open both", in: `{"operation":"open","path":"/p","branch":"b"}`, code: "exactly_one"},
	{name: "open only label", in: `{"operation":"open","label":"l"}`, code: "exactly_one"},
	{name: "switch both", in: `{"operation":"switch","path":"/p","branch":"b"}`, code: "exactly_one"},
	{name: "remove three", in: `{"operation":"remove","path":"/p","branch":"b","workspace_id":"w1"}`, code: "exactly_one"},
	{name: "remove none", in: `{"operation":"remove","force":true}`, code: "exactly_one"},
	{name: "duplicate field", in: `{"operation":"create","branch":"a","branch":"b"}`, code: "duplicate_key", shapeOnly: true},
	{name: "duplicate operation", in: `{"operation":"list","operation":"remove"}`, code: "duplicate_key", shapeOnly: true},
	{name: "duplicate nested", in: `{"operation":"create","branch":{"a":1,"a":2}}`, code: "duplicate_key", shapeOnly: true},
	{name: "trailing object", in: `{"operation":"list"}{"operation":"back"}`, code: "trailing_data", shapeOnly: true},
	{name: "trailing garbage", in: `{"operation":"list"} x`, code: "trailing_data", shapeOnly: true},
	{name: "truncated", in: `{"operation":"list"`, code: "invalid_json"},
	{name: "lone high surrogate", in: `{"operation":"create","branch":"\ud800"}`, code: "invalid_json", shapeOnly: true},
	{name: "lone low surrogate", in: `{"operation":"create","branch":"a\udc00"}`, code: "invalid_json", shapeOnly: true},
	{name: "invalid utf8", in: "{\"operation\":\"create\",\"branch\":\"\xff\"}", code: "invalid_json", shapeOnly: true},
	{name: "too deep", in: `{"operation":"create","branch":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, code: "too_deep"},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ops.All.Decode([]byte(tc.in))
			if tc.code == "" {
				if err != nil {
					t.Fatalf("Decode(%s): %v", tc.in, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("Decode(%s) = %#v, want %#v", tc.in, got, tc.want)
				}
				return
			}
			e := mustUsage(t, err)
			if e.Code != tc.code {
				t.Fatalf("Decode(%s): code %q (%s), want %q", tc.in, e.Code, e.Message, tc.code)
			}
			if got != nil {
				t.Fatalf("Decode(%s) returned %#v with an error", tc.in, got)
			}
		})
	}
}

func mustUsage(t *testing.T, err error) *core.Error {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *core.Error, got %v", err)
	}
	if e.Kind != core.KindUsage || core.ExitCode(err) != 2 {
		t.Fatalf("want KindUsage (exit 2), got kind %d: %v", e.Kind, e)
	}
	if e.Message == "" || e.Code == "" {
		t.Fatalf("error without code or message: %#v", e)
	}
	return e
}

// Messages name the field at fault, and a hostile name never reaches them raw.
func TestDecodeMessagesNameTheField(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"operation":"create","branch":"b","colour":"red"}`: `"colour"`,
		`{"operation":"create"}`:                             `"branch"`,
		`{"operation":"create","branch":7}`:                  `"branch"`,
		`{"operation":"create","branch":"a","branch":"b"}`:   `"branch"`,
		`{"operation":"open","path":"/p","branch":"b"}`:      "path, branch",
		`{"operation":"remove"}`:                             "path, branch, workspace_id",
		`{"operation":"teleport"}`:                           `"teleport"`,
		`{"operation":"list","x\u001b[2J\n\u202e":1}`:        `"x\x1b[2J\n\u202e"`,
	} {
		_, err := ops.All.Decode([]byte(in))
		e := mustUsage(t, err)
		if !strings.Contains(e.Message, want) {
			t.Errorf("Decode(%s): message %q does not name %s", in, e.Message, want)
		}
		if strings.ContainsAny(e.Message+e.Field+e.Hint, "\n\x1b\u202e") {
			t.Errorf("Decode(%s): raw control or bidi character in error %#v", in, e)
		}
	}
}

func TestDecodeLongKeyIsCut(t *testing.T) {
	t.Parallel()
	_, err := ops.All.Decode([]byte(`{"operation":"list","` + strings.Repeat("k", 5000) + `":1}`))
	e := mustUsage(t, err)
	if len(e.Message) > 400 {
		t.Fatalf("message not cut: %d bytes", len(e.Message))
	}
}

// encode is the test's inverse of Decode: the variant's own json tags plus "operation".
func encode(t testing.TB, req core.Request) []byte {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["operation"] = string(req.Op())
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases {
		if tc.code != "" {
			continue
		}
		again, err := ops.All.Decode(encode(t, tc.want))
		if err != nil || !reflect.DeepEqual(again, tc.want) {
			t.Errorf("%s: round trip gave %#v, %v", tc.name, again, err)
		}
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"operation":"list",}`, `{"operation" "list"}`, `{"operation":"list" "status":true}`,
		`{,"operation":"list"}`, `{"operation":"list"]`, `{"operation":'list'}`, "\ufeff{\"operation\":\"list\"}",
		`{"operation":"list"}}`, `{"operation":"list","status":tru}`, `{"operation":"li\st"}`,
	} {
		if _, err := ops.All.Decode([]byte(in)); err == nil {
			t.Errorf("accepted %q", in)
		} else {
			mustUsage(t, err)
		}
	}
}
