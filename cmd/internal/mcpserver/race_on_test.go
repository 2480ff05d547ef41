//go:build race

package mcpserver

// raceEnabled builds copse-mcp for the stdio tests with -race when the tests run with
// -race, so the framing in the real binary is checked too.
const raceEnabled = true
