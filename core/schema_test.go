package core_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// variant is what the schema says about one operation, read back from Schema().
type variant struct {
	props    map[string]string // name -> JSON type ("string", "boolean"), operation excluded
	required []string          // operation excluded
	groups   [][]string        // each: exactly one of these
	raw      map[string]any
}

func schemaVariants(t *testing.T) map[core.Operation]variant {
	t.Helper()
	s := ops.All.Schema()
	if s["$schema"] != core.SchemaDraft || s["type"] != "object" {
		t.Fatalf("top level: $schema %v, type %v", s["$schema"], s["type"])
	}
	out := map[core.Operation]variant{}
	for _, v := range s["oneOf"].([]any) {
		m := v.(map[string]any)
		props := m["properties"].(map[string]any)
		op := core.Operation(props["operation"].(map[string]any)["const"].(string))
		if m["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", op, m["additionalProperties"])
		}
		var vr variant
		vr.raw = m
		vr.props = map[string]string{}
		for name, p := range props {
			if name != "operation" {
				vr.props[name] = p.(map[string]any)["type"].(string)
			}
		}
		hasOp := false
		for _, r := range m["required"].([]any) {
			if r == "operation" {
				hasOp = true
			} else {
				vr.required = append(vr.required, r.(string))
			}
		}
		if !hasOp {
			t.Errorf("%s: operation not required", op)
		}
		var groupSchemas []any
		if g, ok := m["oneOf"]; ok {
			groupSchemas = append(groupSchemas, map[string]any{"oneOf": g})
		}
		if all, ok := m["allOf"]; ok {
			groupSchemas = append(groupSchemas, all.([]any)...)
		}
		for _, g := range groupSchemas {
			var names []string
			for _, alt := range g.(map[string]any)["oneOf"].([]any) {
				req := alt.(map[string]any)["required"].([]any)
				if len(req) != 1 {
					t.Fatalf("%s: group alternative %v", op, alt)
				}
				names = append(names, req[0].(string))
			}
			vr.groups = append(vr.groups, names)
		}
		if _, dup := out[op]; dup {
			t.Fatalf("operation %s twice in the schema", op)
		}
		out[op] = vr
	}
	return out
}

// minimal is the smallest request the schema says is valid: the required fields and the
// first member of each group.
func (v variant) minimal(op core.Operation) map[string]any {
	m := map[string]any{"operation": string(op)}
	for _, r := range v.required {
		m[r] = sample(v.props[r])
	}
	for _, g := range v.groups {
		m[g[0]] = sample(v.props[g[0]])
	}
	return m
}

func sample(typ string) any {
	if typ == "boolean" {
		return true
	}
	return "x"
}

func wrongFor(typ string) []any {
	if typ == "boolean" {
		return []any{"true", 1, nil, []any{}, map[string]any{}}
	}
	return []any{1, true, nil, []any{"x"}, map[string]any{"x": "y"}}
}

func decodeMap(t *testing.T, m map[string]any) (core.Request, error) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return ops.All.Decode(b)
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return core.AsError(err).Code
}

// TestSchemaNoDrift proves, by decoding, that for every operation the decoder accepts
// exactly the schema's properties and requires exactly the schema's required fields
// and groups.
func TestSchemaNoDrift(t *testing.T) {
	t.Parallel()
	vs := schemaVariants(t)
	if got, want := slices.Sorted(maps.Keys(vs)), slices.Sorted(slices.Values(ops.All.Operations())); !slices.Equal(got, want) {
		t.Fatalf("schema operations %v, want %v", got, want)
	}
	allNames := map[string]bool{"nope": true, "Branch": true, "operation_": true}
	for _, v := range vs {
		for name := range v.props {
			allNames[name] = true
		}
	}
	for _, op := range ops.All.Operations() {
		v := vs[op]
		t.Run(string(op), func(t *testing.T) {
			base := v.minimal(op)
			if _, err := decodeMap(t, base); err != nil {
				t.Fatalf("minimal request %v rejected: %v", base, err)
			}
			// Each schema property is accepted and lands in the decoded value.
			for name, typ := range v.props {
				m := maps.Clone(base)
				for _, g := range v.groups {
					if slices.Contains(g, name) {
						for _, other := range g {
							delete(m, other)
						}
					}
				}
				m[name] = sample(typ)
				req, err := decodeMap(t, m)
				if err != nil {
					t.Errorf("schema property %q rejected: %v", name, err)
					continue
				}
				if !bytes.Contains(encode(t, req), []byte(`"`+name+`"`)) {
					t.Errorf("property %q accepted but not stored: %#v", name, req)
				}
				for _, bad := range wrongFor(typ) {
					m[name] = bad
					if _, err := decodeMap(t, m); codeOf(err) != "wrong_type" {
						t.Errorf("%q = %v: got %v, want wrong_type", name, bad, err)
					}
				}
			}
			// Any name outside the schema is rejected, including other variants' fields.
			for name := range allNames {
				if _, ok := v.props[name]; ok {
					continue
				}
				m := maps.Clone(base)
				m[name] = "x"
				if _, err := decodeMap(t, m); codeOf(err) != "unknown_field" {
					t.Errorf("field %q not in the schema: got %v, want unknown_field", name, err)
				}
			}
			// Dropping any required field is rejected.
			for _, r := range v.required {
				m := maps.Clone(base)
				delete(m, r)
				if _, err := decodeMap(t, m); codeOf(err) != "missing_field" {
					t.Errorf("without required %q: got %v, want missing_field", r, err)
				}
			}
			// Groups: none and two present are rejected.
			for _, g := range v.groups {
				m := maps.Clone(base)
				for _, n := range g {
					delete(m, n)
				}
				if _, err := decodeMap(t, m); codeOf(err) != "exactly_one" {
					t.Errorf("no member of %v: got %v, want exactly_one", g, err)
				}
				for _, n := range g {
					m[n] = sample(v.props[n])
				}
				if _, err := decodeMap(t, m); codeOf(err) != "exactly_one" {
					t.Errorf("all of %v: got %v, want exactly_one", g, err)
				}
			}
			if got, want := v.raw["x-approval"], string(ops.All.ApprovalOf(op)); got != want {
				t.Errorf("x-approval = %v, want %v", got, want)
			}
		})
	}
}

func TestSchemaConfirmNotes(t *testing.T) {
	t.Parallel()
	vs := schemaVariants(t)
	if got := vs[core.OpRemove].raw["x-confirm-if"]; got != true {
		t.Errorf("remove x-confirm-if = %v, want true", got)
	}
	got, _ := json.Marshal(vs[core.OpCreate].raw["x-confirm-if"])
	// An explicit path, a command to run and a prompt for it (an agent may have chosen
	// them) ask a person.
	if string(got) != `{"anyOf":[{"required":["path"]},{"required":["run"]},{"required":["prompt"]}]}` {
		t.Errorf("create x-confirm-if = %s", got)
	}
	for _, op := range []core.Operation{core.OpList, core.OpOpen, core.OpSwitch, core.OpBack} {
		if c, ok := vs[op].raw["x-confirm-if"]; ok {
			t.Errorf("%s x-confirm-if = %v, want absent", op, c)
		}
	}
}

func TestSchemaJSONIsSchema(t *testing.T) {
	t.Parallel()
	b, err := ops.All.SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(ops.All.Schema())
	got, _ := json.Marshal(back)
	if !bytes.Equal(got, want) {
		t.Fatal("SchemaJSON differs from Schema")
	}
	// Docs travel: every property of every variant has a description.
	for op, v := range schemaVariants(t) {
		for name, p := range v.raw["properties"].(map[string]any) {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", op, name)
			}
		}
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := ops.All.SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("copse-request.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("copse-request.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

// TestSchemaValidatorAgrees runs requests through a real JSON Schema validator and
// requires the same accept/reject verdict as Decode.
func TestSchemaValidatorAgrees(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	var inputs []string
	for _, tc := range decodeCases {
		if !tc.shapeOnly {
			inputs = append(inputs, tc.in)
		}
	}
	// Generated: every operation with every field name of every variant, present alone,
	// with the right and wrong JSON types.
	vs := schemaVariants(t)
	names := map[string]string{}
	for _, v := range vs {
		maps.Copy(names, v.props)
	}
	for _, op := range ops.All.Operations() {
		for _, name := range slices.Sorted(maps.Keys(names)) {
			for _, val := range append([]any{sample(names[name])}, wrongFor(names[name])...) {
				b, _ := json.Marshal(map[string]any{"operation": op, name: val})
				inputs = append(inputs, string(b))
				m := vs[op].minimal(op)
				m[name] = val
				b, _ = json.Marshal(m)
				inputs = append(inputs, string(b))
			}
		}
	}
	sort.Strings(inputs)
	inputs = slices.Compact(inputs)
	for _, in := range inputs {
		_, decErr := ops.All.Decode([]byte(in))
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		var valErr error
		if err != nil {
			valErr = fmt.Errorf("not JSON: %w", err)
		} else {
			valErr = s.Validate(inst)
		}
		if (decErr == nil) != (valErr == nil) {
			t.Errorf("disagree on %s:\n  Decode: %v\n  schema: %v", in, decErr, valErr)
		}
	}
	t.Logf("%d requests checked", len(inputs))
}
