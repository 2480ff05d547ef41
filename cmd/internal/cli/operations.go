package cli

import "github.com/copse-dev/copse/core"

// operationCommands is the command line that reaches each of core's operations. Every
// operation in core's registry has one, and each names a command of the tree (a test holds
// the three together and writes the operation table of docs/agents.md from them), so what
// an agent can ask for a person can type, and the other way round.
var operationCommands = map[core.Operation]string{
	core.OpList:       "copse list",
	core.OpCreate:     "copse create BRANCH",
	core.OpOpen:       "copse open WORKTREE",
	core.OpSwitch:     "copse switch WORKTREE",
	core.OpRemove:     "copse remove WORKTREE",
	core.OpBack:       "copse back",
	core.OpRestore:    "copse restore [ID]",
	core.OpClaim:      "copse claim WORKTREE",
	core.OpRelease:    "copse release WORKTREE",
	core.OpPrune:      "copse prune",
	core.OpLand:       "copse land WORKTREE",
	core.OpLandStatus: "copse land status [JOB]",
	core.OpLandDrain:  "copse land --drain",
}
