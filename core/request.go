package core

// Request is the closed union of everything copse can be asked to do. Every entry point
// (CLI flags, the picker, `copse tool` JSON, MCP) builds one of these values and hands it to
// Service.Prepare; nothing else reaches git or Herdr. Each variant lives in
// requests.go; the operation that serves it lives in its family (core/op/).
//
// Fields hold the caller's raw values: optional strings are pointers so that "absent" and
// "empty" stay distinct (an empty value is rejected, an absent one takes the default).
// Struct tags drive both the strict JSON decoder and the generated JSON Schema:
//
//	json:"name"            the wire name
//	copse:"required"       must be present
//	copse:"oneof=GROUP"    exactly one field of GROUP must be present
type Request interface {
	Op() Operation
	isRequest()
}

// Operation names a Request variant; it is the `operation` field on the wire.
type Operation string

// Approval classes tell agent hosts which operations need a human's yes.
type Approval string

const (
	ApprovalRead        Approval = "read"
	ApprovalExecute     Approval = "execute"
	ApprovalDestructive Approval = "destructive"
)

// Str is a helper for building optional request fields.
func Str(s string) *string { return &s }
