package backend

import (
	"os/exec"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/tmux"
)

// A pane whose command ended is a done agent with its command's exit code (0 included),
// as tmux keeps it (#{pane_dead_status}).
func TestDeadPaneIsDoneWithItsExitCode(t *testing.T) {
	for _, code := range []int{0, 3, 143} {
		got := paneAgent(tmux.Pane{Window: "@2", ID: "%3", Dead: true, ExitCode: code, Command: "claude"})
		if len(got) != 1 || got[0].State != core.AgentDone || got[0].ExitCode == nil || *got[0].ExitCode != code || got[0].Workspace != "@2" {
			t.Fatalf("dead pane with status %d = %+v; want one done agent with exit code %d in @2", code, got, code)
		}
	}
}

// A quiet pane's program is idle since its window last printed; a dead pane is done since
// its command ended: every screen reading that can say when says it.
func TestScreenReadingSaysSinceWhen(t *testing.T) {
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	quiet := time.Now().Add(-time.Minute).Truncate(time.Second)
	got := paneAgent(tmux.Pane{Window: "@2", ID: "%3", PID: sleep.Process.Pid, WindowActivity: quiet, Command: "sleep"})
	if len(got) != 1 || got[0].State != core.AgentIdle || !got[0].Since.Equal(quiet) {
		t.Fatalf("quiet pane = %+v; want idle since %v", got, quiet)
	}
	ended := time.Now().Add(-time.Hour).Truncate(time.Second)
	got = paneAgent(tmux.Pane{Window: "@2", ID: "%3", Dead: true, ExitCode: 1, DeadSince: ended})
	if len(got) != 1 || got[0].State != core.AgentDone || !got[0].Since.Equal(ended) {
		t.Fatalf("dead pane = %+v; want done since %v", got, ended)
	}
}
