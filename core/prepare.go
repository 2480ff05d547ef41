package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

func (s *service) prepare(ctx context.Context, req Request) (*Plan, error) {
	if _, ok := req.(ListRequest); !ok && req != nil {
		// Checks of a mutation wait for any mutation under way (in this process or
		// another copse), so they never see a half-made worktree and refuse it for the
		// wrong reason. Execute checks again under the lock before it runs anything.
		unlock, err := s.lock(ctx)
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
	return lockRepo(ctx, cd)
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
	case nil:
		return nil, usage("missing_operation", "operation", "name one of: list, create, open, switch, remove, back", "no request")
	default:
		return nil, usage("unknown_operation", "operation", "name one of: list, create, open, switch, remove, back", "unknown request %T", req)
	}
	if err != nil {
		return nil, err
	}
	p.Token = snap.token
	if p.Confirm != nil {
		p.Confirm.Token = snap.token
	}
	return p, nil
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
			return BranchName{}, usage("invalid_branch", field, "pick a valid branch name (see git help check-ref-format)",
				"%s %s is not a valid branch name", field, quote(raw))
		}
		return BranchName{}, gitFailure("check_branch_failed", err, "cannot check the branch name")
	}
	if err := checkText(field, name, maxBranch); err != nil {
		return BranchName{}, err
	}
	// git accepts these as branch names, but each also means HEAD to git: a branch so
	// named would make later commands ambiguous.
	if name == "@" || name == "HEAD" {
		return BranchName{}, usage("invalid_branch", field, "pick another name", "%s %s is git's name for HEAD, not a usable branch", field, quote(name))
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
			return BaseCommit{}, usage("unknown_base", "base", "name an existing branch, tag or commit (git log --oneline shows some)",
				"base %s does not name a commit", quote(raw))
		}
		return BaseCommit{}, gitFailure("resolve_base_failed", err, "cannot resolve the base")
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
	branch, err := s.parseBranch(ctx, "branch", r.Branch)
	if err != nil {
		return nil, err
	}
	c := &createCmd{branch: branch, cwd: s.root(), focus: r.Focus}
	var warnings []string
	if r.Label != nil {
		if c.label, err = ParseLabel(*r.Label); err != nil {
			return nil, err
		}
	}
	if !s.backend.hasWorkspaces() && (r.Label != nil || r.Focus) {
		warnings = append(warnings, "label and focus apply only inside Herdr; ignored")
	}
	for _, t := range snap.trees {
		if t.Branch == branch.s {
			return nil, refused("branch_checked_out", "switch to it (copse switch "+Escape(branch.s)+"), or pick another branch",
				"branch %s is already checked out at %s", Escape(branch.s), Escape(t.Path))
		}
	}
	exists, err := s.git.BranchExists(ctx, s.root(), branch.s)
	if err != nil {
		return nil, gitFailure("branch_lookup_failed", err, "cannot check whether the branch exists")
	}
	baseShown := "(existing branch)"
	if exists {
		if r.Base != nil {
			return nil, usage("base_with_existing_branch", "base", "drop the base to check out the existing branch, or pick a new branch name",
				"branch %s already exists; a base applies only to a new branch", Escape(branch.s))
		}
		c.existing = true
		// Record the tip now so the postcondition can tell the checkout is that commit.
		tip, err := s.parseBase(ctx, "refs/heads/"+branch.s)
		if err != nil {
			return nil, err
		}
		c.base = tip
	} else {
		raw := "HEAD"
		if r.Base != nil {
			raw = *r.Base
		}
		if c.base, err = s.parseBase(ctx, raw); err != nil {
			return nil, err
		}
		baseShown = raw
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
	cmds, err := s.backend.createCommands(c)
	if err != nil {
		return nil, err
	}
	p := &Plan{Request: r, cmd: c, Commands: cmds, Warnings: warnings}
	if c.explicit {
		conf := &Confirmation{Title: "Create a worktree at this path?"}
		conf.add("branch", r.Branch)
		conf.add("base", baseShown)
		conf.add("path", *r.Path)
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
		return AbsPath{}, gitFailure("config_failed", err, "cannot read git config copse.root")
	}
	var dir string
	if ok {
		root = strings.TrimSpace(root)
		if !filepath.IsAbs(root) {
			return AbsPath{}, usage("bad_config", "copse.root", "set an absolute directory: git config copse.root /abs/dir",
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

// checkNewPath refuses a path that is a worktree, lies inside one or inside the git
// directory (symlinks of the nearest existing parent resolved), or exists and is not an
// empty directory.
func (s *service) checkNewPath(ctx context.Context, snap snapshot, p AbsPath) error {
	cp := canonical(p.s)
	cd, err := s.commonDir(ctx)
	if err != nil {
		return err
	}
	if within(cp, canonical(cd)) {
		return usage("path_inside_git_dir", "path", "pick a path outside the repository's git directory",
			"%s lies inside the git directory %s", Escape(p.s), Escape(cd))
	}
	for _, t := range snap.trees {
		tp := canonical(t.Path)
		if cp == tp {
			return refused("path_is_worktree", "pick another path", "%s is already the worktree of %s", Escape(p.s), describe(t))
		}
		if within(cp, tp) {
			// Bad input rather than a state to wait out: no request should ever nest
			// a checkout inside another (git would track one in the other).
			return usage("path_inside_worktree", "path", "pick a path outside every worktree (the default path is)",
				"%s lies inside the worktree %s (%s)", Escape(p.s), Escape(t.Path), describe(t))
		}
	}
	fi, err := os.Lstat(p.s)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return failed("path_unreadable", err, "check the path's permissions", "cannot inspect %s", Escape(p.s))
	case !fi.IsDir():
		return refused("path_exists", "pick another path, or move it away first", "%s already exists and is not a directory", Escape(p.s))
	}
	entries, err := os.ReadDir(p.s)
	if err != nil {
		return failed("path_unreadable", err, "check the path's permissions", "cannot read %s", Escape(p.s))
	}
	if len(entries) > 0 {
		return refused("path_exists", "pick another path, or empty it first", "%s already exists and is not empty (%d entries)", Escape(p.s), len(entries))
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
		return gitx.Worktree{}, "", usage("exactly_one", "target", "name the worktree by exactly one of "+names,
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
		return gitx.Worktree{}, "", refused("no_such_worktree", "copse list shows the worktrees", "no worktree at %s", Escape(p.s))
	case branch != nil:
		b, err := s.parseBranch(ctx, "branch", *branch)
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		for _, t := range snap.trees {
			if t.Branch == b.s {
				return t, wsOf[t.Path], nil
			}
		}
		return gitx.Worktree{}, "", refused("no_such_worktree", "create one: copse create "+Escape(b.s),
			"no worktree has branch %s checked out", Escape(b.s))
	default:
		id, err := ParseWorkspaceID(*ws)
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		if !s.backend.hasWorkspaces() {
			return gitx.Worktree{}, "", usage("no_workspaces", "workspace_id", "name the worktree by path or branch",
				"workspace ids exist only inside Herdr; this is the %s backend", s.backend.name())
		}
		for _, t := range snap.trees {
			if wsOf[t.Path] == id.s {
				return t, id.s, nil
			}
		}
		return gitx.Worktree{}, "", refused("no_such_workspace", "copse list --json shows workspace ids", "no worktree is open in workspace %s", id.s)
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
		warnings = append(warnings, "label and focus apply only inside Herdr; ignored")
	}
	if err := checkEnterable(t); err != nil {
		return nil, err
	}
	// Without workspaces there is nothing to open or focus: going where you are is a no-op
	// the user should hear about. Under Herdr, opening the current worktree is fine.
	if (op == OpSwitch || !s.backend.hasWorkspaces()) && c.from != "" && canonical(c.from) == canonical(t.Path) {
		return nil, refused("already_here", "pick another worktree", "you are already in %s (%s)", Escape(t.Path), describe(t))
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

func checkEnterable(t gitx.Worktree) error {
	if t.Bare {
		return refused("bare_repository", "pick a worktree with a checkout", "%s is the bare repository, which has no checkout", Escape(t.Path))
	}
	if t.Prunable != nil {
		return refused("prunable_worktree", "run git worktree prune to forget it, or restore the directory",
			"the worktree at %s is gone from disk (%s)", Escape(t.Path), Escape(*t.Prunable))
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
		return []string{fmt.Sprintf("%s has %d uncommitted changes; they stay there", Escape(c.from), st.Changes())}
	}
	return nil
}

func (s *service) prepareBack(ctx context.Context, r BackRequest, snap snapshot) (*Plan, error) {
	prev, ok := s.history.lookup(s.session, s.existsIn(snap))
	if !ok {
		return nil, refused("no_previous_worktree", "switch to a worktree first; back returns to the one you left",
			"there is no previous worktree in this session")
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
	what := describe(t)
	if len(snap.trees) > 0 && t.Path == snap.trees[0].Path {
		return nil, refused("main_checkout", "remove linked worktrees only; the main checkout holds the repository",
			"%s is the main checkout (%s); copse never removes it", Escape(t.Path), what)
	}
	if s.current() != "" && canonical(s.current()) == canonical(t.Path) {
		return nil, refused("current_worktree", "switch to another worktree first (copse switch), then remove this one",
			"%s (%s) is the worktree copse is running in", Escape(t.Path), what)
	}
	if t.Locked != nil && !r.Force {
		reason := *t.Locked
		if reason == "" {
			reason = "no reason given"
		}
		return nil, forceHelps(refused("locked_worktree", "unlock it (git worktree unlock "+quoteDisplay(t.Path)+") or pass --force",
			"%s (%s) is locked: %s", Escape(t.Path), what, Escape(reason)))
	}
	c := &removeCmd{target: t, wsID: ws, force: r.Force, deleteBranch: r.DeleteBranch, cwd: s.root()}
	if t.Prunable == nil {
		c.status = s.status(ctx, t.Path)
		if c.status.Error != "" && !r.Force {
			return nil, forceHelps(refused("status_unknown", "fix the worktree, or pass --force to remove it anyway",
				"cannot tell whether %s has uncommitted changes: %s", Escape(t.Path), c.status.Error))
		}
		if c.status.Dirty() && !r.Force {
			return nil, forceHelps(refused("dirty_worktree", "commit or stash them first, or pass --force to discard them",
				"%s (%s) has uncommitted changes: %s", Escape(t.Path), what, changeSummary(c.status)))
		}
	}
	if t.Branch != "" {
		if c.unique, err = s.git.UniqueCommits(ctx, s.root(), t.Branch); err != nil {
			return nil, gitFailure("unique_commits_failed", err, "cannot count the branch's unpushed commits")
		}
	}
	if r.DeleteBranch {
		if t.Branch == "" {
			return nil, usage("no_branch", "delete_branch", "drop --delete-branch", "%s is detached; there is no branch to delete", Escape(t.Path))
		}
		if c.unique > 0 && !r.Force {
			return nil, forceHelps(refused("unmerged_branch", "merge or push it first, or pass --force to delete it anyway",
				"branch %s has %d commits on no other branch or remote", Escape(t.Branch), c.unique))
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
	if c.status.Dirty() {
		conf.Losses = append(conf.Losses, "uncommitted changes will be lost: "+changeSummary(c.status))
	}
	if c.status.Error != "" {
		conf.Losses = append(conf.Losses, "status unknown: "+c.status.Error)
	}
	if c.unique > 0 {
		if r.DeleteBranch {
			conf.Losses = append(conf.Losses, fmt.Sprintf("%d commits on no other branch or remote will be lost", c.unique))
		} else {
			conf.Warnings = append(conf.Warnings, fmt.Sprintf("branch %s keeps %d commits found on no other branch or remote", Escape(t.Branch), c.unique))
		}
	}
	if t.Locked != nil {
		conf.Losses = append(conf.Losses, "the worktree is locked: "+Escape(*t.Locked))
	}
	if ws != "" {
		// Herdr closes the workspace on every remove: an agent running there is ended too.
		w := "Herdr closes workspace " + ws + " and ends the processes running in it"
		if r.Force {
			w = "forced: " + w + ", even with uncommitted work"
		}
		conf.Warnings = append(conf.Warnings, w)
	}
	return &Plan{Request: r, cmd: c, Commands: cmds, Confirm: conf, Warnings: conf.Warnings}, nil
}

func changeSummary(st Status) string {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{st.Staged, "staged"}, {st.Unstaged, "unstaged"}, {st.Untracked, "untracked"}, {st.Conflicted, "conflicted"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	return strings.Join(parts, ", ")
}

func forceHelps(e *Error) *Error {
	e.ForceHelps = true
	return e
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
