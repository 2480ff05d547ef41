package cli

import (
	"context"

	"github.com/copse-dev/copse/cmd/copse/internal/agent"
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

// NewCmdMCP builds `copse mcp`.
func NewCmdMCP(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "For agents: an MCP server on stdio with one tool, worktree",
		Long: `Serve the Model Context Protocol on stdin/stdout with one tool, worktree, which takes the
same requests as copse tool. Requests that need a human's confirmation ask the user
through the client (MCP elicitation); a client without it gets needs_approval.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return agent.ServeMCP(cmd.Context(), f.opener(), version(), f.In, f.Out)
		}),
	}
}
