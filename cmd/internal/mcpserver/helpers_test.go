package mcpserver

import "github.com/copse-dev/copse/cmd/internal/agent/agenttest"

var (
	newFixture = agenttest.New
	noOpen     = agenttest.NoOpen
	mustJSON   = agenttest.MustJSON
)
