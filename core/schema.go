package core

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// SchemaDraft is the JSON Schema dialect Schema declares.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// Schema returns the JSON Schema (draft 2020-12) of a request, generated from the same
// variant structs and tags Decode reads, so the two cannot drift apart:
//
//   - the top level is an object with a "oneOf" of one object schema per operation,
//     told apart by "operation": {"const": "…"};
//   - each variant lists its properties with type and the doc tag as description,
//     "required" = operation + copse:"required" fields, "additionalProperties": false;
//   - a copse:"oneof=G" group becomes {"oneOf": [{"required": [a]}, {"required": [b]}]}
//     (several groups: an "allOf" of those): exactly one subschema may match, so both
//     or neither present fails;
//   - "x-approval" is the operation's approval class for agent hosts (ApprovalOf):
//     "read", "execute" or "destructive";
//   - "x-confirm-if" is itself a JSON Schema: when a request validates against it, a
//     human must confirm before it runs (derived from NeedsConfirmation). It is `true`
//     for remove (always asks) and {"required": ["path"]} for create (an explicit path
//     asks); absent means never. Hosts that ignore x- keywords still validate correctly.
//
// Value rules (no control characters, no leading '-', lengths, ref names) are not in the
// schema; Service.Prepare enforces them with messages that say what is wrong.
// Each call returns a fresh value the caller may modify.
func (r *Registry) Schema() map[string]any {
	variants := make([]any, 0, len(r.ops))
	ops := make([]any, 0, len(r.ops))
	for _, op := range r.Operations() {
		variants = append(variants, r.variantSchema(r.specs()[op]))
		ops = append(ops, string(op))
	}
	return map[string]any{
		"$schema":     SchemaDraft,
		"title":       "copse request",
		"description": "One worktree request. Pick the variant by \"operation\"; each accepts exactly its own fields.",
		"type":        "object",
		// Repeated at the top so that hosts which only read top-level properties still
		// learn the operation names; the variants below are what actually constrains.
		"properties": map[string]any{
			"operation": map[string]any{"type": "string", "enum": ops},
		},
		"required": []any{"operation"},
		"oneOf":    variants,
	}
}

// SchemaJSON is Schema as indented JSON (what `copse tool --schema` prints), without
// HTML escaping so that "<branch-slug>" reads as written.
func (r *Registry) SchemaJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Schema()); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func (r *Registry) variantSchema(s *variantSpec) map[string]any {
	props := map[string]any{
		"operation": map[string]any{"type": "string", "const": string(s.op), "description": r.OperationDoc(s.op)},
	}
	required := []any{"operation"}
	for _, f := range s.fields {
		p := map[string]any{"type": "string"}
		if f.typ == typeBool {
			p["type"] = "boolean"
		}
		if f.doc != "" {
			p["description"] = f.doc
		}
		props[f.name] = p
		if f.required {
			required = append(required, f.name)
		}
	}
	v := map[string]any{
		"title":                string(s.op),
		"description":          r.OperationDoc(s.op),
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
		"x-approval":           string(r.ApprovalOf(s.op)),
	}
	var groups []any
	for _, g := range s.groups {
		var alts []any
		for _, name := range s.groupFields(g) {
			alts = append(alts, map[string]any{"required": []any{name}})
		}
		groups = append(groups, map[string]any{"oneOf": alts})
	}
	switch len(groups) {
	case 0:
	case 1:
		v["oneOf"] = groups[0].(map[string]any)["oneOf"]
	default:
		v["allOf"] = groups
	}
	if c, ok := r.confirmCondition(s); ok {
		v["x-confirm-if"] = c
	}
	return v
}

// confirmCondition probes NeedsConfirmation with each field present in turn, so the
// schema's note follows each operation's declared rule (op_*.go) instead of restating it. The probe
// values are placeholders: NeedsConfirmation looks at which fields are given, not at
// their values.
func (r *Registry) confirmCondition(s *variantSpec) (any, bool) {
	zero, _ := r.NewRequest(s.op)
	base := reflect.New(reflect.TypeOf(zero)).Elem()
	for _, f := range s.fields {
		if f.required {
			setProbe(base, f)
		}
	}
	if r.NeedsConfirmation(base.Interface().(Request)) {
		// Always, unless a field (prune's dry_run) turns it off.
		if off := r.confirmExceptions(s, base); off != nil {
			return map[string]any{"not": off}, true
		}
		return true, true
	}
	var conds []any
	for _, f := range s.fields {
		if f.required {
			continue
		}
		v := reflect.New(base.Type()).Elem()
		v.Set(base)
		setProbe(v, f)
		if !r.NeedsConfirmation(v.Interface().(Request)) {
			continue
		}
		cond := map[string]any{"required": []any{f.name}}
		if f.typ == typeBool {
			cond["properties"] = map[string]any{f.name: map[string]any{"const": true}}
		}
		conds = append(conds, cond)
	}
	switch len(conds) {
	case 0:
		return nil, false
	case 1:
		return conds[0], true
	}
	return map[string]any{"anyOf": conds}, true
}

func setProbe(v reflect.Value, f fieldSpec) {
	fv := v.Field(f.index)
	switch f.typ {
	case typeString:
		fv.SetString("x")
	case typeOptString:
		s := "x"
		fv.Set(reflect.ValueOf(&s))
	case typeBool:
		fv.SetBool(true)
	}
}

// confirmExceptions finds the boolean fields that, set, make a request that otherwise
// always asks need no confirmation (prune's dry_run); nil when there are none.
func (r *Registry) confirmExceptions(s *variantSpec, base reflect.Value) any {
	var conds []any
	for _, f := range s.fields {
		if f.required || f.typ != typeBool {
			continue
		}
		v := reflect.New(base.Type()).Elem()
		v.Set(base)
		setProbe(v, f)
		if r.NeedsConfirmation(v.Interface().(Request)) {
			continue
		}
		conds = append(conds, map[string]any{"required": []any{f.name}, "properties": map[string]any{f.name: map[string]any{"const": true}}})
	}
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	return map[string]any{"anyOf": conds}
}
