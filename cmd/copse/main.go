// Command copse manages git worktrees safely: an interactive picker, a command line and a
// JSON tool for agents, all behind one safety core. main only hands over to cli.Main and
// must never gain logic of its own; the layout of the packages is in docs/dev/layout.md ("How the code
// is laid out").
package main

import (
	"os"

	"github.com/copse-dev/copse/cmd/internal/cli"
	_ "github.com/copse-dev/copse/internal/quiet" // no terminal probing at package init
)

func main() { os.Exit(cli.Main()) }
