package notify

import (
	"context"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/tmux"
	"github.com/copse-dev/copse/tmux/tmuxtest"
)

func TestWorthOnlyATurnToNeedsYouOrDone(t *testing.T) {
	rec := func(s string) *agentstate.Record { return &agentstate.Record{State: s} }
	for _, c := range []struct {
		old  *agentstate.Record
		now  string
		want bool
	}{
		{nil, agentstate.Blocked, true},
		{rec(agentstate.Working), agentstate.Blocked, true},
		{rec(agentstate.Working), agentstate.Done, true},
		{rec(agentstate.Blocked), agentstate.Blocked, false}, // one per transition
		{rec(agentstate.Done), agentstate.Done, false},
		{rec(agentstate.Blocked), agentstate.Working, false},
		{nil, agentstate.Idle, false},
	} {
		if got := Worth(c.old, agentstate.Record{State: c.now}); got != c.want {
			t.Errorf("Worth(%v -> %s) = %v, want %v", c.old, c.now, got, c.want)
		}
	}
}

// Agent text inside the notification cannot end the sequence or drive the terminal: every
// control byte and bidirectional mark is dropped, and the only ESCs are copse's, doubled
// inside tmux's passthrough.
func TestBytesCarryNoControlBytesFromAgentText(t *testing.T) {
	msg := Message("evil\x1b]0;pwned\x07\u202e", "feat/\x1b[2Jx", agentstate.Done, ptr(2))
	if strings.ContainsAny(msg, "\x1b\x07\u202e") {
		t.Fatalf("Message kept control text: %q", msg)
	}
	if want := "evil]0;pwned in feat/[2Jx is done (exit 2)"; msg != want {
		t.Errorf("Message = %q, want %q", msg, want)
	}
	b := string(Bytes(OSC9, msg))
	want := "\a\x1bPtmux;\x1b\x1b]9;" + msg + "\x1b\x1b\\\x1b\\"
	if b != want {
		t.Errorf("Bytes(osc9) = %q, want %q", b, want)
	}
	if b := string(Bytes(OSC777, "x")); b != "\a\x1bPtmux;\x1b\x1b]777;notify;copse;x\x1b\x1b\\\x1b\\" {
		t.Errorf("Bytes(osc777) = %q", b)
	}
	if b := string(Bytes(Bell, msg)); b != "\a" {
		t.Errorf("Bytes(bell) = %q, want a bare BEL", b)
	}
	if b := Bytes(Off, msg); b != nil {
		t.Errorf("Bytes(off) = %q, want nothing", b)
	}
}

func TestParseModeNamesEveryValue(t *testing.T) {
	for in, want := range map[string]Mode{"": OSC9, "off": Off, "bell": Bell, "osc9": OSC9, "OSC777": OSC777, "on": OSC9, "false": Off} {
		if got, ok := ParseMode(in); !ok || got != want {
			t.Errorf("ParseMode(%q) = %s, %v; want %s", in, got, ok, want)
		}
	}
	if got, ok := ParseMode("loud"); ok || got != Default {
		t.Errorf("ParseMode(loud) = %s, %v; want the default and not ok", got, ok)
	}
}

// In a private tmux server, a transition of an agent in a window nobody looks at raises
// that window's bell flag; a transition that is not worth one, or mode off, does not.
func TestTransitionRingsTheBellOfTheAgentsWindow(t *testing.T) {
	srv := tmuxtest.Start(t)
	out := srv.Run("new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "--", "/bin/sh")
	f := strings.Fields(out)
	win, pane := f[0], f[1]
	client := &tmux.Client{Socket: srv.Socket}
	flag := func() string { return srv.Run("display-message", "-p", "-t", win, "#{window_bell_flag}") }
	ctx := context.Background()
	working := agentstate.Record{State: agentstate.Working, Program: "claude"}
	for _, c := range []struct {
		name string
		mode Mode
		old  *agentstate.Record
		now  agentstate.Record
	}{
		{"off", Off, &working, agentstate.Record{State: agentstate.Blocked}},
		{"not worth it", OSC9, &working, agentstate.Record{State: agentstate.Idle}},
	} {
		if sent, err := Transition(ctx, Target{Client: client, Pane: pane, Mode: c.mode}, c.old, c.now, "feat/x"); sent || err != nil {
			t.Errorf("%s: sent=%v err=%v, want nothing sent", c.name, sent, err)
		}
	}
	if got := flag(); got != "0" {
		t.Fatalf("bell flag %q before any notification", got)
	}
	sent, err := Transition(ctx, Target{Client: client, Pane: pane, Mode: OSC9}, &working, agentstate.Record{State: agentstate.Blocked, Program: "claude"}, "feat/x")
	if err != nil || !sent {
		t.Fatalf("Transition to blocked: sent=%v err=%v", sent, err)
	}
	srv.WaitFor("the window's bell flag", func() bool { return flag() == "1" })
}

func ptr(n int) *int { return &n }
