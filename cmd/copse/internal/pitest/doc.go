// Package pitest drives the real pi coding agent (@mariozechner/pi-coding-agent, pinned in
// testdata/pi) in tmux, offline, with copse's pi extension installed the way a user
// installs it (copse init pi --install) and a fake model provider (testdata/pi/fake-model.ts)
// that turns "call TOOL JSON" into a tool call. It holds tests only.
package pitest
