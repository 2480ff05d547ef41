package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/eventlog"
	"github.com/spf13/cobra"
)

// EventsOptions are `copse events`' inputs.
type EventsOptions struct {
	Since  string
	Follow bool
	Poll   time.Duration
}

// NewCmdEvents builds `copse events [--since SEQ] [--follow] [--json]`.
func NewCmdEvents(f *Factory, runF func(context.Context, *EventsOptions) error) *cobra.Command {
	opts := &EventsOptions{Poll: 200 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "events [--since SEQ] [--follow] [--json]",
		Short: "Print the repository's lifecycle events (created, removed, claimed, released, pruned, land…)",
		Long: `Print the events copse recorded in <git common dir>/copse/events.jsonl, oldest first:
worktree.created, worktree.removed, worktree.claimed, worktree.released, worktree.pruned,
land.queued, land.landed, land.blocked, land.abandoned. Every copse (command line, picker,
copse tool, copse mcp) appends one line per change, under the repository lock.

--since SEQ prints only events after seq SEQ (remember the last seq you saw; seq never
goes back, also when the log is rotated). --follow keeps printing new events as they are
appended, through a rotation of the log (truncated in place or renamed away), until
interrupted (Ctrl-C or SIGTERM end it cleanly, exit 0). Text shows each time in the
local time zone, to the second (2026-01-02 03:04:05); --json prints each event as its
JSON line, exactly as recorded (times in RFC 3339, UTC).`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return eventsRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Since, "since", "0", "only events after sequence number `SEQ`")
	fl.BoolVar(&opts.Follow, "follow", false, "keep printing new events until interrupted")
	return cmd
}

func eventsRun(ctx context.Context, f *Factory, opts *EventsOptions) error {
	since, err := core.ParseSeq(opts.Since)
	if err != nil {
		return err
	}
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	commonDir, err := svc.CommonDir(ctx)
	if err != nil {
		return err
	}
	print := func(ev core.Event, raw []byte) error {
		if f.Global.JSON {
			_, err := f.Out.Write(append(append([]byte{}, raw...), '\n'))
			return err
		}
		_, err := fmt.Fprintln(f.Out, eventLine(ev, f.home()))
		return err
	}
	if !opts.Follow {
		_, err = eventlog.Read(commonDir, since, print)
		return err
	}
	// The root context ends on SIGINT/SIGTERM: following stops there, and that is success.
	return eventlog.Follow(ctx, commonDir, since, opts.Poll, print)
}

// eventLine is one event for people: seq, local time, name, worktree, and the details it has.
func eventLine(ev core.Event, home string) string {
	s := fmt.Sprintf("%d %s %s", ev.Seq, eventTime(ev.Time), core.Escape(ev.Event))
	if w := ev.Worktree; w != nil {
		s += " " + tildePath(w.Path, home)
		if w.Branch != "" {
			s += " (" + core.Escape(w.Branch) + ")"
		}
		if w.ID != "" {
			s += " id:" + core.Escape(w.ID)
		}
	}
	for _, kv := range [][2]string{{"session", ev.Session}, {"previous", ev.Previous}, {"job", ev.Job},
		{"into", ev.Into}, {"commit", ev.Commit}, {"reason", ev.Reason}} {
		if kv[1] != "" {
			v := kv[1]
			if kv[0] == "commit" {
				v = short(v)
			}
			s += " " + kv[0] + "=" + core.Escape(v)
		}
	}
	if ev.BranchDeleted {
		s += " branch-deleted"
	}
	if a := ev.Agent; a != nil {
		// agent.state: the change first, then which agent it is.
		s += " " + core.Escape(a.Previous) + "->" + core.Escape(a.State)
		if a.ExitCode != nil {
			s += " exit=" + strconv.Itoa(*a.ExitCode)
		}
		if a.Command != "" {
			s += " command=" + core.Escape(a.Command)
		}
		if a.PID != 0 {
			s += " pid=" + strconv.Itoa(a.PID)
		}
		if a.Workspace != "" {
			s += " workspace=" + core.Escape(a.Workspace)
		}
	}
	return s
}

// eventTime is a recorded RFC 3339 time as people read it: to the second, in the local
// time zone (TZ), date and time apart. A time that does not parse is shown as recorded.
func eventTime(raw string) string {
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return core.Escape(raw)
	}
	return t.Local().Format(time.DateTime)
}
