// Package herdr is the only code in copse that runs `herdr`: it detects whether copse runs
// inside a Herdr pane with a recent enough Herdr, builds every `herdr worktree …` command
// (and `herdr workspace list`, for agent status) through one checked argument builder, runs
// it as a bounded child process and decodes the reply. It imports only the standard library
// and internal/textsafe, so the test double (herdr/herdrdouble/cmd/herdrdouble) can share
// its values without a cycle. It never runs git and never decides policy: whether a
// workspace may be opened or removed is core's business.
//
// The contract followed is Herdr v0.8.2's CLI: `herdr worktree …` as this package's
// builders and decoders spell it, and `herdr workspace list` as herdr/PROTOCOL-workspaces.md
// writes it down. What Herdr says is never taken as proof: core confirms every result with
// git.
package herdr
