package core

import (
	"context"
	"reflect"
	"strings"
	"sync"
)

// An operation is everything copse knows about one kind of request, declared once, next
// to its request type: how it is parsed into a plan, whether a person must say yes, what
// lock it runs under and how it runs. The engine (engine.go) reads these declarations and
// is the only code that sequences the steps; the schema, the decoder, `copse tool`, MCP
// and the operation list in docs/agents.md come from the registry below.
//
// Adding an operation is one file (request type, command, operation value; see
// docs/dev/operations.md) plus one line in registry.
type Op struct {
	Name Operation
	// doc is one line: the schema's description, the tool's list, the docs' table.
	Doc      string
	Approval Approval
	// request is the zero value of the variant (decoder and schema read its fields).
	Request Request
	// confirms reports whether a person must say yes before req runs; nil: never.
	Confirms func(req Request) bool
	// changes reports whether req changes anything; nil: always. A request that changes
	// nothing takes no lock and is not prepared twice: it runs on the plan as made.
	Changes func(req Request) bool
	// lock is the lock the run takes; nil: the repository lock.
	Lock func(s *Env, c Command) LockKind
	// prepare parses req against one snapshot of git's worktree list; it changes nothing.
	Prepare func(s *Env, ctx context.Context, req Request, snap Snapshot) (*Plan, error)
	// recheck compares the command the caller saw with the one prepared again under the
	// lock, for what the state token does not cover (a base that moved); nil: nothing more.
	Recheck func(asked, fresh Command) error
	// run does the work. For a request that changes something it runs under the lock on
	// the plan prepared again there, and reads back and verifies what it did.
	Run func(s *Env, ctx context.Context, x *Execution) (*Outcome, error)
	// Phases, instead of Run, is a run in steps (create: the locked create, then the
	// check that its --run command started; land: the locked enqueue, then the queue's
	// turn, whose own locked steps go through Critical). The engine runs them in order,
	// each Locked one through Critical, the first of those on the plan prepared again.
	Phases []Phase
}

// LockKind is what a run holds while it changes something.
type LockKind int

const (
	// lockRepo: the repository lock (in-process mutex plus the file in the common dir).
	LockRepo LockKind = iota
	// lockWaitOnly: wait for a holder, never create the lock file. For runs that change
	// nothing in git (switch without workspaces) and so leave no trace in the repository.
	LockWaitOnly
)

// A Phase is one step of an operation's run. A Locked one runs through Critical (the
// repository lock, git's list read again, the step, its events, the unlock); the others
// run with no lock held (a land waiting for its turn in the queue). run gets the outcome
// of the phase before (nil for the first) and returns the operation's outcome so far.
type Phase struct {
	Name   string
	Locked bool
	Run    func(s *Env, ctx context.Context, x *Execution, out *Outcome) (*Outcome, error)
}

// A Registry is the list of operations a Service serves, in a stable order: the
// schema's, the tool's and the docs'. core declares none itself: the caller hands the
// list to Open (cmd hands core/ops's), so the engine never imports an operation family.
type Registry struct {
	ops      []*Op
	backends Backends
	specs    func() map[Operation]*variantSpec
}

// NewRegistry lists ops in the order given (schema, tool list, docs). Two operations of
// one name are a programming error and panic at once, as a bad request tag does.
func NewRegistry(ops ...*Op) *Registry {
	seen := map[Operation]bool{}
	for _, o := range ops {
		if seen[o.Name] {
			panic("core.NewRegistry: operation " + string(o.Name) + " listed twice")
		}
		seen[o.Name] = true
	}
	r := &Registry{ops: ops}
	r.specs = sync.OnceValue(func() map[Operation]*variantSpec {
		m := map[Operation]*variantSpec{}
		for _, o := range r.ops {
			m[o.Name] = buildSpec(o.Name, reflect.TypeOf(o.Request))
		}
		return m
	})
	return r
}

// WithBackends is the registry with the backends Open picks from (core/backend's).
func (r *Registry) WithBackends(b Backends) *Registry {
	cp := *r
	cp.backends = b
	return &cp
}

// lookup is the operation named op.
func (r *Registry) lookup(op Operation) (*Op, bool) {
	for _, o := range r.ops {
		if o.Name == op {
			return o, true
		}
	}
	return nil, false
}

// Operations lists every variant in a stable order (schema generation, docs, tests); each
// call returns a new slice, so no caller can change another's.
func (r *Registry) Operations() []Operation {
	out := make([]Operation, len(r.ops))
	for i, o := range r.ops {
		out[i] = o.Name
	}
	return out
}

// OperationDoc is the operation's one-line description ("" for an unknown one).
func (r *Registry) OperationDoc(op Operation) string {
	if o, ok := r.lookup(op); ok {
		return o.Doc
	}
	return ""
}

// operationNames is the list a hint names: "list, create, open, …".
func (r *Registry) operationNames() string {
	names := make([]string, len(r.ops))
	for i, o := range r.ops {
		names[i] = string(o.Name)
	}
	return strings.Join(names, ", ")
}

// ApprovalOf is the operation's approval class for agent hosts.
func (r *Registry) ApprovalOf(op Operation) Approval {
	if o, ok := r.lookup(op); ok {
		return o.Approval
	}
	return ApprovalExecute
}

// NeedsConfirmation reports whether a person must say yes before req runs (each
// operation declares its rule next to its request type).
func (r *Registry) NeedsConfirmation(req Request) bool {
	if req == nil {
		return false
	}
	o, ok := r.lookup(req.Op())
	return ok && o.Confirms != nil && o.Confirms(req)
}

// Changes reports whether req may change anything; a request that changes nothing takes
// no repository lock and is not prepared twice. The picker asks this rather than keep a
// list of its own.
func (r *Registry) Changes(req Request) bool { return !r.changesNothing(req) }

// NewRequest returns a zero value of the variant named op (decoder and schema use it).
func (r *Registry) NewRequest(op Operation) (Request, bool) {
	if o, ok := r.lookup(op); ok {
		return o.Request, true
	}
	return nil, false
}

// changesNothing reports requests that change nothing: they take no repository lock.
func (r *Registry) changesNothing(req Request) bool {
	o, ok := r.lookup(req.Op())
	return ok && o.Changes != nil && !o.Changes(req)
}

// stateBound is a request that may carry the state_token it was sent against.
type stateBound interface {
	expectedStateToken() *string
}

// expectedToken is the state_token a mutation was sent with, if any.
func expectedToken(req Request) *string {
	if t, ok := req.(stateBound); ok {
		return t.expectedStateToken()
	}
	return nil
}

// byID is a request that may name its worktree by id instead of path or branch. The
// engine resolves the id once, for every such request, before the operation's prepare.
type byID interface {
	Request
	// idTarget is the id, if given, and the other target fields (which must be absent).
	idTarget() (id *string, others []*string)
	// atPath is the same request naming its worktree by path instead of id.
	atPath(path *string) Request
}

// PrepareAs adapts an operation's typed prepare to the registry's shape.
func PrepareAs[R Request](f func(s *Env, ctx context.Context, r R, snap Snapshot) (*Plan, error)) func(*Env, context.Context, Request, Snapshot) (*Plan, error) {
	return func(s *Env, ctx context.Context, req Request, snap Snapshot) (*Plan, error) {
		return f(s, ctx, req.(R), snap)
	}
}

// RuleOf adapts a typed confirmation rule to the registry's shape.
func RuleOf[R Request](f func(r R) bool) func(Request) bool {
	return func(req Request) bool { return f(req.(R)) }
}

// Yes is the confirmation (or change) rule that holds for every request.
func Yes(Request) bool { return true }

// No is the rule that holds for none.
func No(Request) bool { return false }
