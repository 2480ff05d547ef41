package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Decode parses one JSON request from raw bytes, strictly: the top level is one object
// whose "operation" names a variant, and every other key is a field of that variant.
// Unknown operations and fields, missing required fields, wrong types (null included),
// duplicate keys at any depth, trailing data and a oneof group with zero or several
// members present are KindUsage errors naming the field. Optional fields are set only
// when present.
//
// Decode checks shape only. Value rules (control characters, leading '-', lengths, ref
// names) belong to Service.Prepare, which every entry point passes through anyway.
//
// encoding/json is not used to fill the struct because it keeps the last of duplicate
// keys, matches names case-insensitively, accepts null for anything and replaces broken
// UTF-8 silently; each of those would let two readers of the same bytes disagree.
func (r *Registry) Decode(data []byte) (Request, error) {
	if !utf8.Valid(data) {
		return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid UTF-8")
	}
	if err := checkSurrogates(data); err != nil {
		return nil, err
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.kind != kindObject {
		return nil, Usage(CodeNotObject, "", schemaHint, "request must be a JSON object, got %s", root.kind)
	}

	opNode, ok := root.member("operation")
	if !ok {
		return nil, Usage(CodeMissingField, "operation", schemaHint,
			"request has no \"operation\" (one of %s)", r.opList())
	}
	if opNode.kind != kindString {
		return nil, Usage(CodeWrongType, "operation", schemaHint,
			"\"operation\" must be a string, got %s", opNode.kind)
	}
	op := Operation(opNode.str)
	zero, ok := r.NewRequest(op)
	if !ok {
		return nil, Usage(CodeUnknownOperation, "operation", schemaHint,
			"unknown operation %s (one of %s)", quoteName(opNode.str), r.opList())
	}

	spec := r.specs()[op]
	v := reflect.New(reflect.TypeOf(zero)).Elem()
	for _, m := range root.obj {
		if m.key == "operation" {
			continue
		}
		f, ok := spec.field(m.key)
		if !ok {
			return nil, Usage(CodeUnknownField, safeName(m.key), schemaHint,
				"unknown field %s for operation %s (accepted: %s)", quoteName(m.key), op, spec.names())
		}
		if err := f.set(v, m.val); err != nil {
			return nil, err
		}
	}
	if err := spec.checkPresence(root); err != nil {
		return nil, err
	}
	return v.Interface().(Request), nil
}

const schemaHint = "see `copse tool --schema` for the request format"

// safeName shows a caller-supplied name safely on one line: escaped and cut, so a
// hostile key can neither break the reply's lines nor flood it.
func safeName(s string) string { return textsafe.Cut(Escape(s), 64) }

func quoteName(s string) string { return `"` + safeName(s) + `"` }

func (r *Registry) opList() string {
	names := make([]string, len(r.ops))
	for i, op := range r.Operations() {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}

// ---- the variants' field tables, read once from the struct tags ----

type fieldType int

const (
	typeString    fieldType = iota + 1 // string: always present when required
	typeOptString                      // *string: nil when absent
	typeBool                           // bool: false when absent
)

// fieldSpec is one wire field of a variant; the decoder and Schema both read these.
type fieldSpec struct {
	name     string // json tag
	index    int    // struct field index
	typ      fieldType
	required bool
	group    string // oneof group, "" when none
	doc      string
}

type variantSpec struct {
	op     Operation
	fields []fieldSpec // struct order
	groups []string    // oneof group names, first-seen order
}

// buildSpec panics on a tag it does not understand: the union is closed and compiled in,
// so a bad tag is a programming error that every test run catches at once.
func buildSpec(op Operation, t reflect.Type) *variantSpec {
	s := &variantSpec{op: op}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			panic(fmt.Sprintf("core: %s.%s needs a json name", t.Name(), sf.Name))
		}
		if name == "operation" {
			panic(fmt.Sprintf("core: %s.%s may not be called operation", t.Name(), sf.Name))
		}
		f := fieldSpec{name: name, index: i, doc: sf.Tag.Get("doc")}
		switch {
		case sf.Type.Kind() == reflect.String:
			f.typ = typeString
		case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.String:
			f.typ = typeOptString
		case sf.Type.Kind() == reflect.Bool:
			f.typ = typeBool
		default:
			panic(fmt.Sprintf("core: %s.%s has unsupported type %s", t.Name(), sf.Name, sf.Type))
		}
		if tag := sf.Tag.Get("copse"); tag != "" {
			for opt := range strings.SplitSeq(tag, ",") {
				switch {
				case opt == "required":
					f.required = true
				case strings.HasPrefix(opt, "oneof="):
					f.group = strings.TrimPrefix(opt, "oneof=")
					if !slices.Contains(s.groups, f.group) {
						s.groups = append(s.groups, f.group)
					}
				default:
					panic(fmt.Sprintf("core: %s.%s: unknown copse tag %q", t.Name(), sf.Name, opt))
				}
			}
		}
		if f.required && f.group != "" {
			panic(fmt.Sprintf("core: %s.%s is both required and in a oneof group", t.Name(), sf.Name))
		}
		if f.required && f.typ == typeBool {
			panic(fmt.Sprintf("core: %s.%s: a required bool would make false mean absent", t.Name(), sf.Name))
		}
		s.fields = append(s.fields, f)
	}
	return s
}

func (s *variantSpec) field(name string) (fieldSpec, bool) {
	for _, f := range s.fields {
		if f.name == name {
			return f, true
		}
	}
	return fieldSpec{}, false
}

func (s *variantSpec) names() string {
	if len(s.fields) == 0 {
		return "no fields"
	}
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

func (s *variantSpec) groupFields(group string) []string {
	var names []string
	for _, f := range s.fields {
		if f.group == group {
			names = append(names, f.name)
		}
	}
	return names
}

// checkPresence enforces copse:"required" and copse:"oneof=G" on the keys present.
func (s *variantSpec) checkPresence(root *node) error {
	for _, f := range s.fields {
		if _, ok := root.member(f.name); f.required && !ok {
			return Usage(CodeMissingField, f.name, schemaHint,
				"operation %s needs %q", s.op, f.name)
		}
	}
	for _, g := range s.groups {
		names := s.groupFields(g)
		var present []string
		for _, n := range names {
			if _, ok := root.member(n); ok {
				present = append(present, n)
			}
		}
		if len(present) == 1 {
			continue
		}
		got := "none"
		if len(present) > 1 {
			got = strings.Join(present, " and ")
		}
		return Usage(CodeExactlyOne, strings.Join(names, "|"), "pass exactly one of "+strings.Join(names, ", "),
			"operation %s needs exactly one of %s, got %s", s.op, strings.Join(names, ", "), got)
	}
	return nil
}

// set stores val into the variant v (addressable), checking its JSON type.
func (f fieldSpec) set(v reflect.Value, val *node) error {
	want := kindString
	if f.typ == typeBool {
		want = kindBool
	}
	if val.kind != want {
		return Usage(CodeWrongType, f.name, schemaHint, "%q must be a %s, got %s", f.name, want, val.kind)
	}
	fv := v.Field(f.index)
	switch f.typ {
	case typeString:
		fv.SetString(val.str)
	case typeOptString:
		s := val.str
		fv.Set(reflect.ValueOf(&s))
	case typeBool:
		fv.SetBool(val.b)
	}
	return nil
}

// ---- a small JSON tree built from json.Decoder tokens ----

type nodeKind int

const (
	kindNull nodeKind = iota + 1
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k nodeKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return "?"
}

type node struct {
	kind nodeKind
	str  string
	b    bool
	obj  []member // objects keep document order; keys are unique (checked while parsing)
	arr  []*node
}

type member struct {
	key string
	val *node
}

func (n *node) member(key string) (*node, bool) {
	for _, m := range n.obj {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// maxDepth bounds nesting: a request is flat, so anything deep is hostile or a mistake,
// and the bound keeps the walk's memory small whatever the input.
const maxDepth = 32

func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, Usage(CodeTrailingData, "", schemaHint, "unexpected data after the request object: %s", jsonErr(err))
		}
		return nil, Usage(CodeTrailingData, "", schemaHint, "unexpected data after the request object (%s)", tokenKind(tok))
	}
	return root, nil
}

func parseValue(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, Usage(CodeTooDeep, "", schemaHint, "request nests deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is empty or ends early")
		}
		return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON: %s", jsonErr(err))
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: t}, nil
	case json.Number:
		return &node{kind: kindNumber, str: string(t)}, nil
	case string:
		return &node{kind: kindString, str: t}, nil
	case json.Delim:
		switch t {
		case '{':
			return parseObject(dec, depth)
		case '[':
			n := &node{kind: kindArray}
			for dec.More() {
				el, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, el)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON: %s", jsonErr(err))
			}
			return n, nil
		}
	}
	return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON")
}

func parseObject(dec *json.Decoder, depth int) (*node, error) {
	n := &node{kind: kindObject}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON: %s", jsonErr(err))
		}
		key, ok := tok.(string)
		if !ok {
			return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON: object key expected")
		}
		if seen[key] {
			return nil, Usage(CodeDuplicateKey, safeName(key), "give each field once",
				"duplicate key %s", quoteName(key))
		}
		seen[key] = true
		val, err := parseValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		n.obj = append(n.obj, member{key: key, val: val})
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, Usage(CodeInvalidJSON, "", schemaHint, "request is not valid JSON: %s", jsonErr(err))
	}
	return n, nil
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return "a second value starting with " + t.String()
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

// jsonErr keeps encoding/json's position information but never echoes input bytes raw.
func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", Escape(se.Error()), se.Offset)
	}
	return Escape(err.Error())
}

// checkSurrogates rejects \u escapes that name half of a UTF-16 surrogate pair:
// encoding/json turns a lone one into U+FFFD silently, so the value checked later would
// not be the value sent. Valid JSON has backslashes only inside strings, so a byte scan
// that skips each escape's second byte sees every \u escape exactly once.
func checkSurrogates(data []byte) error {
	bad := Usage(CodeInvalidJSON, "", schemaHint, "request contains a lone UTF-16 surrogate escape")
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if i+1 >= len(data) {
			return nil // the parser reports the truncation
		}
		if data[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(data, i+2)
		if !ok {
			return nil // malformed escape: the parser reports it
		}
		i += 5
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return bad
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 >= len(data) || data[i+1] != '\\' || data[i+2] != 'u' {
				return bad
			}
			lo, ok := hex4(data, i+3)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return bad
			}
			i += 6
		}
	}
	return nil
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
