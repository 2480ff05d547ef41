package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/op/land"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// LandOptions are `copse land`'s inputs.
type LandOptions struct {
	Target       string
	Into         *string
	Test         *string
	Keep         bool
	ForceRestart bool
	ForceClaim   bool
	Yes          bool
	Session      *string
	NoWait       bool
	Drain        bool
	DryRun       bool
}

// NewCmdLand builds `copse land TARGET [--into BRANCH] [--test CMD] [--keep]
// [--force-restart] [--no-wait]`, `copse land --drain`, and its status and queue commands.
func NewCmdLand(f *Factory, runF func(context.Context, *LandOptions) error) *cobra.Command {
	opts := &LandOptions{}
	var into, test, session string
	cmd := &cobra.Command{
		Use:   "land (TARGET | --drain) [--into BRANCH] [--test CMD] [--keep] [--force-restart] [--force-claim [--yes]] [--no-wait] [--dry-run]",
		Short: "Land a worktree's branch onto a target through the repository's FIFO queue",
		Long: `Land the branch of a worktree (TARGET: its branch, its absolute path, or id:ID) onto --into
(default: the branch the worktree was created from, else the main checkout's branch). Lands of one repository queue in strict FIFO order,
across processes; a waiting land shows its position and phase on stderr. Phases:

  preflight  the worktree is clean (untracked files too) and not mid-operation
  rebase     git rebase --no-autostash --no-update-refs onto the target's commit; a
             conflict blocks the land and leaves the rebase open for you to resolve
  test       the first of: --test; git config copse.test; the committed .copse.conf's
             copse.test once a person approved it (copse approve; unapproved, the land
             is refused before it queues); none of them: no gate. Run with sh -c in the
             worktree, in its own process group, timeout git config copse.testTimeout
             (default 10m); the group ends with copse, even when copse is killed.
             --dry-run names the gate and where it comes from
  advance    fast-forward the target with a compare-and-swap; a checkout of the target
             is synced (read-tree -m -u) or the land is refused; a target that moved is
             re-rebased and re-tested up to git config copse.landRetries (default 3) times
  cleanup    (unless --keep) release the landing session's claim, remove the worktree,
             delete the branch; a worktree another session claims is kept

--no-wait queues the job, prints its id and returns; the next copse land (or copse land
--drain) runs it. --force-restart aborts a rebase that an earlier land left open (only one
copse started, and only while nobody has worked in it since it stopped: a resolution in
progress is refused, rebase_changed), then starts over. A land waiting behind a job whose
copse is stopped (Ctrl-Z) gives up after copse.lockTimeout (land_owner_stopped). A worktree another session claimed is refused
(claimed_by_other); --force-claim takes that claim over, after a confirmation (--yes).
--dry-run checks all of that on today's state (the ignored files the rebase would replace,
the target's checkout, what the clean-up would keep) and prints the steps; it refuses as the
land would, and queues and runs nothing, the test gate included. (A branch named status or
queue: name its worktree by its absolute path.)

Exit codes: 0 landed; 1 blocked or refused (the job record says why: copse land status);
3 uncertain; 130 cancelled (the record says which phase and what state remains).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Drain {
				return noArgs(cmd, args)
			}
			return exactArgs(1, "a TARGET (a branch, the absolute path of a worktree, or id:ID), or --drain")(cmd, args)
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if opts.Drain {
				for _, name := range []string{"into", "test", "keep", "force-restart", "force-claim", "session", "no-wait", "dry-run"} {
					if cmd.Flags().Changed(name) {
						return usagef("usage: "+cmd.UseLine(), "--drain runs queued jobs as they were queued; it takes no --%s", name)
					}
				}
			} else {
				opts.Target = args[0]
			}
			opts.Into = optional(cmd, "into", into)
			opts.Test = optional(cmd, "test", test)
			opts.Session = optional(cmd, "session", session)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return landRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&into, "into", "", "the `BRANCH` to land onto (default: the branch the worktree was created from, else the main checkout's branch)")
	fl.StringVar(&test, "test", "", "test gate: shell `CMD` run in the worktree (default: git config copse.test, else .copse.conf's approved copse.test)")
	fl.BoolVar(&opts.Keep, "keep", false, "keep the worktree and branch after landing")
	fl.BoolVar(&opts.ForceRestart, "force-restart", false, "abort a rebase an earlier land left open, then start over")
	fl.BoolVar(&opts.ForceClaim, "force-claim", false, "land a worktree another session claimed, taking over its claim (asks first)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.StringVar(&session, "session", "", "landing `SESSION` (default COPSE_SESSION, else the Herdr workspace)")
	fl.BoolVar(&opts.NoWait, "no-wait", false, "queue the job, print its id and return")
	fl.BoolVar(&opts.Drain, "drain", false, "run every queued job nobody waits for, in order")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check what the land would refuse, block on and keep, and print its steps; queue and run nothing")
	cmd.AddCommand(newCmdLandStatus(f), newCmdLandQueue(f))
	return cmd
}

func (o *LandOptions) request() core.LandRequest {
	r := core.LandRequest{Into: o.Into, Test: o.Test, Keep: o.Keep, ForceRestart: o.ForceRestart, ForceClaim: o.ForceClaim,
		Session: o.Session, Wait: !o.NoWait, DryRun: o.DryRun}
	r.Path, r.Branch, r.ID = splitTargetID(o.Target)
	return r
}

func landRun(ctx context.Context, f *Factory, opts *LandOptions) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	var progress func(land.LandProgress)
	if !f.Global.JSON {
		progress = newLandReporter(f.Err, f.home()).report
	}
	if opts.Drain {
		return drainRun(ctx, f, svc, progress)
	}
	// A --test typed here is the person's own command: it needs no approval (one that
	// arrives in an agent's request does).
	plan, err := svc.Prepare(core.WithTypedByPerson(ctx), opts.request())
	if err != nil {
		return relativeHint(err, opts.Target)
	}
	if plan.Confirm != nil && !opts.Yes {
		if err := f.confirm(ctx, plan.Confirm); err != nil {
			return err
		}
	}
	if progress != nil {
		ctx = land.WithLandProgress(ctx, progress)
	}
	out, err := svc.Execute(ctx, plan)
	if err == nil && out.DryRun {
		return f.printLandDryRun(out)
	}
	if out != nil {
		f.warn(out.Warnings)
		f.notice(out.Notices)
	}
	if err != nil {
		return err
	}
	j := out.Land
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	if opts.NoWait {
		fmt.Fprintln(f.Out, j.Job)
		fmt.Fprintf(f.Err, "copse: queued %s (position %d); the next copse land, or copse land --drain, runs it\n", j.Job, j.Position)
		return nil
	}
	printLanded(f, j)
	return nil
}

// printLandDryRun shows a land's dry run: the checks it passed, the steps it would run
// with the commits known now, and what the clean-up would do (on stdout: it is the answer,
// not a warning).
func (f *Factory) printLandDryRun(out *core.Outcome) error {
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	fmt.Fprintln(f.Out, "checks passed; nothing was queued or changed. copse land would run:")
	for _, c := range out.Commands {
		fmt.Fprintf(f.Out, "  %s\n", c)
	}
	f.warn(out.Warnings)
	for _, n := range out.Notices {
		fmt.Fprintf(f.Out, "%s\n", tildeIn(n, f.home()))
	}
	return nil
}

func printLanded(f *Factory, j *core.LandJob) {
	fmt.Fprintf(f.Out, "landed %s onto %s at %s (%s)\n", core.Escape(j.Worktree.Branch), core.Escape(j.Into), shortOID(j.Commit), j.Job)
	if j.Released {
		fmt.Fprintln(f.Out, "released the claim")
	}
	if j.Removed {
		fmt.Fprintf(f.Out, "removed %s\n", f.displayPath(j.Worktree.Path))
	}
	if j.BranchGone {
		fmt.Fprintf(f.Out, "deleted branch %s\n", core.Escape(j.Worktree.Branch))
	}
	// Notices go to stderr with the progress: stdout stays the record of what was done.
	for _, n := range j.Notices {
		fmt.Fprintf(f.Err, "copse: note: %s\n", tildeIn(n, f.home()))
	}
}

// drainRun runs the queue; its exit code is the worst outcome among the jobs it ran.
func drainRun(ctx context.Context, f *Factory, svc *core.Service, progress func(land.LandProgress)) error {
	if progress != nil {
		ctx = land.WithLandProgress(ctx, progress)
	}
	out, err := svc.Do(ctx, core.LandDrainRequest{}, false)
	if err != nil {
		return err
	}
	ran := out.LandJobs
	if f.Global.JSON {
		if err := f.writeJSON(out.Result()); err != nil {
			return err
		}
	}
	worst := 0
	for i := range ran {
		j := &ran[i]
		code := core.ExitCode(land.LandError(j))
		if !f.Global.JSON {
			if code == 0 {
				printLanded(f, j)
			} else {
				f.reportError(core.AsError(land.LandError(j)))
			}
		}
		if code == 3 || worst != 3 && code > worst {
			worst = code
		}
	}
	if !f.Global.JSON && len(ran) == 0 {
		fmt.Fprintln(f.Err, "copse: no queued land was waiting for a runner")
	}
	if worst != 0 {
		return exitStatus(worst)
	}
	return nil
}

// landReporter prints a land's progress on stderr: each phase once, and the queue
// position whenever it changes.
type landReporter struct {
	w         io.Writer
	home      string // shown as ~ in the paths the lines name
	lastPhase map[string]core.LandPhase
	lastPos   map[string]int
}

func newLandReporter(w io.Writer, home string) *landReporter {
	return &landReporter{w: w, home: home, lastPhase: map[string]core.LandPhase{}, lastPos: map[string]int{}}
}

func (r *landReporter) report(p land.LandProgress) {
	j := p.Job
	if j.State == core.LandQueued && p.Head != nil {
		if r.lastPos[j.Job] == j.Position {
			return
		}
		r.lastPos[j.Job] = j.Position
		fmt.Fprintf(r.w, "copse: %s queued: position %d, waiting for %s (%s)\n", j.Job, j.Position, p.Head.Job, p.Head.Phase)
		return
	}
	if j.State.Finished() || r.lastPhase[j.Job] == j.Phase {
		return
	}
	r.lastPhase[j.Job] = j.Phase
	switch j.Phase {
	case core.PhaseRebase:
		again := ""
		if j.Attempts > 1 { // the advance found the target moved: this land did not advance it
			again = fmt.Sprintf("%s moved, so this land did not advance it; ", core.Escape(j.Into))
		}
		fmt.Fprintf(r.w, "copse: %s: %srebase %s onto %s (%s)\n", j.Job, again, core.Escape(j.Worktree.Branch), core.Escape(j.Into), shortOID(j.Onto))
	case core.PhaseTest:
		from := ""
		if j.TestFrom != "" {
			from = ", from " + j.TestFrom
		}
		fmt.Fprintf(r.w, "copse: %s: test: sh -c %s (log %s%s)\n", j.Job, textsafe.ShellQuote(j.Test), tildePath(j.Log, r.home), from)
	case core.PhaseAdvance:
		fmt.Fprintf(r.w, "copse: %s: advance %s to %s\n", j.Job, core.Escape(j.Into), shortOID(j.Commit))
	default:
		fmt.Fprintf(r.w, "copse: %s: %s\n", j.Job, j.Phase)
	}
}

func shortOID(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// newCmdLandStatus builds `copse land status [JOB] [--log]`.
func newCmdLandStatus(f *Factory) *cobra.Command {
	var log bool
	cmd := &cobra.Command{
		Use:   "status [JOB] [--log]",
		Short: "Show land jobs: every job of this repository, or one in detail",
		Long: `Show every land job of this repository, or one JOB in detail (a failed test gate
with the last lines of its log). --log prints JOB's whole test log instead: as the gate
wrote it when stdout is a pipe or a file, escaped line by line on a terminal.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return exactArgs(1, "at most one JOB")(cmd, args)
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			svc, err := f.open(ctx)
			if err != nil {
				return err
			}
			if log {
				if len(args) != 1 {
					return usagef("usage: "+cmd.UseLine(), "--log shows one job's test log: name the JOB (copse land status lists them)")
				}
				l, err := svc.LandLog(ctx, args[0])
				if err != nil {
					return err
				}
				if f.Global.JSON {
					return f.writeJSON(struct {
						Operation string `json:"operation"`
						Job       string `json:"job"`
						Log       string `json:"log"`
						Text      string `json:"text"` // the log as written (JSON escapes it)
						Cut       bool   `json:"cut,omitempty"`
					}{"land_log", l.Job, l.Path, string(l.Data), l.Cut})
				}
				printLandLog(f, l.Data, l.Cut)
				return nil
			}
			req := core.LandStatusRequest{}
			if len(args) == 1 {
				req.Job = &args[0]
			}
			out, err := svc.Do(ctx, req, false)
			if err != nil {
				return err
			}
			if f.Global.JSON {
				return f.writeJSON(out.Result())
			}
			if out.Land != nil {
				printJob(f, out.Land)
				return nil
			}
			if len(out.LandJobs) == 0 {
				fmt.Fprintln(f.Out, "no land jobs in this repository")
				return nil
			}
			for _, j := range out.LandJobs {
				fmt.Fprintln(f.Out, jobLine(j))
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&log, "log", false, "print JOB's test log (escaped on a terminal, raw when piped)")
	return cmd
}

// newCmdLandQueue builds `copse land queue`.
func newCmdLandQueue(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "queue",
		Short: "Show the unfinished land jobs in queue order",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			svc, err := f.open(ctx)
			if err != nil {
				return err
			}
			jobs, err := svc.LandJobs(ctx)
			if err != nil {
				return err
			}
			queue := []core.LandJob{}
			for _, j := range jobs {
				if !j.State.Finished() {
					queue = append(queue, j)
				}
			}
			if f.Global.JSON {
				return f.writeJSON(struct {
					Operation string         `json:"operation"`
					Queue     []core.LandJob `json:"queue"`
				}{"land_queue", queue})
			}
			if len(queue) == 0 {
				fmt.Fprintln(f.Out, "the land queue is empty")
				return nil
			}
			for _, j := range queue {
				fmt.Fprintf(f.Out, "%d. %s\n", j.Position, jobLine(j))
			}
			return nil
		}),
	}
}

// jobLine is one job on one line: id, state (and phase while unfinished), what onto what.
func jobLine(j core.LandJob) string {
	state := string(j.State)
	if !j.State.Finished() {
		state += " (" + string(j.Phase) + ")"
	} else if j.Code != "" && j.State != core.LandCancelled {
		state += " (" + j.Code + ")"
	}
	line := fmt.Sprintf("%-9s %-26s %s → %s", j.Job, state, core.Escape(j.Worktree.Branch), core.Escape(j.Into))
	if j.Commit != "" {
		line += " " + shortOID(j.Commit)
	}
	if !j.State.Finished() && !j.Owned {
		line += "  (no runner yet: copse land --drain)"
	}
	return line
}

func printJob(f *Factory, j *core.LandJob) {
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(f.Out, "%-12s %s\n", k+":", v)
		}
	}
	kv("job", j.Job)
	kv("state", string(j.State))
	kv("phase", string(j.Phase))
	if j.Position > 0 {
		kv("position", fmt.Sprint(j.Position))
	}
	kv("worktree", f.displayPath(j.Worktree.Path))
	kv("branch", core.Escape(j.Worktree.Branch))
	kv("into", core.Escape(j.Into))
	kv("test", core.Escape(j.Test))
	kv("test from", j.TestFrom)
	kv("onto", j.Onto)
	kv("commit", j.Commit)
	kv("code", j.Code)
	kv("message", tildeIn(j.Message, f.home()))
	kv("hint", j.Hint)
	if len(j.Conflicts) > 0 {
		var c []string
		for _, p := range j.Conflicts {
			c = append(c, core.Escape(p))
		}
		kv("conflicts", strings.Join(c, ", "))
	}
	kv("interrupted", string(j.Interrupted))
	kv("remaining", j.Remaining)
	kv("created", j.Created)
	if j.Started != "" && j.Finished != "" {
		if a, err1 := time.Parse(time.RFC3339Nano, j.Started); err1 == nil {
			if b, err2 := time.Parse(time.RFC3339Nano, j.Finished); err2 == nil {
				kv("took", b.Sub(a).Round(time.Millisecond).String())
			}
		}
	}
	kv("log", f.displayPath(j.Log))
	for _, w := range j.Warnings {
		kv("warning", tildeIn(w, f.home()))
	}
	for _, n := range j.Notices {
		kv("note", tildeIn(n, f.home()))
	}
	printLogTail(f.Out, j.Log, j.LogTail, f.home())
}

// printLandLog writes a job's test log: as the gate wrote it when stdout is a pipe or a
// file (for grep, less -R, an editor), and line by line escaped on a terminal, where a
// test's escape sequences could otherwise move the cursor, retitle the window or hide text.
func printLandLog(f *Factory, data []byte, cut bool) {
	if cut {
		fmt.Fprintln(f.Err, "copse: the log is larger than copse reads at once; this is its end")
	}
	if !f.OutTerminal() {
		_, _ = f.Out.Write(data)
		return
	}
	text := strings.TrimSuffix(string(data), "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintln(f.Out, land.SafeLogLine(l))
	}
}
