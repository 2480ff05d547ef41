package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/notify"
	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/spf13/cobra"
)

// hookInputLimit bounds what a hook reads of its payload: Claude Code's carry a tool's
// input (a whole file written, say), of which copse needs only a few keys at the start.
const hookInputLimit = 1 << 20

// hookReadTimeout bounds the wait for the payload: an agent that never closes the hook's
// stdin must not hold it (the agent waits for its hooks).
const hookReadTimeout = 500 * time.Millisecond

// IsHook reports whether args (os.Args[1:]) run `copse hook`, which Main dispatches before
// anything else: a hook runs at each step of an agent and must cost milliseconds.
func IsHook(args []string) bool { return len(args) > 0 && args[0] == "hook" }

// RunHook is `copse hook AGENT [EVENT]`: it reads the agent's hook payload from in, says
// which state it means and writes the agent's record (core/agentstate). It never fails
// and prints nothing: whatever goes wrong, the agent goes on as if copse were absent.
// COPSE_HOOK_DEBUG=1 says on errw why nothing was written.
func RunHook(args []string, in io.Reader, errw io.Writer, getenv func(string) string) int {
	debug := func(msg string) {
		if getenv("COPSE_HOOK_DEBUG") != "" {
			io.WriteString(errw, "copse hook: "+msg+"\n")
		}
	}
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	if len(args) == 0 || len(args) > 2 {
		debug("usage: copse hook AGENT [EVENT]")
		return 0
	}
	agent, event := args[0], ""
	if len(args) == 2 {
		event = args[1]
	}
	p := agentstate.ParsePayload(readHookInput(in))
	state, ok := agentstate.StateOf(event, p)
	if !ok {
		if p.HookEventName != "" {
			event = p.HookEventName
		}
		debug("event " + strconv.Quote(event) + " says nothing of the state: nothing written")
		return 0
	}
	rec := hookRecord(agent, event, state, p, getenv)
	dir := agentstate.Dir(getenv)
	old, had := agentstate.Read(dir, rec.Agent, rec.Session, rec.PID)
	if err := agentstate.Write(dir, rec); err != nil {
		debug(err.Error())
		return 0
	}
	hookNotify(getenv, had, old, rec, debug)
	return 0
}

// hookNotifyWait bounds the one tmux run a notification costs: the agent waits for its hook.
const hookNotifyWait = 300 * time.Millisecond

// hookNotify tells the person of a turn to needs-you or done (core/notify: tmux's bell on
// the agent's window, an OSC notification where chosen), once per transition: the record
// the hook replaced says what the state was. Only inside tmux; never for the pane in view.
// The observers (list --watch, the picker) leave a hook's changes to the hook.
func hookNotify(getenv func(string) string, had bool, old, now agentstate.Record, debug func(string)) {
	tgt, ok := notify.FromEnv(getenv)
	if !ok {
		return
	}
	var prev *agentstate.Record
	if had {
		prev = &old
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookNotifyWait)
	defer cancel()
	if _, err := notify.Transition(ctx, tgt, prev, now, filepath.Base(now.Cwd)); err != nil {
		debug("notification not sent: " + err.Error())
	}
}

// hookRecord is the record one hook call writes: the agent's process found above the
// hook (or named by copse's extension), its directory from the payload.
func hookRecord(agent, event, state string, p agentstate.Payload, getenv func(string) string) agentstate.Record {
	rec := agentstate.Record{Agent: agent, Session: p.SessionID, State: state,
		Source: agentstate.SourceOf(agent), Event: event, Time: time.Now()}
	if p.HookEventName != "" {
		rec.Event = p.HookEventName
	}
	var id liveproc.Ident
	var found bool
	if p.PID > 0 {
		id, found = liveproc.Identify(p.PID)
	} else {
		id, found = liveproc.AgentAbove(os.Getpid())
	}
	if found {
		rec.PID, rec.Start, rec.Program = id.PID, id.Start, liveproc.ProgramName(id.Argv)
	} else if p.PID > 0 {
		rec.PID = p.PID
	} else {
		// No /proc to walk (not Linux): the hook's parent stands for the agent, and copse,
		// which cannot check it there either, takes the record as said.
		rec.PID = os.Getppid()
	}
	if rec.Program == "" {
		rec.Program = agent
	}
	rec.Cwd = p.Cwd
	if rec.Cwd == "" {
		rec.Cwd = getenv("CLAUDE_PROJECT_DIR")
	}
	if rec.Cwd == "" {
		rec.Cwd, _ = os.Getwd()
	}
	if rec.Cwd != "" {
		rec.Cwd = filepath.Clean(rec.Cwd)
	}
	return rec
}

// readHookInput reads at most hookInputLimit bytes of in, giving up after hookReadTimeout;
// nothing from a terminal (someone ran the hook by hand).
func readHookInput(in io.Reader) []byte {
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	got := make(chan []byte, 1)
	go func() {
		// The payload is one JSON object: it is complete when the object closes, whether
		// or not the agent then closes the pipe.
		var raw json.RawMessage
		if err := json.NewDecoder(io.LimitReader(in, hookInputLimit)).Decode(&raw); err != nil {
			raw = nil
		}
		got <- raw
	}()
	select {
	case b := <-got:
		return b
	case <-time.After(hookReadTimeout):
		return nil
	}
}

// NewCmdHook is `copse hook`, hidden: the agents' hooks run it (Main dispatches it before
// the command tree; this entry serves the same call made through Run).
func NewCmdHook(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:                "hook AGENT [EVENT]",
		Short:              "Record an agent's state from its hook (run by the agents' hooks)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			RunHook(args, f.In, f.Err, f.Getenv)
			return nil
		},
	}
}
