// Package agent is copse's interface for coding agents: `copse tool` (one JSON request on
// stdin, one JSON reply on stdout), and the reply shape and Opener that the MCP server
// (package mcpserver, in the copse-mcp binary) shares with it. Both decode with core.Decode and run through core.Service, exactly like
// the CLI and the picker; this package adds only framing and the approval step. It never
// runs git or herdr and never changes a plan core prepared.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/internal/textsafe"
)

// Opener opens the Service for the repository the agent works on. cmd passes a func
// that honours -C and --backend.
type Opener func(ctx context.Context) (*core.Service, error)

// MaxRequestBytes bounds one request. Real requests are a few hundred bytes; the cap
// keeps a runaway or hostile writer from making copse buffer without end.
const MaxRequestBytes = 1 << 20

// Reply is the one JSON line `copse tool` prints (and each MCP result carries):
// {"ok":true,"result":…} or {"ok":false,"error":{…}}.
type Reply struct {
	OK     bool        `json:"ok"`
	Result any         `json:"result,omitempty"`
	Error  *ReplyError `json:"error,omitempty"`
}

// ReplyError is core.Error in the agent vocabulary. Uncertain means a mutation ran but
// its outcome could not be confirmed: report it, never retry.
type ReplyError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Hint      string `json:"hint"`
	Field     string `json:"field,omitempty"`
	Uncertain bool   `json:"uncertain"`
	// StateToken comes with needs_approval: resend the request approved with
	// expected_state_token set to it, so the approval covers exactly what was shown.
	StateToken string `json:"state_token,omitempty"`
	// Log and LogTail come with a failed land test gate: its log's path and last lines.
	Log     string   `json:"log,omitempty"`
	LogTail []string `json:"log_tail,omitempty"`
	// Reasons are every cause of a refusal that has several (the first is code's).
	Reasons []core.Reason `json:"reasons,omitempty"`
}

// OKReply is the reply for a done request.
func OKReply(o *core.Outcome) Reply { return Reply{OK: true, Result: o.Result()} }

// ErrReply is the reply for a refused, failed or uncertain request.
func ErrReply(err error) Reply {
	e := core.AsError(err)
	return Reply{Error: &ReplyError{Code: e.Code, Message: e.Message, Hint: e.Hint, Field: e.Field, Uncertain: e.Uncertain(), StateToken: string(e.StateToken),
		Log: e.Log, LogTail: e.LogTail, Reasons: e.Reasons}}
}

// needsApproval refuses a plan that needs a human's yes. The message is the
// confirmation on one line, already escaped by core, so a host can show it verbatim.
func needsApproval(p *core.Plan, hint string) error { return p.NeedsApproval(hint) }

// Tool reads ONE JSON request from in (at most MaxRequestBytes; it never prompts),
// writes ONE reply line to out and returns the exit code: 0 done, 1 refused or failed,
// 2 bad input, 3 uncertain, 130 cancelled (core.ExitCode).
//
// The request is decoded before the repository is opened, so bad input is exit 2
// wherever copse runs. A request that needs confirmation (remove; create with a path; a
// land with force_claim or a test command, which is a shell command) runs only when approved is set (`copse tool --approved`, given by a host after its
// user said yes); otherwise the reply is needs_approval and nothing runs.
func Tool(ctx context.Context, open Opener, in io.Reader, out io.Writer, approved bool) int {
	o, err := runTool(ctx, open, in, approved)
	if err != nil {
		writeReply(out, ErrReply(err))
		return core.ExitCode(err)
	}
	writeReply(out, OKReply(o))
	return 0
}

func runTool(ctx context.Context, open Opener, in io.Reader, approved bool) (*core.Outcome, error) {
	data, err := io.ReadAll(io.LimitReader(in, MaxRequestBytes+1))
	if err != nil {
		return nil, &core.Error{Kind: core.KindUsage, Code: core.CodeReadFailed, Message: "could not read the request: " + core.Escape(err.Error()),
			Hint: "pass one JSON request on stdin", Err: err}
	}
	if len(data) > MaxRequestBytes {
		return nil, &core.Error{Kind: core.KindUsage, Code: core.CodeTooLarge, Message: "request is larger than 1 MiB",
			Hint: "pass one small JSON request on stdin"}
	}
	req, err := ops.All.Decode(data)
	if err != nil {
		return nil, err
	}
	svc, err := open(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := svc.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	if plan.Confirm != nil && !approved {
		return nil, needsApproval(plan, "show this to the user; if they agree, run the same request again with `copse tool --approved` and \"expected_state_token\" set to this reply's state_token")
	}
	if approved {
		// The host approves what its human saw: the token of that confirmation.
		if err := plan.CheckApproval(); err != nil {
			return nil, err
		}
	}
	o, err := svc.Execute(ctx, plan)
	if err == nil {
		NoteProjectSetup(ctx, svc, o)
	}
	return o, err
}

// NoteProjectSetup adds to an agent's create outcome why the project's setup commands
// (.copse.conf copse.setup) did not run: they are code the repository brings, and only a
// person approves and runs them. Nothing is said when there are none.
func NoteProjectSetup(ctx context.Context, svc *core.Service, o *core.Outcome) {
	if o.Operation != core.OpCreate || o.Worktree == nil || o.DryRun {
		return
	}
	o.Warnings = append(o.Warnings, projectSetupNotRun(ctx, svc, o.Worktree.Path)...)
}

func projectSetupNotRun(ctx context.Context, svc *core.Service, path string) []string {
	cfg, err := svc.SetupConfig(ctx)
	if err != nil || len(cfg.Project) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the %s setup commands were not run: an agent cannot run a repository's project commands; "+
		"a person runs `copse setup %s` at a terminal (it asks to approve them)", core.ProjectConfigFile, textsafe.ShellQuote(path))}
}

// writeReply writes rep as one line. encoding/json escapes control characters and
// U+2028/U+2029, so no value can break the line. A failed write is not reported: the
// exit code still tells the caller what happened.
func writeReply(out io.Writer, rep Reply) {
	b, err := json.Marshal(rep)
	if err != nil {
		b, _ = json.Marshal(ErrReply(err))
	}
	_, _ = out.Write(append(b, '\n'))
}

// WriteSchema prints the request JSON Schema (`copse tool --schema`).
func WriteSchema(out io.Writer) error {
	b, err := ops.All.SchemaJSON()
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}
