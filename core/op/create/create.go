package create

import (
	"context"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/removal"
)

// Op is the create operation.
var Op = &core.Op{
	Name:     core.OpCreate,
	Doc:      "create a worktree (and its branch unless it exists)",
	Approval: core.ApprovalExecute,
	Request:  core.CreateRequest{},
	// A path the caller chose is a place on disk a person should see first; a command to
	// run is a shell command an agent may have chosen, as land's test (one a person typed,
	// or git config copse.run, is not asked again); so is a prompt for that command.
	Confirms: core.RuleOf(func(r core.CreateRequest) bool { return r.Path != nil || r.Run != nil || r.Prompt != nil }),
	Prepare:  core.PrepareAs(prepareCreate),
	// The base is resolved to a commit when prepared; a branch that moved since is a
	// different create than the one asked for.
	Recheck: func(asked, fresh core.Command) error {
		old, okOld := asked.(*core.CreateSpec)
		c, ok := fresh.(*core.CreateSpec)
		if okOld && ok && old.Base.OID != c.Base.OID {
			return core.Refused(core.CodeBaseMoved, "run the create again to start from the new commit",
				"%s moved from %s to %s after it was checked; nothing ran", core.Escape(c.Base.Ref), core.Short(old.Base.OID), core.Short(c.Base.OID))
		}
		return nil
	},
	Phases: []core.Phase{
		{Name: "create", Locked: true, Run: func(s *core.Env, ctx context.Context, x *core.Execution, _ *core.Outcome) (*core.Outcome, error) {
			return runCreateClaim(s, ctx, x.Plan.Cmd.(*core.CreateSpec), x)
		}},
		// A command started with --run that ends within a second did not start: said in
		// the reply, after the lock is released (the wrapper takes it to release its claim).
		{Name: "started", Run: startedCheck},
	},
}

// startedCheck says, with no lock held, whether create's --run command ended at once.
func startedCheck(s *core.Env, ctx context.Context, x *core.Execution, out *core.Outcome) (*core.Outcome, error) {
	c := x.Plan.Cmd.(*core.CreateSpec)
	if c.Run == nil || !c.Run.Wrapped || out == nil {
		return out, nil
	}
	if w := s.QuickEnd(ctx, c.Run.Session, out.Path, c.Run.Started); w != "" {
		out.Warnings = append(out.Warnings, w)
		for _, cl := range []*core.Claim{out.Claim, claimOfRow(out.Worktree)} {
			if cl != nil {
				cl.Ended = true
			}
		}
	}
	return out, nil
}

func claimOfRow(w *core.Worktree) *core.Claim {
	if w == nil {
		return nil
	}
	return w.Claim
}

// createdEvents are the events of a create that happened (and of its claim, if taken).
func createdEvents(x *core.Execution, out *core.Outcome) {
	ev := core.Event{Event: core.EventCreated, Commit: out.Worktree.Head}
	if out.Claim != nil {
		ev.Session = out.Claim.Session
	}
	x.Emit(ev, out.Worktree)
	if out.Claim != nil {
		x.Emit(core.Event{Event: core.EventClaimed, Session: out.Claim.Session}, out.Worktree)
	}
}

func prepareCreate(s *core.Env, ctx context.Context, r core.CreateRequest, snap core.Snapshot) (*core.Plan, error) {
	if err := core.CheckText("branch", r.Branch, core.MaxBranch); err != nil {
		return nil, err
	}
	src, err := s.ResolveCreateBranch(ctx, r.Branch, r.Base != nil)
	if err != nil {
		return nil, err
	}
	branch := src.Branch
	c := &core.CreateSpec{Branch: branch, Cwd: s.Root(), Focus: r.Focus}
	var warnings []string
	if r.Label != nil {
		if c.Label, err = core.ParseLabel(*r.Label); err != nil {
			return nil, err
		}
	}
	if !s.Backend.HasWorkspaces() && (r.Label != nil || r.Focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if e := core.RuleBranchFree(branch, snap); e != nil {
		return nil, e
	}
	if src.Source == core.CreateAmbiguous {
		return nil, core.AmbiguousRemote(src)
	}
	baseShown, baseWarnings, err := createBase(s, ctx, r, src, c, snap)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, baseWarnings...)
	if r.Path != nil {
		if c.Path, err = core.ParseAbsPath("path", *r.Path); err != nil {
			return nil, err
		}
		c.Explicit = true
	} else if c.Path, err = s.DefaultPath(ctx, branch); err != nil {
		return nil, err
	}
	if err := s.CheckNewPath(ctx, snap, c.Path); err != nil {
		return nil, err
	}
	runFromRequest, runWarnings, err := prepareRun(s, ctx, r, c)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, runWarnings...)
	if c.Run != nil {
		// The session started there claims the worktree (see create_run.go).
		r.Claim = true
		if r.Session == nil {
			sess := core.RunSession(branch)
			r.Session = &sess
		}
	}
	cmds, err := s.CreateCommands(c)
	if err != nil {
		return nil, err
	}
	if cmds, err = prepareCreateClaim(s, r, c, cmds); err != nil {
		return nil, err
	}
	p := &core.Plan{Request: r, Cmd: c, Commands: cmds, Warnings: warnings}
	if askRun := runFromRequest && !core.TypedByPerson(ctx); c.Explicit || askRun {
		// A confirmation shows the command it starts, whoever typed it: the person
		// confirms the whole create.
		p.Confirm = createConfirmation(r, c, baseShown, runFromRequest && c.Run != nil, warnings)
	}
	return p, nil
}

// createBase decides where the new checkout starts: the existing branch's tip, the
// remote-tracking branch, or a base (requested, copse.base, else the main checkout's
// branch). It returns how the confirmation shows it.
func createBase(s *core.Env, ctx context.Context, r core.CreateRequest, src core.BranchSource, c *core.CreateSpec, snap core.Snapshot) (string, []string, error) {
	branch := c.Branch
	var warnings []string
	baseShown := "(existing branch)"
	switch src.Source {
	case core.CreateExisting:
		if e := core.RuleNoBaseForExisting(branch, r.Base != nil); e != nil {
			return "", nil, e
		}
		c.Existing = true
		// Record the tip now so the postcondition can tell the checkout is that commit.
		tip, err := s.ParseBase(ctx, "refs/heads/"+branch.String())
		if err != nil {
			return "", nil, err
		}
		c.Base = tip
	case core.CreateFromRemote:
		// The commit is the remote branch's as checked now; Execute compares it under the
		// lock and the postcondition checks the checkout is exactly it.
		c.Remote = src.Remote
		c.Base = core.BaseCommit{Ref: src.Remote.String(), OID: src.Remote.OID}
		c.BaseFrom = core.BaseFromRemote
		baseShown = src.Remote.String() + " (tracking it)"
	default:
		// Without --base: copse.base, else the main checkout's branch, never this
		// worktree's HEAD (see defaultBase).
		var (
			ch  core.BaseChoice
			err error
		)
		if r.Base != nil {
			ch, err = s.RequestedBase(ctx, *r.Base)
		} else {
			ch, err = s.DefaultBase(ctx, snap)
		}
		if err != nil {
			return "", nil, err
		}
		c.Base, c.BaseBranch, c.BaseFrom = ch.Base, ch.Branch, ch.From
		if ch.Warning != "" {
			warnings = append(warnings, ch.Warning)
		}
		baseShown = c.StartBase().Describe()
	}
	return baseShown, warnings, nil
}

// createConfirmation is what a person sees before a create with its own path, or one
// that runs a command an agent sent.
func createConfirmation(r core.CreateRequest, c *core.CreateSpec, baseShown string, showRun bool, warnings []string) *core.Confirmation {
	conf := &core.Confirmation{Title: "Create a worktree at this path?"}
	if !c.Explicit {
		conf.Title = "Create a worktree and run this command in it?"
	}
	conf.Add("branch", r.Branch)
	conf.Add("base", baseShown)
	if c.Explicit {
		conf.Add("path", *r.Path)
	} else {
		conf.Add("path", c.Path.String())
	}
	if showRun {
		conf.Add("run (sh -c)", c.Run.Display)
		if r.Prompt != nil {
			conf.Add("prompt", *r.Prompt)
		}
	}
	if c.Claim {
		conf.Add("claim for", c.Session.String())
	}
	conf.Warnings = warnings
	return conf
}

func runCreate(s *core.Env, ctx context.Context, c *core.CreateSpec, before core.Snapshot, warnings []string) (*core.Outcome, error) {
	pre := createPreState(s, ctx, c)
	if c.Run != nil {
		c.Run.Started = time.Now()
	}
	ws, runErr := s.Backend.Create(ctx, c)
	if runErr != nil {
		return nil, failedCreate(s, ctx, c, before, pre, runErr)
	}
	t, listed, _, err := removal.ReadBackAdded(s, ctx, c.Path.String())
	if err != nil {
		return nil, core.Uncertain(core.CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", core.Escape(c.Path.String()))
	}
	switch {
	case !listed:
		return nil, core.Uncertain(core.CodeCreateNotListed, nil, "run `copse list`; do not retry blindly",
			"create reported success but git does not list %s", core.Escape(c.Path.String()))
	case t.Branch != c.Branch.String():
		return nil, core.Uncertain(core.CodeCreateWrongBranch, nil, "inspect the worktree before using it",
			"git lists %s on %s, not on branch %s", core.Escape(c.Path.String()), core.Describe(t), core.Escape(c.Branch.String()))
	case t.Head != c.Base.OID:
		return nil, core.Uncertain(core.CodeCreateWrongCommit, nil, "inspect the worktree before using it",
			"git lists %s at %s, not at %s (%s)", core.Escape(c.Path.String()), core.Short(t.Head), core.Short(c.Base.OID), core.Escape(c.Base.Ref))
	case !core.Exists(c.Path.String()):
		return nil, core.Uncertain(core.CodeCreateNoDirectory, nil, "run git worktree prune if the directory is really gone",
			"git lists %s but the directory does not exist", core.Escape(c.Path.String()))
	}
	s.RefreshAfterCheckout(t.Path)
	var notices []string
	if c.Remote != nil {
		if err := s.TrackRemote(ctx, c); err != nil {
			return nil, err
		}
		// What copse did, as asked: information, not a warning.
		notices = append(notices, "created branch "+core.Escape(c.Branch.String())+" from "+core.Escape(c.Remote.String())+" (tracking it)")
	}
	row := s.Row(t, ws)
	if w := recordCreate(s, ctx, c, row); w != "" {
		warnings = append(warnings, w)
	}
	return &core.Outcome{Operation: core.OpCreate, Worktree: row, Path: t.Path, WorkspaceID: ws, Base: c.StartBase(), Warnings: warnings, Notices: notices}, nil
}
