// Package pitest drives the real pi coding agent (@mariozechner/pi-coding-agent, pinned in
// testdata/pi) in tmux, offline, with copse's pi extension installed the way a user
// installs it (copse init pi --install) and a fake model provider (testdata/pi/fake-model.ts)
// that turns "call TOOL JSON" into a tool call. It holds tests only.
//
// The tests build copse from this tree; COPSE_TEST_BIN=/path/to/copse tests that binary
// instead (for example one with operations this tree does not have yet). Without node, npm
// or tmux they are skipped with a message, except in CI (CI=true), where they fail.
package pitest
