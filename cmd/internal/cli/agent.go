package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/copse-dev/copse/cmd/internal/agent"
	"github.com/copse-dev/copse/core"
	"github.com/spf13/cobra"
)

// The agent package implements copse tool and copse mcp; the command line only wires it.

// opener opens the service the way every command does (-C, --backend).
func (f *Factory) opener() agent.Opener {
	return func(ctx context.Context) (*core.Service, error) { return f.open(ctx) }
}

// NewCmdTool builds `copse tool [--schema] [--approved]`.
func NewCmdTool(f *Factory) *cobra.Command {
	var schema, approved bool
	cmd := &cobra.Command{
		Use:   "tool [--schema] [--approved]",
		Short: "For agents: one JSON request on stdin, one JSON reply on stdout",
		Long: `Read one JSON request on stdin ({"operation":"list"|"create"|"open"|"switch"|"remove"|"back", …})
and write one JSON reply line on stdout: {"ok":true,"result":…} or {"ok":false,"error":{…}}.
The exit status follows copse's exit codes. A request that needs a human's confirmation
(remove; create with a path) is refused with needs_approval unless --approved is given,
which a host passes only after its user said yes. --schema prints the request JSON Schema.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if schema {
				return agent.WriteSchema(f.Out)
			}
			return exitStatus(agent.Tool(cmd.Context(), f.opener(), f.In, f.Out, approved))
		}),
	}
	cmd.Flags().BoolVar(&schema, "schema", false, "print the request JSON Schema and exit")
	cmd.Flags().BoolVar(&approved, "approved", false, "the user approved this request (runs remove, create with a path)")
	return cmd
}

// MCPServer serves the MCP server on in/out until the client leaves (mcpserver.ServeMCP).
type MCPServer func(ctx context.Context, open agent.Opener, version string, in io.Reader, out io.Writer) error

// MCPBinary is the program that serves `copse mcp`. The MCP SDK (HTTP, TLS, JSON Schema)
// costs every copse command about a millisecond of start-up and 7 MB of binary, so it
// lives in this second binary, installed beside copse by the same `go install`. It is the
// same command line with the server built in; copse hands over to it with exec.
const MCPBinary = "copse-mcp"

// mcpVersionEnv carries copse's build identity (version and commit) to copse-mcp, which
// refuses to serve for another build: an old copse-mcp left beside a new copse would answer
// with old rules.
const mcpVersionEnv = "COPSE_MCP_VERSION"

// mcpInstallHint installs copse and copse-mcp together, so they are the same build.
const mcpInstallHint = "install copse and copse-mcp together: CGO_ENABLED=0 go install ./cmd/... in copse's source " +
	"(or go install github.com/copse-dev/copse/cmd/...@latest)"

// NewCmdMCP builds `copse mcp`.
func NewCmdMCP(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "For agents: an MCP server on stdio with one tool, worktree",
		Long: `Serve the Model Context Protocol on stdin/stdout with one tool, worktree, which takes the
same requests as copse tool. Requests that need a human's confirmation ask the user
through the client (MCP elicitation); a client without it gets needs_approval.
The server is the copse-mcp program installed beside copse; copse mcp runs it.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if f.ServeMCP == nil {
				return f.execMCP()
			}
			if want := f.Getenv(mcpVersionEnv); want != "" && want != buildIdentity() {
				return &core.Error{Kind: core.KindRefused, Code: core.CodeMCPVersionMismatch,
					Message: fmt.Sprintf("%s is build %s, but copse is build %s", MCPBinary, buildIdentity(), want),
					Hint:    mcpInstallHint}
			}
			return f.ServeMCP(cmd.Context(), f.opener(), version(), f.In, f.Out)
		}),
	}
}

// execMCP replaces this process with copse-mcp (beside copse's own executable, else on
// PATH) serving the same repository: stdin and stdout pass through untouched, so an agent
// host that starts `copse mcp` talks to copse-mcp directly.
func (f *Factory) execMCP() error {
	bin := findMCPBinary()
	if bin == "" {
		return &core.Error{Kind: core.KindFailed, Code: core.CodeMCPNotInstalled,
			Message: fmt.Sprintf("copse mcp needs the %s program, which is not beside copse or on PATH", MCPBinary),
			Hint:    mcpInstallHint}
	}
	argv := []string{bin}
	if f.Global.Dir != "" {
		argv = append(argv, "-C", f.Global.Dir)
	}
	if f.Global.Backend != "" {
		argv = append(argv, "--backend", f.Global.Backend)
	}
	if f.Global.NoColor {
		argv = append(argv, "--no-color")
	}
	argv = append(argv, "mcp")
	env := append(os.Environ(), mcpVersionEnv+"="+buildIdentity())
	err := syscall.Exec(bin, argv, env)
	return &core.Error{Kind: core.KindFailed, Code: core.CodeMCPNotInstalled, Err: err,
		Message: fmt.Sprintf("cannot run %s: %v", core.Escape(bin), err),
		Hint:    mcpInstallHint}
}

// findMCPBinary looks beside the running copse (as started, then with symlinks resolved)
// and then on PATH.
func findMCPBinary() string {
	if exe, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, MCPBinary)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
				return p
			}
		}
	}
	if p, err := exec.LookPath(MCPBinary); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}
