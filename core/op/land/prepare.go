package land

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/landjobs"
	"github.com/copse-dev/copse/core/removal"
	"github.com/copse-dev/copse/gitx"
)

// Defaults of the land settings (git config copse.testTimeout, copse.landRetries).
const (
	defaultTestTimeout = 10 * time.Minute
	defaultLandRetries = 3
	maxTestCommand     = 4096
)

// landCmd is a parsed land request: every value checked, the worktree read from git.
type landCmd struct {
	target       gitx.Worktree
	id           string
	into         core.BranchName
	test         string // "" = no gate
	testFrom     string // where test comes from (GateFrom…), for the dry run's steps
	timeout      time.Duration
	retries      int
	keep         bool
	forceRestart bool
	wait         bool
	dryRun       bool                // check and describe only: nothing queued, nothing run
	expected     *string             // expected_state_token
	session      string              // the landing session ("" when none is known)
	takeOver     *core.Claim         // another session's claim the request was approved to take over
	owner        *core.LivenessOwner // set when queued: the liveness token of a job this process waits for
}

func prepareLand(s *core.Env, ctx context.Context, r core.LandRequest, snap core.Snapshot) (*core.Plan, error) {
	t, err := landTarget(s, ctx, r, snap)
	if err != nil {
		return nil, err
	}
	if err := core.CheckEnterable(t); err != nil {
		return nil, err
	}
	if e := core.RuleLandable(t, snap); e != nil {
		return nil, e
	}
	c := &landCmd{target: t, keep: r.Keep, forceRestart: r.ForceRestart, wait: r.Wait, dryRun: r.DryRun, expected: r.ExpectedStateToken}
	sess, _, err := core.ResolveSession(r.Session, s.Opts.Getenv)
	if err != nil {
		return nil, err
	}
	c.session = sess.String()
	if c.takeOver, err = landClaimVerdict(s.WithoutEndedClaim(t), c.session, r.ForceClaim); err != nil {
		return nil, err
	}
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	c.id = core.IdOf(core.WorktreeIDs(commonDir), t.Path)
	if r.Into != nil {
		if c.into, err = s.ParseBranch(ctx, "into", *r.Into); err != nil {
			return nil, err
		}
	} else if c.into, err = defaultInto(core.RecordedInto(commonDir, c.id), snap.Trees[0]); err != nil {
		return nil, err
	}
	if e := core.RuleIntoOtherBranch(t, c.into); e != nil {
		return nil, e
	}
	if ok, err := s.Git.BranchExists(ctx, s.Root(), c.into.String()); err != nil {
		return nil, core.GitFailure(core.CodeBranchLookupFailed, err, "cannot check the target branch")
	} else if !ok {
		return nil, core.Refused(core.CodeTargetMissing, "create it, or pass another --into",
			"the target branch %s does not exist", core.Escape(c.into.String()))
	}
	if err := notQueued(s, ctx, commonDir, t.Path, r.DryRun); err != nil {
		return nil, err
	}
	if err := landSettings(s, ctx, r, c); err != nil {
		return nil, err
	}
	if err := preflight(s, ctx, c, commonDir, false); err != nil {
		return nil, err
	}
	if err := noGateLeft(s, commonDir, t.Path); err != nil {
		return nil, err
	}
	return &core.Plan{Request: r, Cmd: c, Confirm: landConfirmation(ctx, r, c)}, nil
}

// landTarget is the worktree a land names by exactly one of path, branch or id; a
// worktree mid-rebase is found by the branch it is rebasing, and lands as that branch.
func landTarget(s *core.Env, ctx context.Context, r core.LandRequest, snap core.Snapshot) (gitx.Worktree, error) {
	n := 0
	for _, v := range []*string{r.Path, r.Branch, r.ID} {
		if v != nil {
			n++
		}
	}
	if n != 1 {
		return gitx.Worktree{}, core.Usage(core.CodeExactlyOne, "target", "name the worktree by exactly one of path, branch or id",
			"land needs exactly one of path, branch or id, got %d", n)
	}
	var (
		t   gitx.Worktree
		err error
	)
	if r.ID != nil {
		t, err = s.WorktreeOfID(ctx, snap, *r.ID)
	} else {
		t, _, err = s.ResolveTarget(ctx, snap, r.Path, r.Branch, nil)
		if e := core.AsError(err); r.Branch != nil && e != nil && e.Code == core.CodeNoSuchWorktree {
			// A worktree in the middle of rebasing the branch is listed as detached.
			for _, cand := range snap.Trees {
				if !cand.Bare && cand.Detached && core.RebasingBranch(cand) == *r.Branch {
					t, err = cand, nil
				}
			}
		}
	}
	if err != nil {
		return gitx.Worktree{}, err
	}
	if t.Branch == "" && !t.Bare {
		t.Branch = core.RebasingBranch(t)
	}
	return t, nil
}

// landClaimVerdict decides on another session's claim on t: a land from session refuses
// it unless force, and then takes it over (the claim returned; nil when there is none to
// take over).
func landClaimVerdict(t gitx.Worktree, session string, force bool) (*core.Claim, error) {
	held := core.ClaimOf(t.Locked)
	if held == nil || held.Session == session {
		return nil, nil
	}
	if !force {
		return nil, core.ForceHelps(core.Refused(core.CodeClaimedByOther,
			"land it from that session (or after it releases the claim), or pass --force-claim (request field force_claim) to take the claim over (asks first)",
			"%s (%s) is claimed by session %s since %s", core.Escape(t.Path), core.Describe(t), held.Session, held.Since.Format(time.RFC3339)))
	}
	return held, nil
}

// defaultInto is the branch a land goes into when none is named: the one the worktree was
// created from (recorded, as DESIGN says), else the main checkout's.
func defaultInto(recorded string, main gitx.Worktree) (core.BranchName, error) {
	if recorded != "" {
		return core.GitsBranch(recorded), nil
	}
	if main.Bare || main.Branch == "" {
		return core.BranchName{}, core.Usage(core.CodeNoDefaultTarget, "into", "pass --into BRANCH",
			"the main checkout has no branch checked out, so there is no default target")
	}
	return core.GitsBranch(main.Branch), nil
}

// landConfirmation is what a person must approve before a land runs (nil when nothing):
// taking over another session's claim, and a test command that came in a request, shown
// verbatim (escaped, one line) so the approval covers exactly that command. A test from
// git config copse.test was set by the repository's owner and needs no approval.
func landConfirmation(ctx context.Context, r core.LandRequest, c *landCmd) *core.Confirmation {
	agentCommand := r.Test != nil && !core.TypedByPerson(ctx)
	if r.DryRun || (c.takeOver == nil && !agentCommand) {
		return nil
	}
	conf := &core.Confirmation{Title: "Land this worktree?"}
	if c.takeOver != nil {
		conf.Title = "Land this worktree, taking over its claim (forced)?"
	}
	conf.Add("path", c.target.Path)
	if c.target.Branch != "" {
		conf.Add("branch", c.target.Branch)
	}
	conf.Add("into", c.into.String())
	if agentCommand {
		conf.Add("test (sh -c)", *r.Test)
	}
	if c.session != "" {
		conf.Add("session", c.session)
	}
	if c.takeOver != nil {
		conf.Losses = append(conf.Losses, fmt.Sprintf("session %s holds it since %s and loses its claim",
			c.takeOver.Session, c.takeOver.Since.Format(time.RFC3339)))
	}
	return conf
}

// notQueued refuses a second land of a worktree that already has one queued or running.
// A dry run (which holds no lock) only reads: a job whose owner is gone does not count, as
// the real land would mark it abandoned first.
func notQueued(s *core.Env, ctx context.Context, commonDir, path string, dry bool) error {
	dir := landjobs.Dir(commonDir)
	var jobs []core.LandJob
	var err error
	if dry {
		jobs, err = core.ReadJobs(dir)
		if err != nil {
			return core.Failed(core.CodeLandQueueUnreadable, err, "", "cannot read the land queue")
		}
	} else if jobs, err = s.ReadQueue(ctx, dir, true); err != nil { // prepare holds the repository lock
		return err
	}
	cp := core.Canonical(path)
	for _, j := range jobs {
		if dry && j.Owned && !j.State.Finished() && core.OwnerGone(dir, j.Job) {
			continue
		}
		if !j.State.Finished() && core.Canonical(j.Worktree.Path) == cp {
			return core.Refused(core.CodeAlreadyQueued, "wait for it (`copse land status "+j.Job+"`), or cancel the process that waits for it",
				"%s already has a land %s: %s (%s)", core.Escape(path), j.State, j.Job, j.Phase)
		}
	}
	return nil
}

// landSettings reads the test command, its timeout and the retry count (flags win over
// git config copse.test, copse.testTimeout, copse.landRetries).
func landSettings(s *core.Env, ctx context.Context, r core.LandRequest, c *landCmd) error {
	// One git process for the three settings; git prints the keys lower-cased.
	cfg, err := s.Git.ConfigMatching(ctx, s.Root(), `^copse\.(test|testtimeout|landretries)$`)
	if err != nil {
		return core.GitFailure(core.CodeConfigFailed, err, "cannot read git config copse.*")
	}
	raw, field, from := "", "test", core.GateFromRequest
	if r.Test != nil {
		raw = *r.Test
	} else if v := strings.TrimSpace(cfg["copse.test"]); v != "" {
		raw, field, from = v, "copse.test", core.GateFromGitConfig
	} else if v, err := s.ProjectTest(ctx); err != nil {
		return err
	} else if v != "" {
		// The repository's committed test command is code a clone brings along: it gates a
		// land only once a person approved its exact text (copse approve).
		missing, err := s.Unapproved([]string{v})
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return core.Refused(core.CodeProjectCommandUnapproved,
				"a person approves it at a terminal with `copse approve` (agents cannot), or the land names its own test with --test",
				"%s asks to run the test command %s, which no one approved on this machine; nothing ran", core.ProjectConfigFile, core.Quote(v))
		}
		raw, field, from = v, "copse.test", core.GateFromProject
	}
	if raw != "" || r.Test != nil {
		if err := core.CheckText(field, raw, maxTestCommand); err != nil {
			return err
		}
		c.test, c.testFrom = raw, from
	}
	c.timeout = defaultTestTimeout
	if v, ok := cfg["copse.testtimeout"]; ok {
		d, perr := core.ParseSpan(v, core.TimeoutRule)
		if perr != nil {
			return core.SpanError(core.CodeBadConfig, "copse.testTimeout", v, core.TimeoutRule, perr, "set a duration such as 10m or 90s: git config copse.testTimeout 10m")
		}
		c.timeout = d
	}
	c.retries = defaultLandRetries
	if v, ok := cfg["copse.landretries"]; ok {
		n, perr := strconv.Atoi(strings.TrimSpace(v))
		if perr != nil || n < 0 || n > 100 {
			return core.Usage(core.CodeBadConfig, "copse.landRetries", "set a count from 0 to 100: git config copse.landRetries 3",
				"git config copse.landRetries is %s, which is not a count from 0 to 100", core.Quote(v))
		}
		c.retries = n
	}
	return nil
}

// preflight checks the worktree to land: no operation in progress, clean (untracked files
// included). A rebase left open is refused, unless force-restart is asked and a land job's
// record proves copse started it; with abort set (at the head of the queue, under the
// repository lock) that rebase is then aborted. Prepare calls it with abort unset, so it
// changes nothing.
func preflight(s *core.Env, ctx context.Context, c *landCmd, commonDir string, abort bool) error {
	w := c.target.Path
	gd, err := gitx.WorktreeGitDir(w)
	if err != nil {
		return core.Failed(core.CodeWorktreeUnreadable, err, "check the worktree directory", "cannot find the git directory of %s", core.Escape(w))
	}
	rb, err := gitx.ReadRebase(gd)
	if err != nil {
		return core.Failed(core.CodeWorktreeUnreadable, err, "", "cannot read the rebase state of %s", core.Escape(w))
	}
	if rb != nil {
		conflicts, _ := s.Git.Conflicted(ctx, w)
		if !c.forceRestart {
			msg := "a rebase is in progress in " + core.Escape(w)
			if len(conflicts) > 0 {
				msg += " with unresolved conflicts in " + listPaths(conflicts)
			}
			return core.Refused(core.CodeRebaseInProgress,
				"resolve the conflicts, git add them and git rebase --continue, then land again; or land with --force-restart to abort a rebase an earlier land started",
				"%s", msg)
		}
		ours, err := rebaseIsOurs(s, commonDir, w, rb)
		if err != nil {
			return err
		}
		if ours == nil {
			return core.Refused(core.CodeRebaseNotOurs, "finish it (git rebase --continue) or abort it yourself (git rebase --abort), then land again",
				"the rebase in progress in %s was not started by a copse land (its head-name, orig-head and onto match no land record); copse aborts only its own",
				core.Escape(w))
		}
		// Checked when asked and again at the head of the queue, right before the abort.
		if err := ruleRestartAbortsNothingMade(s, ctx, w, ours); err != nil {
			return err
		}
		if abort {
			cmd, err := gitx.RebaseAbort(w)
			if err != nil {
				return core.BuilderErr(err)
			}
			if _, err := s.Git.Run(ctx, cmd); err != nil {
				return core.GitFailure(core.CodeRebaseAbortFailed, err, "cannot abort the rebase copse started")
			}
			if again, _ := gitx.ReadRebase(gd); again != nil {
				return core.Failed(core.CodeRebaseAbortFailed, nil, "abort it by hand: git -C "+core.QuoteDisplay(w)+" rebase --abort",
					"git rebase --abort ran but a rebase is still in progress in %s", core.Escape(w))
			}
		} else {
			return nil // at the head it will be aborted; the tree is then clean again
		}
	}
	op, err := gitx.Operation(gd)
	if err != nil {
		return core.Failed(core.CodeWorktreeUnreadable, err, "", "cannot read the state of %s", core.Escape(w))
	}
	if op != "" {
		return core.Refused(core.CodeOperationInProgress, "finish or abort the "+op+" first, then land again",
			"a %s is in progress in %s", op, core.Escape(w))
	}
	dirty, err := s.Git.DirtyPaths(ctx, w)
	if err != nil {
		return core.GitFailure(core.CodeStatusFailed, err, "cannot read the status of "+core.Escape(w))
	}
	if len(dirty) > 0 {
		return core.Refused(core.CodeWorktreeDirty, "commit (or remove) them first; land moves only committed work",
			"%s has uncommitted changes or untracked files: %s", core.Escape(w), listPaths(dirty))
	}
	// The answer remove and land's clean-up decide on sees what git status does not: an
	// assume-unchanged or skip-worktree file that differs, a change a file-system monitor
	// hides. That is uncommitted work too, and the clean-up would keep the worktree for it.
	l := removal.Losses(s, ctx, c.target)
	switch {
	case l.Status.Error != "":
		return core.Failed(core.CodeStatusFailed, nil, "", "cannot tell what %s holds: %s", core.Escape(w), l.Status.Error)
	case l.Status.Dirty():
		return core.Refused(core.CodeWorktreeDirty, "commit (or remove) them first; land moves only committed work",
			"%s has uncommitted changes git status does not show here: %s", core.Escape(w), l.Changes())
	case len(l.Hidden) > 0:
		return core.Refused(core.CodeWorktreeDirty, "commit them first (git update-index --no-assume-unchanged / --no-skip-worktree shows them to git status); land moves only committed work",
			"%s has %s git status does not show (assume-unchanged or skip-worktree): %s",
			core.Escape(w), core.Plural(len(l.Hidden), "changed file"), core.Sample(l.Hidden, len(l.Hidden)))
	}
	return nil
}

// rebaseIsOurs is the rebase a land job record of this worktree describes exactly as the
// one in progress (same head-name, orig-head and onto), the latest such; nil when none does.
func rebaseIsOurs(s *core.Env, commonDir, w string, rb *gitx.RebaseState) (*core.LandRebase, error) {
	jobs, err := core.ReadJobs(landjobs.Dir(commonDir))
	if err != nil {
		return nil, core.Failed(core.CodeLandQueueUnreadable, err, "", "cannot read the land queue")
	}
	var ours *core.LandRebase
	cw := core.Canonical(w)
	for _, j := range jobs {
		if j.Rebase == nil || !j.State.Finished() || core.Canonical(j.Worktree.Path) != cw {
			continue
		}
		if j.Rebase.HeadName == rb.HeadName && j.Rebase.OrigHead == rb.OrigHead && j.Rebase.Onto == rb.Onto {
			ours = j.Rebase // jobs are read oldest first: the latest match counts
		}
	}
	return ours, nil
}

// listPaths shows at most a few paths, escaped.
func listPaths(paths []string) string {
	const show = 5
	var parts []string
	for i, p := range paths {
		if i == show {
			parts = append(parts, "and "+strconv.Itoa(len(paths)-show)+" more")
			break
		}
		parts = append(parts, core.Escape(p))
	}
	return strings.Join(parts, ", ")
}
