package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/liveproc"
	"github.com/spf13/cobra"
)

// NewCmdAgentRun builds the hidden `copse agent-run start|end`: what the wrapper of a
// create --run window calls around its command (core/agent_run.go). It reads the window's
// COPSE_SESSION, COPSE_PATH and COPSE_RUN_PROGRAM, always exits 0 and prints only what
// went wrong: the window goes on to its shell whatever happens.
func NewCmdAgentRun(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "agent-run start|end [--exit N]",
		Short:  "Report the start or end of a create --run command (its window's wrapper calls it)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
	}
	exit := cmd.Flags().Int("exit", 0, "end: the command's exit status")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		r := core.RunReport{Session: f.Getenv("COPSE_SESSION"), Path: f.Getenv("COPSE_PATH"),
			Program: f.Getenv("COPSE_RUN_PROGRAM"), PID: os.Getppid(), ExitCode: *exit}
		if r.Session == "" || !filepath.IsAbs(r.Path) {
			return nil // not in a --run window: nothing to report
		}
		r.Start, _ = liveproc.StartTicks(r.PID)
		// The command started, or ended, as this process started: the wrapper starts it then.
		if own, ok := liveproc.StartTicks(os.Getpid()); ok {
			r.At, _ = liveproc.StartedAt(own)
		}
		switch args[0] {
		case "start":
			if err := core.RecordRunStart(f.Getenv, r); err != nil {
				fmt.Fprintf(f.Err, "copse: the agent's start is not recorded: %s\n", core.Escape(err.Error()))
			}
		case "end":
			agentRunEnd(c.Context(), f, r)
		default:
			return usagef("the wrapper of create --run calls it", "agent-run takes start or end, not %s", core.Escape(args[0]))
		}
		return nil
	}
	return cmd
}

// agentRunEnd records the end first (no repository needed), then opens the worktree's
// repository for the event, the release and the notification.
func agentRunEnd(ctx context.Context, f *Factory, r core.RunReport) {
	old, now, err := core.RecordRunEnd(f.Getenv, r)
	if err != nil {
		fmt.Fprintf(f.Err, "copse: the agent's end is not recorded: %s\n", core.Escape(err.Error()))
	}
	f.Global.Dir = r.Path
	svc, err := f.open(ctx)
	if err != nil {
		fmt.Fprintf(f.Err, "copse: the agent's end is not logged: %s\n", core.AsError(err).Message)
		return
	}
	f.warn(svc.RunEnded(ctx, r, old, now))
}
