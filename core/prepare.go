package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/tmux"
)

func (s *service) prepare(ctx context.Context, req Request) (*Plan, error) {
	if !readOnly(req) && req != nil {
		// Checks of a mutation wait for any mutation under way (in this process or
		// another copse), so they never see a half-made worktree and refuse it for the
		// wrong reason. Execute checks again under the lock before it runs anything.
		unlock, err := s.lockExisting(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	snap, err := s.readAndLearn(ctx)
	if err != nil {
		return nil, err
	}
	return s.prepareWith(ctx, req, snap)
}

// lock takes the repository lock (in-process mutex plus the file lock in the git common dir).
func (s *service) lock(ctx context.Context) (func(), error) {
	cd, err := s.commonDir(ctx)
	if err != nil {
		return nil, err
	}
	return s.lockRepo(ctx, cd, true)
}

// readAndLearn lists the worktrees and updates what the service knows of the repository.
func (s *service) readAndLearn(ctx context.Context) (snapshot, error) {
	snap, err := s.read(ctx)
	if err == nil {
		s.learn(snap)
	}
	return snap, err
}

// prepareWith parses req against one snapshot of git's worktree list. It changes nothing.
func (s *service) prepareWith(ctx context.Context, req Request, snap snapshot) (*Plan, error) {
	var (
		p   *Plan
		err error
	)
	// Bad input first: a malformed token is refused before any check of the state.
	if exp := expectedToken(req); exp != nil {
		if err := checkToken(*exp); err != nil {
			return nil, err
		}
	}
	orig := req // the plan keeps the request as asked (an id stays an id for Execute's re-check)
	if req, ctx, err = s.resolveIDs(ctx, req, snap); err != nil {
		return nil, err
	}
	switch r := req.(type) {
	case ListRequest:
		p = &Plan{Request: r, cmd: listCmd{withStatus: r.Status}}
	case CreateRequest:
		p, err = s.prepareCreate(ctx, r, snap)
	case OpenRequest:
		p, err = s.prepareTarget(ctx, r, OpOpen, r.Path, r.Branch, r.Label, r.Focus, snap)
	case SwitchRequest:
		p, err = s.prepareTarget(ctx, r, OpSwitch, r.Path, r.Branch, nil, true, snap)
	case BackRequest:
		p, err = s.prepareBack(ctx, r, snap)
	case RemoveRequest:
		p, err = s.prepareRemove(ctx, r, snap)
	case LandRequest:
		p, err = s.prepareLand(ctx, r, snap)
	case LandStatusRequest:
		p, err = s.prepareLandStatus(r)
	case ClaimRequest, ReleaseRequest:
		p, err = s.prepareClaim(ctx, r, snap)
	case PruneRequest:
		p, err = s.preparePrune(ctx, r, snap)
	case RestoreRequest:
		p, err = s.prepareRestore(ctx, r, snap)
	case nil:
		return nil, usage(CodeMissingOperation, "operation", "name one of: list, create, open, switch, remove, back", "no request")
	default:
		return nil, usage(CodeUnknownOperation, "operation", "name one of: list, create, open, switch, remove, back", "unknown request %T", req)
	}
	if err != nil {
		return nil, err
	}
	p.Request = orig
	p.ListToken, p.Token = snap.token, snap.token
	if p.Confirm != nil {
		p.Token = p.Confirm.digest(snap.token)
		p.Confirm.Token = p.Token
	}
	if exp := expectedToken(req); exp != nil && *exp != string(p.Token) && *exp != string(snap.token) {
		return nil, staleToken(*exp)
	}
	return p, nil
}

// checkToken: a state token is what copse handed out, 24 lower-case hex digits.
func checkToken(raw string) error {
	const field = "expected_state_token"
	if err := checkText(field, raw, 64); err != nil {
		return err
	}
	if len(raw) != 24 || strings.Trim(raw, "0123456789abcdef") != "" {
		return usage(CodeBadStateToken, field, "send the state_token exactly as list or needs_approval returned it",
			"%s %s is not a state token copse handed out", field, quote(raw))
	}
	return nil
}

// staleToken refuses a request whose expected_state_token no longer describes the state.
func staleToken(exp string) *Error {
	return refused(CodeStaleState, "list again (or ask again) and send the new state_token; nothing ran",
		"the state changed since state_token %s was read; nothing ran", quote(exp))
}

// parseBranch checks raw, then lets git say whether it is a branch name and what it names
// (`@{-1}` becomes the branch it refers to); the name git prints back is the one used.
func (s *service) parseBranch(ctx context.Context, field, raw string) (BranchName, error) {
	if err := checkText(field, raw, maxBranch); err != nil {
		return BranchName{}, err
	}
	name, err := s.git.ResolveBranchName(ctx, s.at(), raw)
	if err != nil {
		if refusedByGit(err) {
			return BranchName{}, usage(CodeInvalidBranch, field, "pick a valid branch name (see git help check-ref-format)",
				"%s %s is not a valid branch name", field, quote(raw))
		}
		return BranchName{}, gitFailure(CodeCheckBranchFailed, err, "cannot check the branch name")
	}
	if err := checkText(field, name, maxBranch); err != nil {
		return BranchName{}, err
	}
	// git accepts these as branch names, but each also means HEAD to git: a branch so
	// named would make later commands ambiguous.
	if name == "@" || name == "HEAD" {
		return BranchName{}, usage(CodeInvalidBranch, field, "pick another name", "%s %s is git's name for HEAD, not a usable branch", field, quote(name))
	}
	return BranchName{name}, nil
}

// parseBase resolves raw to a commit now; the OID travels with the command.
func (s *service) parseBase(ctx context.Context, raw string) (BaseCommit, error) {
	if err := checkText("base", raw, maxRef); err != nil {
		return BaseCommit{}, err
	}
	oid, err := s.git.ResolveCommit(ctx, s.at(), raw)
	if err != nil {
		if refusedByGit(err) {
			return BaseCommit{}, usage(CodeUnknownBase, "base", "name an existing branch, tag or commit (git log --oneline shows some)",
				"base %s does not name a commit", quote(raw))
		}
		return BaseCommit{}, gitFailure(CodeResolveBaseFailed, err, "cannot resolve the base")
	}
	return BaseCommit{Ref: raw, OID: oid}, nil
}

// at is the directory the session is in: where relative refs (HEAD, @{-1}) are read.
func (s *service) at() string {
	if s.current() != "" {
		return s.current()
	}
	return s.dir
}

func (s *service) prepareCreate(ctx context.Context, r CreateRequest, snap snapshot) (*Plan, error) {
	if err := checkText("branch", r.Branch, maxBranch); err != nil {
		return nil, err
	}
	src, err := s.resolveCreateBranch(ctx, r.Branch, r.Base != nil)
	if err != nil {
		return nil, err
	}
	branch := src.branch
	c := &createCmd{branch: branch, cwd: s.root(), focus: r.Focus}
	var warnings []string
	if r.Label != nil {
		if c.label, err = ParseLabel(*r.Label); err != nil {
			return nil, err
		}
	}
	if !s.backend.hasWorkspaces() && (r.Label != nil || r.Focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if e := ruleBranchFree(branch, snap); e != nil {
		return nil, e
	}
	if src.source == CreateAmbiguous {
		return nil, ambiguousRemote(src)
	}
	baseShown := "(existing branch)"
	switch src.source {
	case CreateExisting:
		if e := ruleNoBaseForExisting(branch, r.Base != nil); e != nil {
			return nil, e
		}
		c.existing = true
		// Record the tip now so the postcondition can tell the checkout is that commit.
		tip, err := s.parseBase(ctx, "refs/heads/"+branch.s)
		if err != nil {
			return nil, err
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
		var ch baseChoice
		if r.Base != nil {
			ch, err = s.requestedBase(ctx, *r.Base)
		} else {
			ch, err = s.defaultBase(ctx, snap)
		}
		if err != nil {
			return nil, err
		}
		c.base, c.baseBranch, c.baseFrom = ch.base, ch.branch, ch.from
		if ch.warning != "" {
			warnings = append(warnings, ch.warning)
		}
		baseShown = c.startBase().Describe()
	}
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
	p := &Plan{Request: r, cmd: c, Commands: cmds, Warnings: warnings}
	askRun := runFromRequest && !typedByPerson(ctx)
	if c.explicit || askRun {
		conf := &Confirmation{Title: "Create a worktree at this path?"}
		if !c.explicit {
			conf.Title = "Create a worktree and run this command in it?"
		}
		conf.add("branch", r.Branch)
		conf.add("base", baseShown)
		if c.explicit {
			conf.add("path", *r.Path)
		} else {
			conf.add("path", c.path.s)
		}
		if askRun {
			conf.add("run (sh -c)", c.run.display)
			if r.Prompt != nil {
				conf.add("prompt", *r.Prompt)
			}
		}
		if c.claim {
			conf.add("claim for", c.session.String())
		}
		conf.Warnings = warnings
		p.Confirm = conf
	}
	return p, nil
}

// defaultPath is <copse.root>/<slug> when git config copse.root is set, else
// <parent of main checkout>/<repo>.worktrees/<slug>.
func (s *service) defaultPath(ctx context.Context, b BranchName) (AbsPath, error) {
	root, ok, err := s.git.ConfigValue(ctx, s.root(), "copse.root")
	if err != nil {
		return AbsPath{}, gitFailure(CodeConfigFailed, err, "cannot read git config copse.root")
	}
	var dir string
	if ok {
		root = strings.TrimSpace(root)
		if !filepath.IsAbs(root) {
			return AbsPath{}, usage(CodeBadConfig, "copse.root", "set an absolute directory: git config copse.root /abs/dir",
				"git config copse.root is %s, which is not an absolute path", quote(root))
		}
		dir = filepath.Clean(root)
	} else {
		// A bare layout's "main" is repo.git: its worktrees go to repo.worktrees.
		name := strings.TrimSuffix(filepath.Base(s.root()), ".git")
		if name == "" {
			name = filepath.Base(s.root())
		}
		dir = filepath.Join(filepath.Dir(s.root()), name+".worktrees")
	}
	return ParseAbsPath("path", filepath.Join(dir, BranchSlug(b.s)))
}

// checkNewPath runs the rules for the path of a new worktree (create, restore).
func (s *service) checkNewPath(ctx context.Context, snap snapshot, p AbsPath) error {
	cd, err := s.commonDir(ctx)
	if err != nil {
		return err
	}
	if e := rulePathOutsideGitDir(p, cd); e != nil {
		return e
	}
	if e := rulePathOutsideWorktrees(p, snap); e != nil {
		return e
	}
	if e := rulePathFree(p); e != nil {
		return e
	}
	return nil
}

func describe(t gitx.Worktree) string {
	switch {
	case t.Bare:
		return "the bare repository"
	case t.Branch != "":
		return "branch " + Escape(t.Branch)
	default:
		return "detached at " + short(t.Head)
	}
}

func short(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// resolveTarget finds the one worktree a request names by path, branch or workspace id.
func (s *service) resolveTarget(ctx context.Context, snap snapshot, path, branch, ws *string) (gitx.Worktree, string, error) {
	n := 0
	for _, v := range []*string{path, branch, ws} {
		if v != nil {
			n++
		}
	}
	if n != 1 {
		names := "path or branch"
		if ws != nil || s.backend.hasWorkspaces() {
			names = "path, branch or workspace_id"
		}
		return gitx.Worktree{}, "", usage(CodeExactlyOne, "target", "name the worktree by exactly one of "+names,
			"expected exactly one of %s, got %d", names, n)
	}
	wsOf := map[string]string{}
	if s.backend.hasWorkspaces() {
		rows := s.rows(snap)
		if err := s.backend.annotate(ctx, rows); err != nil {
			return gitx.Worktree{}, "", err
		}
		for _, r := range rows {
			if r.WorkspaceID != nil {
				wsOf[r.Path] = *r.WorkspaceID
			}
		}
	}
	if t, ok := idTarget(ctx); ok {
		return t, wsOf[t.Path], nil // named by id: git's own record, whatever its path holds
	}
	switch {
	case path != nil:
		p, err := ParseAbsPath("path", *path)
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		cp := canonical(p.s)
		for _, t := range snap.trees {
			if canonical(t.Path) == cp {
				return t, wsOf[t.Path], nil
			}
		}
		return gitx.Worktree{}, "", refused(CodeNoSuchWorktree, "`copse list` shows the worktrees", "no worktree at %s", Escape(p.s))
	case branch != nil:
		b, err := s.parseBranch(ctx, "branch", *branch)
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		var found []gitx.Worktree
		for _, t := range snap.trees {
			if t.Branch == b.s {
				found = append(found, t)
			}
		}
		if len(found) > 1 {
			// `git worktree add -f` can check one branch out twice; a name that means two
			// worktrees means neither.
			return gitx.Worktree{}, "", refused(CodeBranchCheckedOutTwice, "name the worktree by its path instead",
				"branch %s is checked out in %d worktrees: %s and %s", Escape(b.s), len(found), Escape(found[0].Path), Escape(found[1].Path))
		}
		if len(found) == 1 {
			return found[0], wsOf[found[0].Path], nil
		}
		// A typo of a branch that is checked out is the likelier mistake: name it first.
		hint := "create one: `copse create " + quoteDisplay(b.s) + "`"
		if near := didYouMean(closeBranches(b.s, snap.trees)); near != "" {
			hint = near + "Otherwise " + hint
		}
		return gitx.Worktree{}, "", refused(CodeNoSuchWorktree, hint, "no worktree has branch %s checked out", Escape(b.s))
	default:
		id, err := WorkspaceID{*ws}, error(nil)
		if s.backend.name() != "tmux" || !tmux.IsWindowID(*ws) { // under tmux: a window id, @N
			id, err = ParseWorkspaceID(*ws)
		}
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		if !s.backend.hasWorkspaces() {
			return gitx.Worktree{}, "", usage(CodeNoWorkspaces, "workspace_id", "name the worktree by path or branch",
				"workspace ids exist only inside Herdr or tmux; this is the %s backend", s.backend.name())
		}
		for _, t := range snap.trees {
			if wsOf[t.Path] == id.s {
				return t, id.s, nil
			}
		}
		return gitx.Worktree{}, "", refused(CodeNoSuchWorkspace, "`copse list --json` shows workspace ids", "no worktree is open in workspace %s", id.s)
	}
}

func (s *service) prepareTarget(ctx context.Context, req Request, op Operation, path, branch, rawLabel *string, focus bool, snap snapshot) (*Plan, error) {
	t, ws, err := s.resolveTarget(ctx, snap, path, branch, nil)
	if err != nil {
		return nil, err
	}
	c := &targetCmd{operation: op, target: t, wsID: ws, focus: focus, cwd: s.root(), from: s.sessionAt()}
	var warnings []string
	if rawLabel != nil {
		if c.label, err = ParseLabel(*rawLabel); err != nil {
			return nil, err
		}
	}
	if !s.backend.hasWorkspaces() && op == OpOpen && (rawLabel != nil || focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr or tmux; ignored")
	}
	if err := checkEnterable(t); err != nil {
		return nil, err
	}
	if e := ruleNotAlreadyThere(op, s.backend.hasWorkspaces(), c.from, t); e != nil {
		return nil, e
	}
	warnings = append(warnings, s.leavingWarning(ctx, c)...)
	var cmds []string
	if op == OpOpen {
		cmds, err = s.backend.openCommands(c)
	} else {
		cmds, err = s.backend.switchCommands(c)
	}
	if err != nil {
		return nil, err
	}
	return &Plan{Request: req, cmd: c, Commands: cmds, Warnings: warnings}, nil
}

// checkEnterable runs the rules for a worktree one can open or switch to.
func checkEnterable(t gitx.Worktree) error {
	if e := ruleNotBare(t); e != nil {
		return e
	}
	if e := ruleNotPrunable(t); e != nil {
		return e
	}
	return nil
}

// leavingWarning: switching away from uncommitted work is allowed (it stays where it is),
// but the user hears about it.
func (s *service) leavingWarning(ctx context.Context, c *targetCmd) []string {
	if c.from == "" || canonical(c.from) == canonical(c.target.Path) {
		return nil
	}
	if _, err := os.Stat(c.from); err != nil {
		return nil
	}
	st := s.status(ctx, c.from)
	c.leaving = &st
	if st.Error == "" && st.Dirty() {
		return []string{fmt.Sprintf("%s has %s; they stay there", Escape(c.from), plural(st.Changes(), "uncommitted change"))}
	}
	return nil
}

func (s *service) prepareBack(ctx context.Context, r BackRequest, snap snapshot) (*Plan, error) {
	prev, ok := s.history.lookup(s.session, s.existsIn(snap))
	if e := ruleHasPrevious(ok); e != nil {
		return nil, e
	}
	p, err := s.prepareTarget(ctx, r, OpBack, &prev, nil, nil, true, snap)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// existsIn reports whether a path is a live (listed, not prunable) worktree of snap.
func (s *service) existsIn(snap snapshot) func(string) bool {
	live := map[string]bool{}
	for _, t := range snap.trees {
		if !t.Bare && t.Prunable == nil {
			live[canonical(t.Path)] = true
		}
	}
	return func(p string) bool { return live[canonical(p)] }
}

func (s *service) prepareRemove(ctx context.Context, r RemoveRequest, snap snapshot) (*Plan, error) {
	t, ws, err := s.resolveTarget(ctx, snap, r.Path, r.Branch, r.WorkspaceID)
	if err != nil {
		return nil, err
	}
	c := &removeCmd{target: t, wsID: ws, force: r.Force, deleteBranch: r.DeleteBranch, cwd: s.root()}
	// Rules that nothing gets past, then the ones --force gets past; each names what it
	// protects and how to proceed.
	for _, rule := range []func() *Error{
		func() *Error { return ruleNotMain(t, snap) },
		func() *Error { return s.ruleNotHere(t) },
		func() *Error { return ruleHoldsNoWorktree(t, snap) },
		func() *Error { return ruleDeleteHasBranch(t, r.DeleteBranch) },
	} {
		if e := rule(); e != nil {
			return nil, e
		}
	}
	c.losses = s.losses(ctx, t)
	if t.Prunable == nil {
		c.live = s.backend.workspaceLive(ctx, t.Path, ws)
		if ws != "" && (len(c.live.procs) > 0 || c.live.unknown != "") {
			// One Herdr call, and only when the refusal or the confirmation speaks of
			// processes: a remove with nothing working in it is not slowed down.
			c.live.agent = s.backend.agentStatus(ctx, ws, t.Path)
		}
	}
	if !r.Force {
		for _, rule := range []func() *Error{
			func() *Error { return ruleNotLocked(t) },
			func() *Error { return ruleStatusKnown(t, c.losses) },
			func() *Error { return ruleNoOperation(t, c.losses) },
			func() *Error { return ruleClean(t, c.losses) },
			func() *Error { return ruleNoNested(t, c.losses) },
			func() *Error { return ruleDetachedReachable(t, c.losses) },
			func() *Error { return ruleNoWorktreeOnlyCommits(t, c.losses) },
			func() *Error { return ruleSubmodulesPushed(t, c.losses) },
			func() *Error { return ruleBranchMerged(t, c.losses, r.DeleteBranch) },
			func() *Error { return ruleNoProcesses(t.Path, describe(t), c.live) },
		} {
			if e := rule(); e != nil {
				return nil, forceHelps(e)
			}
		}
	}
	if r.Force && t.Prunable == nil {
		if e := ruleRecordable(t, c.losses); e != nil {
			return nil, e
		}
	}
	// Herdr's rules, which not even --force gets past (the backend's builder checks them
	// again before it runs anything).
	herdrOnly := ruleHerdrNotLocked(c)
	if s.backend.name() != "herdr" {
		herdrOnly = nil // git removes a locked worktree in one step (tmux closes the window after)
	}
	for _, e := range []*Error{ruleNotOwnWorkspace(c, s.backend.session()), herdrOnly} {
		if e != nil {
			return nil, e
		}
	}
	cmds, err := s.backend.removeCommands(c)
	if err != nil {
		return nil, err
	}
	if r.DeleteBranch {
		bd, err := gitx.BranchDelete(s.root(), t.Branch, true)
		if err != nil {
			return nil, builderErr(err)
		}
		cmds = append(cmds, bd.String())
	}
	conf := removeConfirmation(r, t, ws, c.losses, c.live, s.backend.closesWorkspace(ws))
	notices := conf.Notices
	if r.DeleteBranch || (r.Force && t.Prunable == nil) {
		// Said in the plan (the dry run shows it), not in the confirmation's token: it is
		// how the remove is undone, not something lost, so a notice. The outcome says the
		// record's id instead.
		notices = append(append([]string(nil), notices...),
			"before removing, copse records the worktree (HEAD, index, files, and the commits only it holds) under "+gitx.RemovedRefPrefix+"<id>; `copse restore` brings it back")
	}
	return &Plan{Request: r, cmd: c, Commands: cmds, Confirm: conf, Warnings: conf.Warnings, Notices: notices}, nil
}

// removeConfirmation shows the target as it was named, what else identifies it, what
// would be lost and what else happens. --delete-branch is always stated, with what the
// branch holds.
func removeConfirmation(r RemoveRequest, t gitx.Worktree, ws string, l Losses, live liveSet, closes string) *Confirmation {
	conf := &Confirmation{Title: "Remove this worktree?"}
	switch {
	case r.Path != nil:
		conf.add("path", *r.Path)
	case r.Branch != nil:
		conf.add("branch", *r.Branch)
	case r.WorkspaceID != nil:
		conf.add("workspace", *r.WorkspaceID)
	}
	if r.Branch == nil {
		if t.Branch != "" {
			conf.add("branch", t.Branch)
		} else {
			conf.add("head", "detached at "+short(t.Head))
		}
	}
	if r.Path == nil {
		conf.add("path", t.Path)
	}
	if ws != "" && r.WorkspaceID == nil {
		conf.add("workspace", ws)
	}
	if r.DeleteBranch {
		// What the branch holds that nothing else does; the loss line below spells it out.
		holds := "no commits only on it"
		if l.Unique > 0 {
			holds = plural(l.Unique, "commit") + " only on it"
		}
		conf.Fields = append(conf.Fields, ConfirmField{Name: "delete branch", Value: Escape(t.Branch) + " at " + short(t.Head) + ": " + holds})
	}
	if r.Force {
		conf.Fields = append(conf.Fields, ConfirmField{Name: "force", Value: "yes"})
	}
	conf.Losses = append(l.lines(t, r.DeleteBranch), live.lines()...)
	if t.Locked != nil {
		conf.Losses = append(conf.Losses, "the worktree is locked: "+Escape(lockReason(t)))
	}
	if !r.DeleteBranch && l.Unique > 0 {
		// The branch stays, so its commits are not lost: information, not a warning.
		conf.Notices = append(conf.Notices, fmt.Sprintf("branch %s stays, with its %s found on no other branch or remote", Escape(t.Branch), plural(l.Unique, "commit")))
	}
	if ws != "" && closes != "" {
		// The backend closes the workspace on every remove: an agent running there is ended too.
		w := closes
		if len(live.idle) > 0 {
			w += ", among them " + plural(len(live.idle), "idle shell") + " of its panes (pid " + pidList(live.idle) + ")"
		}
		if r.Force {
			w = "forced: " + w + ", even with uncommitted work"
		}
		conf.Warnings = append(conf.Warnings, w)
	}
	return conf
}

// refusedByGit: the value itself was refused, by gitx's builder or by git's exit status
// (as opposed to git failing to run), so it is the caller's input that is wrong.
func refusedByGit(err error) bool {
	var be *gitx.BuildError
	if errors.As(err, &be) {
		return true
	}
	_, exited := gitx.ExitCode(err)
	return exited
}
