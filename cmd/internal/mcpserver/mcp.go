package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/copse-dev/copse/cmd/internal/agent"
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
)

// ToolName is the one MCP tool copse serves.
const ToolName = "worktree"

// confirmKey names copse's one input request: the user's yes/no for a confirmation.
const confirmKey = "confirm"

// pendingTTL bounds how long a shown confirmation stays answerable; maxPending bounds
// how many can wait at once. Both keep a client that never answers from growing memory.
const (
	pendingTTL = 10 * time.Minute
	maxPending = 32
)

type mcpServer struct {
	open agent.Opener

	// mu serialises every call: one server works on one repository, and a confirmation
	// must be answered against the state it was shown with. core also serialises
	// mutations (mutex and file lock, across processes); this lock additionally keeps
	// Prepare and Execute of one call from interleaving with another call's.
	mu      sync.Mutex
	svc     *core.Service // opened on first use, then kept: history (back) lives in it
	pending map[string]*pendingConfirm
}

// pendingConfirm is a plan waiting for the user's answer. Execute runs this very plan,
// so what runs is what was shown; core refuses it (stale_state) if the worktree list
// changed meanwhile.
type pendingConfirm struct {
	req     core.Request
	plan    *core.Plan
	expires time.Time
}

// NewMCPServer returns the MCP server: one tool, "worktree", whose input schema is
// ops.All.Schema() and whose arguments are decoded by core.Decode from their raw bytes,
// the same parser as `copse tool`.
//
// Requests that need confirmation (remove; create with a path) ask the human through
// MCP elicitation, using the SDK's multi round-trip input requests (on protocol
// versions before 2026-07-28 the SDK turns these into a server-to-client
// elicitation/create for us). Accepted with confirm=true runs the plan that was shown;
// declined or cancelled is a "declined" tool error; a client that cannot elicit gets a
// needs_approval tool error. In every refusal nothing runs.
func NewMCPServer(open agent.Opener, version string) *mcp.Server {
	return newMCPServer(open, version, nil)
}

// newMCPServer lets tests restrict the protocol versions (the pre-2026 elicitation path).
func newMCPServer(open agent.Opener, version string, versions []string) *mcp.Server {
	s := &mcpServer{open: open, pending: map[string]*pendingConfirm{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "copse", Title: "copse worktrees", Version: version}, &mcp.ServerOptions{
		Instructions: "copse manages the git worktrees of one repository. Use the worktree tool; " +
			"run operation list first to see what exists.",
		SupportedProtocolVersions: versions,
	})
	srv.AddTool(&mcp.Tool{
		Name:        ToolName,
		Title:       "git worktrees",
		Description: toolDescription(),
		InputSchema: ops.All.Schema(),
		// One tool serves every operation, from list (read) to remove (destructive), and
		// annotations describe a tool, not a call. They therefore state the worst case, so
		// a host that gates on them asks before calling: not read-only, destructive, not
		// idempotent, closed world (only this repository). The per-operation classes are
		// in the description and in the schema's x-approval / x-confirm-if tags; the
		// confirmations themselves are enforced here by elicitation, not left to hints.
		Annotations: &mcp.ToolAnnotations{
			Title:           "git worktrees",
			ReadOnlyHint:    false,
			DestructiveHint: ptr(true),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(false),
		},
	}, s.call)
	return srv
}

func ptr[T any](v T) *T { return &v }

// toolDescription is generated from core so the approval classes cannot drift.
func toolDescription() string {
	var names []string
	for _, op := range ops.All.Operations() {
		names = append(names, fmt.Sprintf("%s (%s)", op, ops.All.ApprovalOf(op)))
	}
	return "Manage this repository's git worktrees. One request per call, chosen by \"operation\": " +
		strings.Join(names, ", ") + ". " +
		"remove, prune (unless dry_run), a forced claim or release, create with an explicit path, and a land with force_claim or a test command ask the user to confirm (MCP elicitation) before anything runs; " +
		"a client without elicitation gets needs_approval. Requests are strict: unknown, duplicate or mistyped fields are rejected. " +
		`A create's result names where a new branch starts, "base":{"ref","commit"} (without a base: git config copse.base, else the main checkout's branch). ` +
		`The result is {"ok":true,"result":…} or {"ok":false,"error":{"code","message","hint","uncertain"}}; ` +
		"if uncertain is true a change may have happened: report it, do not retry."
}

// ServeMCP serves the MCP server on in/out (newline-delimited JSON-RPC, as on stdio)
// until the client closes in or ctx ends; version is reported as the server's version.
// One bad line is answered (or dropped) and the session goes on: see stdioTransport.
func ServeMCP(ctx context.Context, open agent.Opener, version string, in io.Reader, out io.Writer) error {
	t := codedTransport{stdioTransport{in: in, out: out}}
	err := NewMCPServer(open, version).Run(ctx, t)
	if err == io.EOF {
		return nil
	}
	return err
}

// codedTransport gives every JSON-RPC error the server sends a real code. The SDK sends
// some of its own refusals (a call before the session is initialised) as plain Go errors,
// which go on the wire with code 0, a code JSON-RPC does not define and clients cannot
// act on.
type codedTransport struct{ mcp.Transport }

func (t codedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return codedConn{c}, nil
}

type codedConn struct{ mcp.Connection }

func (c codedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		var w *jsonrpc.Error
		if !errors.As(r.Error, &w) || w.Code == 0 {
			code := int64(jsonrpc.CodeInternalError)
			if strings.Contains(r.Error.Error(), "invalid during session initialization") {
				code = jsonrpc.CodeInvalidRequest // the request is not valid in this state
			}
			msg = &jsonrpc.Response{ID: r.ID, Result: r.Result, Extra: r.Extra,
				Error: &jsonrpc.Error{Code: code, Message: r.Error.Error()}}
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (s *mcpServer) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropExpired(time.Now())

	// Decode first: bad input is refused before the repository is even opened.
	r, err := ops.All.Decode(req.Params.Arguments)
	if err != nil {
		return errResult(err), nil
	}
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		return s.resume(ctx, req, r), nil
	}
	svc, err := s.service(ctx)
	if err != nil {
		return errResult(err), nil
	}
	plan, err := svc.Prepare(ctx, r)
	if err != nil {
		return errResult(err), nil
	}
	if plan.Confirm == nil {
		return execute(ctx, svc, plan), nil
	}
	if !canElicit(req) {
		return errResult(plan.NeedsApproval("this client cannot ask the user (no elicitation support); " +
			"ask them yourself and have them run the command, or use a client with elicitation")), nil
	}
	id := rand.Text()
	if len(s.pending) >= maxPending {
		s.dropOldest()
	}
	s.pending[id] = &pendingConfirm{req: r, plan: plan, expires: time.Now().Add(pendingTTL)}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{confirmKey: &mcp.ElicitParams{
			Message:         plan.Confirm.Line(),
			RequestedSchema: confirmSchema,
		}},
		// The state is a random, single-use key into s.pending, never data we trust: a
		// client cannot forge an answer to a confirmation it was not shown.
		RequestState: id,
	}, nil
}

// confirmSchema is the elicitation form: one boolean, default No.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		confirmKey: map[string]any{
			"type":        "boolean",
			"title":       "Run it?",
			"description": "yes runs exactly what is shown above",
			"default":     false,
		},
	},
	"required": []any{confirmKey},
}

// resume handles the retry that carries the user's answer.
func (s *mcpServer) resume(ctx context.Context, req *mcp.CallToolRequest, r core.Request) *mcp.CallToolResult {
	p, ok := s.pending[req.Params.RequestState]
	delete(s.pending, req.Params.RequestState)
	if !ok {
		return errResult(&core.Error{Kind: core.KindRefused, Code: core.CodeStaleConfirmation,
			Message: "this confirmation is unknown or expired; nothing ran", Hint: "call the tool again"})
	}
	if !reflect.DeepEqual(p.req, r) {
		return errResult(&core.Error{Kind: core.KindRefused, Code: core.CodeStaleConfirmation,
			Message: "the answer belongs to a different request; nothing ran", Hint: "call the tool again"})
	}
	ans, _ := req.Params.InputResponses[confirmKey].(*mcp.ElicitResult)
	if ans == nil || ans.Action != "accept" || ans.Content[confirmKey] != true {
		action := "no answer"
		if ans != nil {
			action = ans.Action
			if action == "accept" {
				action = "answered no"
			}
		}
		return errResult(&core.Error{Kind: core.KindRefused, Code: core.CodeDeclined,
			Message: fmt.Sprintf("the user declined (%s): %s", core.Escape(action), p.plan.Confirm.Line()),
			Hint:    "nothing ran; do not retry unless the user asks"})
	}
	return execute(ctx, s.svc, p.plan)
}

func execute(ctx context.Context, svc *core.Service, plan *core.Plan) *mcp.CallToolResult {
	o, err := svc.Execute(ctx, plan)
	if err != nil {
		return errResult(err)
	}
	agent.NoteProjectSetup(ctx, svc, o)
	return result(agent.OKReply(o))
}

func (s *mcpServer) service(ctx context.Context) (*core.Service, error) {
	if s.svc != nil {
		return s.svc, nil
	}
	svc, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	s.svc = svc
	return svc, nil
}

// canElicit reports whether the client declared form elicitation. (The capability with
// neither form nor url set means form, per the SDK.)
func canElicit(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

func (s *mcpServer) dropExpired(now time.Time) {
	for id, p := range s.pending {
		if now.After(p.expires) {
			delete(s.pending, id)
		}
	}
}

func (s *mcpServer) dropOldest() {
	var oldest string
	for id, p := range s.pending {
		if oldest == "" || p.expires.Before(s.pending[oldest].expires) {
			oldest = id
		}
	}
	delete(s.pending, oldest)
}

// result carries the reply both as text (what most hosts show the model) and as
// structured content; IsError marks refusals so hosts and models see them as errors.
func result(rep agent.Reply) *mcp.CallToolResult {
	b, err := json.Marshal(rep)
	if err != nil {
		b, _ = json.Marshal(agent.ErrReply(err))
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           !rep.OK,
	}
}

func errResult(err error) *mcp.CallToolResult { return result(agent.ErrReply(err)) }
