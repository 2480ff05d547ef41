package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/internal/textsafe"
	"github.com/spf13/cobra"
)

// CreateOptions are `copse create`'s inputs.
type CreateOptions struct {
	Request core.CreateRequest
	Switch  bool // go to the new worktree afterwards (the shell cds; Herdr focuses it)
	NoSetup bool // skip copse.copy and copse.setup
	mutation
}

// NewCmdCreate builds `copse create BRANCH [--base REF] [--path ABS] [--label TEXT] [--focus] [--yes]`.
func NewCmdCreate(f *Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{}
	var base, path, label, session, run, prompt string
	cmd := &cobra.Command{
		Use:   "create BRANCH [--base REF] [--path ABS] [--label TEXT] [--focus] [--claim [--session ID]] [--run CMD [--prompt TEXT]] [--switch] [--no-setup] [--yes]",
		Short: "Create a worktree for BRANCH (a new branch from --base, or an existing one no worktree holds)",
		Long: `Create a worktree for BRANCH. A new branch starts at --base, else at git config
copse.base, else at the main checkout's branch (never at the HEAD of the worktree copse
runs in unless --base HEAD says so); copse says which ref and commit, and land's default
--into is that branch. An existing local branch that no worktree holds is checked out. The checkout goes to
<parent of the main checkout>/<repo>.worktrees/<branch-slug> (or git config copse.root),
or to --path, which must be absolute and asks for confirmation (--yes without a terminal).

Afterwards copse sets the worktree up like the main checkout: it copies the untracked or
ignored files that git config copse.copy names (glob patterns, repeatable: .env*, .vscode/;
never overwriting, symlinks kept as links) and runs the git config copse.setup commands
(repeatable, e.g. npm ci) in it, one after another, their output on stderr. A failing
step leaves the worktree in place and says how to rerun it (copse setup). --no-setup skips
both. A committed .worktreeinclude (gitignore syntax: untracked files to copy) and
.copse.conf (copse.copy, copse.setup in git-config syntax) apply too; a .copse.conf command
runs only once a person approved its exact text (asked here on a terminal, else refused
before anything changes; see copse approve). --switch (-s) then goes there, as copse switch does.

--claim claims the new worktree for the session (see copse claim) before any other copse
can see it unclaimed.

--run CMD (or git config copse.run) starts CMD, a shell command such as claude or
'codex {prompt}', in the new worktree's tmux window (tmux backend only; elsewhere --run is
refused, never run in the foreground). {branch}, {path} and {prompt} in CMD stand for the
values, passed as the variables COPSE_BRANCH, COPSE_PATH and COPSE_PROMPT and never
spliced into the command text; a --prompt with no {prompt} in CMD becomes its last
argument. The started agent claims the worktree (session agent:<branch-slug>, or
--session), and COPSE_SESSION tells its own copse calls so. See docs/tmux.md.`,
		Args: exactArgs(1, "a BRANCH"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.Request.Branch = args[0]
			opts.Request.Base = optional(cmd, "base", base)
			opts.Request.Path = optional(cmd, "path", path)
			opts.Request.Label = optional(cmd, "label", label)
			opts.Request.Session = optional(cmd, "session", session)
			opts.Request.Run = optional(cmd, "run", run)
			opts.Request.Prompt = optional(cmd, "prompt", prompt)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return createRun(cmd.Context(), f, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&base, "base", "", "start a new branch at `REF` (default: copse.base, else the main checkout's branch)")
	fl.StringVar(&path, "path", "", "absolute checkout `PATH` (asks for confirmation)")
	fl.StringVar(&label, "label", "", "workspace label `TEXT` (Herdr; tmux: the window name)")
	fl.BoolVar(&opts.Request.Focus, "focus", false, "focus the new workspace (Herdr workspace or tmux window)")
	fl.BoolVar(&opts.Request.Claim, "claim", false, "claim the new worktree for the session in the same locked step")
	fl.StringVar(&session, "session", "", "session `ID` for --claim (default $COPSE_SESSION, else the Herdr workspace)")
	fl.StringVar(&run, "run", "", "start shell command `CMD` in the new worktree's tmux window (claims it)")
	fl.StringVar(&prompt, "prompt", "", "`TEXT` for --run's {prompt} (else its last argument)")
	fl.BoolVarP(&opts.Switch, "switch", "s", false, "switch to the new worktree afterwards (Herdr: focus its workspace)")
	fl.BoolVar(&opts.NoSetup, "no-setup", false, "skip the copse.copy files and copse.setup steps")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check and print the exact commands and the setup's copies and steps; change nothing")
	return cmd
}

func createRun(ctx context.Context, f *Factory, opts *CreateOptions) error {
	// A --run typed here is the person's own command: it needs no approval (one that
	// arrives in an agent's request does).
	ctx = core.WithTypedByPerson(ctx)
	var cfg core.SetupConfig
	again := "runs `copse create " + textsafe.ShellQuote(opts.Request.Branch) + "` again (or passes --no-setup)"
	if opts.DryRun {
		return createDryRun(ctx, f, opts, again)
	}
	readSetup := func(svc *core.Service) (err error) {
		if !opts.NoSetup {
			// Read before creating: a broken setting is reported before anything changes.
			if cfg, err = svc.SetupConfig(ctx); err != nil {
				return err
			}
			// So is a project command no person approved: asked here, on a terminal, or
			// refused without one before the worktree exists.
			return f.projectApproved(ctx, svc, cfg, again)
		}
		return nil
	}
	return opts.runMutationAfter(ctx, f, opts.Request, "", readSetup, func(svc *core.Service, out *core.Outcome) error {
		return createDone(ctx, f, svc, out, cfg, opts.Switch)
	})
}

// createDryRun checks what create checks, in the same order (the setup config and its
// project commands first, then the create itself), and shows the commands and the setup's
// copies and steps. A project command no person approved is refused as a create without a
// terminal refuses it: a dry run asks nothing (an approval is a change).
func createDryRun(ctx context.Context, f *Factory, opts *CreateOptions, again string) error {
	svc, err := f.open(ctx)
	if err != nil {
		return err
	}
	var plan *core.SetupPlan
	if !opts.NoSetup {
		cfg, err := svc.SetupConfig(ctx)
		if err != nil {
			return err
		}
		if plan, err = svc.PlanSetup(ctx, cfg, again); err != nil {
			return err
		}
	}
	out, err := opts.run(ctx, f, svc, opts.Request)
	if err != nil {
		return err
	}
	if plan != nil && (len(plan.Copy)+len(plan.Steps)+len(plan.Refused) > 0) {
		out.Setup = plan
	}
	return f.printDryRun(out)
}

// createDone prints the created worktree, runs its setup, then switches to it if asked.
// With --json the one reply comes last: the create, then where the shell went.
func createDone(ctx context.Context, f *Factory, svc *core.Service, out *core.Outcome, cfg core.SetupConfig, switchTo bool) error {
	f.warn(out.Warnings)
	f.notice(out.Notices)
	w := out.Worktree
	if !f.Global.JSON {
		if out.Base != nil {
			// A new branch: say where it starts, so a surprising base is seen at once.
			fmt.Fprintf(f.Out, "created %s at %s from %s\n", core.Escape(w.Branch), f.displayPath(w.Path), out.Base.Describe())
		} else {
			fmt.Fprintf(f.Out, "created %s at %s (%s)\n", core.Escape(w.Branch), f.displayPath(w.Path), short(w.Head))
		}
		if out.WorkspaceID != "" {
			fmt.Fprintf(f.Out, "workspace %s\n", core.Escape(out.WorkspaceID))
		}
		if out.Claim != nil {
			fmt.Fprintf(f.Out, "claimed for session %s (id %s)\n", core.Escape(out.Claim.Session), core.Escape(w.ID))
		}
	}
	if !cfg.Empty() {
		if _, err := f.runSetup(ctx, svc, w.Path, cfg); err != nil {
			return err
		}
	}
	if switchTo {
		sw, err := mutation{}.run(ctx, f, svc, core.SwitchRequest{Path: &w.Path})
		if err != nil {
			return err
		}
		if !f.Global.JSON {
			return f.deliver(ctx, svc, sw, sw.Path)
		}
		out.Path = sw.Path
	}
	if f.Global.JSON {
		return f.writeJSON(out.Result())
	}
	return nil
}

// runSetup runs the setup of the worktree at path, its step output on stderr, and reports
// the copies as soon as they are done (before the steps' output), or at the end when the
// setup stopped while copying.
func (f *Factory) runSetup(ctx context.Context, svc *core.Service, path string, cfg core.SetupConfig) (*core.SetupReport, error) {
	reported := false
	rep, err := svc.SetupThen(ctx, path, cfg, f.Err, func(r *core.SetupReport) {
		reported = true
		f.reportSetup(r)
	})
	if !reported {
		f.reportSetup(rep)
	}
	return rep, err
}

// reportSetup says on stderr what setup copied, kept and refused to copy. It runs when the
// copies are done, before the first step prints, so the report keeps the order of events.
func (f *Factory) reportSetup(rep *core.SetupReport) {
	if rep == nil || f.Global.JSON {
		return
	}
	if n := len(rep.Copied); n > 0 {
		fmt.Fprintf(f.Err, "copse: copied %s from the main checkout: %s\n", core.Plural(n, "file"), listSome(rep.Copied))
	}
	if n := len(rep.Kept); n > 0 {
		fmt.Fprintf(f.Err, "copse: kept %s already in the worktree: %s\n", core.Plural(n, "file"), listSome(rep.Kept))
	}
	// Each refusal on its own line: the reason is what tells a person whether the branch
	// or the main checkout holds a link that needs looking at.
	for _, r := range rep.Refused {
		fmt.Fprintf(f.Err, "copse: warning: did not copy %s: %s\n", core.Escape(r.Path), core.Escape(r.Reason))
	}
}

func listSome(names []string) string {
	var parts []string
	for i, n := range names {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-3))
			break
		}
		parts = append(parts, core.Escape(n))
	}
	return strings.Join(parts, ", ")
}

func short(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}
