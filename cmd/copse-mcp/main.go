// Command copse-mcp is copse with its MCP server built in: `copse mcp` hands over to it.
// The MCP SDK stays out of the copse binary so that every other command starts without it
// (docs/dev/performance.md). main only hands over to cli.MainMCP and must never gain logic of
// its own.
package main

import (
	"os"

	"github.com/copse-dev/copse/cmd/internal/cli"
	"github.com/copse-dev/copse/cmd/internal/mcpserver"
	_ "github.com/copse-dev/copse/internal/quiet" // no terminal probing at package init
)

func main() { os.Exit(cli.MainMCP(mcpserver.ServeMCP)) }
