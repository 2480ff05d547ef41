package core

import (
	"context"
	"time"
)

var CreateOp = &Op{
	Name:     OpCreate,
	Doc:      "create a worktree (and its branch unless it exists)",
	Approval: ApprovalExecute,
	Request:  CreateRequest{},
	// A path the caller chose is a place on disk a person should see first; a command to
	// run is a shell command an agent may have chosen, as land's test (one a person typed,
	// or git config copse.run, is not asked again); so is a prompt for that command.
	Confirms: RuleOf(func(r CreateRequest) bool { return r.Path != nil || r.Run != nil || r.Prompt != nil }),
	Prepare:  PrepareAs((*Env).prepareCreate),
	// The base is resolved to a commit when prepared; a branch that moved since is a
	// different create than the one asked for.
	Recheck: func(asked, fresh Command) error {
		old, okOld := asked.(*createCmd)
		c, ok := fresh.(*createCmd)
		if okOld && ok && old.base.OID != c.base.OID {
			return refused(CodeBaseMoved, "run the create again to start from the new commit",
				"%s moved from %s to %s after it was checked; nothing ran", Escape(c.base.Ref), short(old.base.OID), short(c.base.OID))
		}
		return nil
	},
	Run: func(s *Env, ctx context.Context, x *Execution) (*Outcome, error) {
		return s.runCreateClaim(ctx, x.Plan.Cmd.(*createCmd), x)
	},
	// A command started with --run that ends within a second did not start: said in the
	// reply, after the lock is released (the wrapper takes it to release its claim).
	Settle: func(s *Env, ctx context.Context, x *Execution, out *Outcome) (*Outcome, error) {
		c := x.Plan.Cmd.(*createCmd)
		if c.run == nil || !c.run.wrapped || out == nil {
			return out, nil
		}
		if w := s.quickEnd(ctx, c.run.session, out.Path, c.run.started); w != "" {
			out.Warnings = append(out.Warnings, w)
			for _, cl := range []*Claim{out.Claim, claimOfRow(out.Worktree)} {
				if cl != nil {
					cl.Ended = true
				}
			}
		}
		return out, nil
	},
}

func claimOfRow(w *Worktree) *Claim {
	if w == nil {
		return nil
	}
	return w.Claim
}

// createdEvents are the events of a create that happened (and of its claim, if taken).
func createdEvents(x *Execution, out *Outcome) {
	ev := Event{Event: EventCreated, Commit: out.Worktree.Head}
	if out.Claim != nil {
		ev.Session = out.Claim.Session
	}
	x.Emit(ev, out.Worktree)
	if out.Claim != nil {
		x.Emit(Event{Event: EventClaimed, Session: out.Claim.Session}, out.Worktree)
	}
}

func (s *Env) prepareCreate(ctx context.Context, r CreateRequest, snap Snapshot) (*Plan, error) {
	if err := checkText("branch", r.Branch, maxBranch); err != nil {
		return nil, err
	}
	src, err := s.resolveCreateBranch(ctx, r.Branch, r.Base != nil)
	if err != nil {
		return nil, err
	}
	branch := src.branch
	c := &createCmd{branch: branch, cwd: s.Root(), focus: r.Focus}
	var warnings []string
	if r.Label != nil {
		if c.label, err = ParseLabel(*r.Label); err != nil {
			return nil, err
		}
	}
	if !s.Backend.HasWorkspaces() && (r.Label != nil || r.Focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if e := ruleBranchFree(branch, snap); e != nil {
		return nil, e
	}
	if src.source == CreateAmbiguous {
		return nil, ambiguousRemote(src)
	}
	baseShown, baseWarnings, err := s.createBase(ctx, r, src, c, snap)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, baseWarnings...)
	if r.Path != nil {
		if c.path, err = ParseAbsPath("path", *r.Path); err != nil {
			return nil, err
		}
		c.explicit = true
	} else if c.path, err = s.defaultPath(ctx, branch); err != nil {
		return nil, err
	}
	if err := s.checkNewPath(ctx, snap, c.path); err != nil {
		return nil, err
	}
	runFromRequest, runWarnings, err := s.prepareRun(ctx, r, c)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, runWarnings...)
	if c.run != nil {
		// The session started there claims the worktree (see create_run.go).
		r.Claim = true
		if r.Session == nil {
			sess := runSession(branch)
			r.Session = &sess
		}
	}
	cmds, err := s.createCommands(c)
	if err != nil {
		return nil, err
	}
	if cmds, err = s.prepareCreateClaim(r, c, cmds); err != nil {
		return nil, err
	}
	p := &Plan{Request: r, Cmd: c, Commands: cmds, Warnings: warnings}
	if askRun := runFromRequest && !typedByPerson(ctx); c.explicit || askRun {
		// A confirmation shows the command it starts, whoever typed it: the person
		// confirms the whole create.
		p.Confirm = createConfirmation(r, c, baseShown, runFromRequest && c.run != nil, warnings)
	}
	return p, nil
}

// createBase decides where the new checkout starts: the existing branch's tip, the
// remote-tracking branch, or a base (requested, copse.base, else the main checkout's
// branch). It returns how the confirmation shows it.
func (s *Env) createBase(ctx context.Context, r CreateRequest, src branchSource, c *createCmd, snap Snapshot) (string, []string, error) {
	branch := c.branch
	var warnings []string
	baseShown := "(existing branch)"
	switch src.source {
	case CreateExisting:
		if e := ruleNoBaseForExisting(branch, r.Base != nil); e != nil {
			return "", nil, e
		}
		c.existing = true
		// Record the tip now so the postcondition can tell the checkout is that commit.
		tip, err := s.parseBase(ctx, "refs/heads/"+branch.s)
		if err != nil {
			return "", nil, err
		}
		c.base = tip
	case CreateFromRemote:
		// The commit is the remote branch's as checked now; Execute compares it under the
		// lock and the postcondition checks the checkout is exactly it.
		c.remote = src.remote
		c.base = BaseCommit{Ref: src.remote.String(), OID: src.remote.OID}
		c.baseFrom = BaseFromRemote
		baseShown = src.remote.String() + " (tracking it)"
	default:
		// Without --base: copse.base, else the main checkout's branch, never this
		// worktree's HEAD (see defaultBase).
		var (
			ch  baseChoice
			err error
		)
		if r.Base != nil {
			ch, err = s.requestedBase(ctx, *r.Base)
		} else {
			ch, err = s.defaultBase(ctx, snap)
		}
		if err != nil {
			return "", nil, err
		}
		c.base, c.baseBranch, c.baseFrom = ch.base, ch.branch, ch.from
		if ch.warning != "" {
			warnings = append(warnings, ch.warning)
		}
		baseShown = c.startBase().Describe()
	}
	return baseShown, warnings, nil
}

// createConfirmation is what a person sees before a create with its own path, or one
// that runs a command an agent sent.
func createConfirmation(r CreateRequest, c *createCmd, baseShown string, showRun bool, warnings []string) *Confirmation {
	conf := &Confirmation{Title: "Create a worktree at this path?"}
	if !c.explicit {
		conf.Title = "Create a worktree and run this command in it?"
	}
	conf.Add("branch", r.Branch)
	conf.Add("base", baseShown)
	if c.explicit {
		conf.Add("path", *r.Path)
	} else {
		conf.Add("path", c.path.s)
	}
	if showRun {
		conf.Add("run (sh -c)", c.run.display)
		if r.Prompt != nil {
			conf.Add("prompt", *r.Prompt)
		}
	}
	if c.claim {
		conf.Add("claim for", c.session.String())
	}
	conf.Warnings = warnings
	return conf
}

func (s *Env) runCreate(ctx context.Context, c *createCmd, before Snapshot, warnings []string) (*Outcome, error) {
	pre := s.createPreState(ctx, c)
	if c.run != nil {
		c.run.started = time.Now()
	}
	ws, runErr := s.Backend.Create(ctx, c)
	if runErr != nil {
		return nil, s.failedCreate(ctx, c, before, pre, runErr)
	}
	t, listed, _, err := s.readBackAdded(ctx, c.path.s)
	if err != nil {
		return nil, Uncertain(CodeCreateUnverified, err, "run `copse list` to see what exists",
			"create of %s ran, but the worktree list could not be read back", Escape(c.path.s))
	}
	switch {
	case !listed:
		return nil, Uncertain(CodeCreateNotListed, nil, "run `copse list`; do not retry blindly",
			"create reported success but git does not list %s", Escape(c.path.s))
	case t.Branch != c.branch.s:
		return nil, Uncertain(CodeCreateWrongBranch, nil, "inspect the worktree before using it",
			"git lists %s on %s, not on branch %s", Escape(c.path.s), describe(t), Escape(c.branch.s))
	case t.Head != c.base.OID:
		return nil, Uncertain(CodeCreateWrongCommit, nil, "inspect the worktree before using it",
			"git lists %s at %s, not at %s (%s)", Escape(c.path.s), short(t.Head), short(c.base.OID), Escape(c.base.Ref))
	case !exists(c.path.s):
		return nil, Uncertain(CodeCreateNoDirectory, nil, "run git worktree prune if the directory is really gone",
			"git lists %s but the directory does not exist", Escape(c.path.s))
	}
	s.refreshAfterCheckout(t.Path)
	var notices []string
	if c.remote != nil {
		if err := s.trackRemote(ctx, c); err != nil {
			return nil, err
		}
		// What copse did, as asked: information, not a warning.
		notices = append(notices, "created branch "+Escape(c.branch.s)+" from "+Escape(c.remote.String())+" (tracking it)")
	}
	row := s.Row(t, ws)
	if w := s.recordCreate(ctx, c, row); w != "" {
		warnings = append(warnings, w)
	}
	return &Outcome{Operation: OpCreate, Worktree: row, Path: t.Path, WorkspaceID: ws, Base: c.startBase(), Warnings: warnings, Notices: notices}, nil
}
