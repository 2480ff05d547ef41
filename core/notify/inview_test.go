package notify

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/tmux"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

// A person looks at a pane when a client is attached to its session and the pane is the
// current one: a turn to needs-you there sends nothing; the same turn in another window of
// that session rings that window.
func TestNoNotificationForThePaneInView(t *testing.T) {
	srv := tmuxtest.Start(t)
	// A control-mode client counts as attached, as a person's terminal does.
	attach := exec.Command("tmux", "-S", srv.Socket, "-C", "attach-session", "-t", srv.Session)
	stdin, err := attach.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := attach.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); attach.Process.Kill(); attach.Wait() })
	srv.WaitFor("the client to attach", func() bool {
		return srv.Run("display-message", "-p", "-t", srv.Session, "#{session_attached}") != "0"
	})
	inView := srv.Run("display-message", "-p", "-t", srv.Session, "#{pane_id}")
	out := strings.Fields(srv.Run("new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "--", "/bin/sh"))
	other, otherPane := out[0], out[1]
	client := &tmux.Client{Socket: srv.Socket}
	ctx := context.Background()
	working := agentstate.Record{State: agentstate.Working, Program: "claude"}
	blocked := agentstate.Record{State: agentstate.Blocked, Program: "claude"}

	sent, err := Transition(ctx, Target{Client: client, Pane: inView, Mode: OSC9}, &working, blocked, "feat/x")
	if sent || err != nil {
		t.Fatalf("the pane in view: sent=%v err=%v; want nothing sent", sent, err)
	}
	sent, err = Transition(ctx, Target{Client: client, Pane: otherPane, Mode: OSC9}, &working, blocked, "feat/x")
	if !sent || err != nil {
		t.Fatalf("a pane of another window: sent=%v err=%v; want sent", sent, err)
	}
	srv.WaitFor("the other window's bell flag", func() bool {
		return srv.Run("display-message", "-p", "-t", other, "#{window_bell_flag}") == "1"
	})
}
