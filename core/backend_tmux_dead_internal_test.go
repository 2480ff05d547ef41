package core

import (
	"testing"

	"github.com/copse-dev/copse/tmux"
)

// A pane whose command ended is a done agent with its command's exit code (0 included),
// as tmux keeps it (#{pane_dead_status}).
func TestDeadPaneIsDoneWithItsExitCode(t *testing.T) {
	for _, code := range []int{0, 3, 143} {
		got := paneAgent(tmux.Pane{Window: "@2", ID: "%3", Dead: true, ExitCode: code, Command: "claude"})
		if len(got) != 1 || got[0].State != AgentDone || got[0].ExitCode == nil || *got[0].ExitCode != code || got[0].Workspace != "@2" {
			t.Fatalf("dead pane with status %d = %+v; want one done agent with exit code %d in @2", code, got, code)
		}
	}
}
