// Package omptest drives the real Oh My Pi (@oh-my-pi/pi-coding-agent 18.2.3, pinned in
// testdata/omp, run by the Bun from npm) offline, in print mode and on its interactive
// screen in a tmux server of the test's own (cmd/internal/hosttest), with copse's omp
// extension installed the way a user installs it (copse init omp --install) and a fake
// model provider (testdata/omp/fake-model.ts) that turns "call TOOL JSON" into a tool call.
// The Herdr path runs inside the Herdr test double (herdr/herdrdouble). It holds tests only.
//
// Without node, npm or tmux the tests are skipped with a message, except in CI (CI=true),
// where they fail.
package omptest
