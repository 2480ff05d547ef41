package core

// Turning what a caller typed into what git records: branch names and bases checked by
// git, the default path of a new worktree, and a worktree named by path, branch or
// workspace. Every operation's prepare uses these; none of them changes anything.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// ParseBranch checks raw, then lets git say whether it is a branch name and what it names
// (`@{-1}` becomes the branch it refers to); the name git prints back is the one used.
func (s *Env) ParseBranch(ctx context.Context, field, raw string) (BranchName, error) {
	if err := CheckText(field, raw, MaxBranch); err != nil {
		return BranchName{}, err
	}
	name, err := s.Git.ResolveBranchName(ctx, s.at(), raw)
	if err != nil {
		if RefusedByGit(err) {
			return BranchName{}, Usage(CodeInvalidBranch, field, "pick a valid branch name (see git help check-ref-format)",
				"%s %s is not a valid branch name", field, Quote(raw))
		}
		return BranchName{}, GitFailure(CodeCheckBranchFailed, err, "cannot check the branch name")
	}
	if err := CheckText(field, name, MaxBranch); err != nil {
		return BranchName{}, err
	}
	// git accepts these as branch names, but each also means HEAD to git: a branch so
	// named would make later commands ambiguous.
	if name == "@" || name == "HEAD" {
		return BranchName{}, Usage(CodeInvalidBranch, field, "pick another name", "%s %s is git's name for HEAD, not a usable branch", field, Quote(name))
	}
	return BranchName{name}, nil
}

// ParseBase resolves raw to a commit now; the OID travels with the command.
func (s *Env) ParseBase(ctx context.Context, raw string) (BaseCommit, error) {
	if err := CheckText("base", raw, maxRef); err != nil {
		return BaseCommit{}, err
	}
	oid, err := s.Git.ResolveCommit(ctx, s.at(), raw)
	if err != nil {
		if RefusedByGit(err) {
			return BaseCommit{}, Usage(CodeUnknownBase, "base", "name an existing branch, tag or commit (git log --oneline shows some)",
				"base %s does not name a commit", Quote(raw))
		}
		return BaseCommit{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve the base")
	}
	return BaseCommit{Ref: raw, OID: oid}, nil
}

// at is the directory the session is in: where relative refs (HEAD, @{-1}) are read.
func (s *Env) at() string {
	if s.Current() != "" {
		return s.Current()
	}
	return s.Dir
}

// DefaultPath is <copse.root>/<slug> when git config copse.root is set, else
// <parent of main checkout>/<repo>.worktrees/<slug>.
func (s *Env) DefaultPath(ctx context.Context, b BranchName) (AbsPath, error) {
	root, ok, err := s.Git.ConfigValue(ctx, s.Root(), "copse.root")
	if err != nil {
		return AbsPath{}, GitFailure(CodeConfigFailed, err, "cannot read git config copse.root")
	}
	var dir string
	if ok {
		root = strings.TrimSpace(root)
		if !filepath.IsAbs(root) {
			return AbsPath{}, Usage(CodeBadConfig, "copse.root", "set an absolute directory: git config copse.root /abs/dir",
				"git config copse.root is %s, which is not an absolute path", Quote(root))
		}
		dir = filepath.Clean(root)
	} else {
		dir = s.worktreesDir()
	}
	return ParseAbsPath("path", filepath.Join(dir, BranchSlug(b.s)))
}

// CheckNewPath runs the rules for the path of a new worktree (create, restore).
func (s *Env) CheckNewPath(ctx context.Context, snap Snapshot, p AbsPath) error {
	commonDir, err := s.CommonDir(ctx)
	if err != nil {
		return err
	}
	if e := rulePathOutsideGitDir(p, commonDir); e != nil {
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

func Describe(t gitx.Worktree) string {
	switch {
	case t.Bare:
		return "the bare repository"
	case t.Branch != "":
		return "branch " + Escape(t.Branch)
	default:
		return "detached at " + Short(t.Head)
	}
}

func Short(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// ResolveTarget finds the one worktree a request names by path, branch or workspace id.
func (s *Env) ResolveTarget(ctx context.Context, snap Snapshot, path, branch, ws *string) (gitx.Worktree, string, error) {
	n := 0
	for _, v := range []*string{path, branch, ws} {
		if v != nil {
			n++
		}
	}
	if n != 1 {
		names := "path or branch"
		if ws != nil || s.Backend.HasWorkspaces() {
			names = "path, branch or workspace_id"
		}
		return gitx.Worktree{}, "", Usage(CodeExactlyOne, "target", "name the worktree by exactly one of "+names,
			"expected exactly one of %s, got %d", names, n)
	}
	wsOf, err := s.WorkspacesOf(ctx, snap)
	if err != nil {
		return gitx.Worktree{}, "", err
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
		t, err := worktreeAt(snap.Trees, p)
		return t, wsOf[t.Path], err
	case branch != nil:
		b, err := s.ParseBranch(ctx, "branch", *branch)
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		t, err := worktreeOn(snap.Trees, b)
		return t, wsOf[t.Path], err
	default:
		id, err := WorkspaceID{*ws}, error(nil)
		if n, ok := s.Backend.(NativeWorkspaceIDs); !ok || !n.IsWorkspaceID(*ws) { // under tmux: a window id, @N
			id, err = ParseWorkspaceID(*ws)
		}
		if err != nil {
			return gitx.Worktree{}, "", err
		}
		if !s.Backend.HasWorkspaces() {
			return gitx.Worktree{}, "", Usage(CodeNoWorkspaces, "workspace_id", "name the worktree by path or branch",
				"workspace ids exist only inside Herdr or tmux; this is the %s backend", s.Backend.Name())
		}
		for _, t := range snap.Trees {
			if wsOf[t.Path] == id.s {
				return t, id.s, nil
			}
		}
		return gitx.Worktree{}, "", Refused(CodeNoSuchWorkspace, "`copse list --json` shows workspace ids", "no worktree is open in workspace %s", id.s)
	}
}

// workspacesOf maps each worktree's path to the workspace it is open in (empty without
// workspaces).
func (s *Env) WorkspacesOf(ctx context.Context, snap Snapshot) (map[string]string, error) {
	wsOf := map[string]string{}
	if !s.Backend.HasWorkspaces() {
		return wsOf, nil
	}
	rows := s.rows(snap)
	if err := s.Backend.Annotate(ctx, rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.WorkspaceID != nil {
			wsOf[r.Path] = *r.WorkspaceID
		}
	}
	return wsOf, nil
}

// worktreeAt is the worktree git lists at p, by canonical path.
func worktreeAt(trees []gitx.Worktree, p AbsPath) (gitx.Worktree, error) {
	cp := Canonical(p.s)
	for _, t := range trees {
		if Canonical(t.Path) == cp {
			return t, nil
		}
	}
	return gitx.Worktree{}, Refused(CodeNoSuchWorktree, "`copse list` shows the worktrees", "no worktree at %s", Escape(p.s))
}

// worktreeOn is the one worktree with branch b checked out. None refuses, naming a branch
// close to b that is checked out; two refuse too (`git worktree add -f` can check one
// branch out twice, and a name that means two worktrees means neither).
func worktreeOn(trees []gitx.Worktree, b BranchName) (gitx.Worktree, error) {
	var found []gitx.Worktree
	for _, t := range trees {
		if t.Branch == b.s {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		// Only open and switch offer the create (createOffered): a remove or land of a
		// branch no worktree has is a typo or a worktree gone, and a new one is no answer.
		hint := "`copse list` shows the worktrees"
		if near := didYouMean(closeBranches(b.s, trees)); near != "" {
			hint = strings.TrimSpace(near)
		}
		return gitx.Worktree{}, Refused(CodeNoSuchWorktree, hint, "no worktree has branch %s checked out", Escape(b.s))
	}
	return gitx.Worktree{}, Refused(CodeBranchCheckedOutTwice, "name the worktree by its path instead",
		"branch %s is checked out in %d worktrees: %s and %s", Escape(b.s), len(found), Escape(found[0].Path), Escape(found[1].Path))
}

// CheckEnterable runs the rules for a worktree one can open or switch to.
func CheckEnterable(t gitx.Worktree) error {
	if e := ruleNotBare(t); e != nil {
		return e
	}
	if e := RuleNotPrunable(t); e != nil {
		return e
	}
	return nil
}

// LeavingWarning: switching away from uncommitted work is allowed (it stays where it is),
// but the user hears about it.
func (s *Env) LeavingWarning(ctx context.Context, c *TargetSpec) []string {
	if c.From == "" || Canonical(c.From) == Canonical(c.Target.Path) {
		return nil
	}
	if _, err := os.Stat(c.From); err != nil {
		return nil
	}
	st := s.status(ctx, c.From)
	c.Leaving = &st
	if st.Error == "" && st.Dirty() {
		return []string{fmt.Sprintf("%s has %s; they stay there", Escape(c.From), Plural(st.Changes(), "uncommitted change"))}
	}
	return nil
}

// ExistsIn reports whether a path is a live (listed, not prunable) worktree of snap.
func (s *Env) ExistsIn(snap Snapshot) func(string) bool {
	live := map[string]bool{}
	for _, t := range snap.Trees {
		if !t.Bare && t.Prunable == nil {
			live[Canonical(t.Path)] = true
		}
	}
	return func(p string) bool { return live[Canonical(p)] }
}

// RefusedByGit: the value itself was refused, by gitx's builder or by git's exit status
// (as opposed to git failing to run), so it is the caller's input that is wrong.
func RefusedByGit(err error) bool {
	var be *gitx.BuildError
	if errors.As(err, &be) {
		return true
	}
	_, exited := gitx.ExitCode(err)
	return exited
}

// CreateOffered is a no_such_worktree refusal of branch b with the create offered as well:
// open and switch go to a branch, and a branch without a worktree can get one. A typo of a
// branch that is checked out is the likelier mistake, so the near names stay first.
func CreateOffered(err error, trees []gitx.Worktree, b string) error {
	e := AsError(err)
	if e == nil || e.Code != CodeNoSuchWorktree {
		return err
	}
	hint := "create one: `copse create " + QuoteDisplay(b) + "`"
	if near := didYouMean(closeBranches(b, trees)); near != "" {
		hint = near + "Otherwise " + hint
	}
	e2 := *e
	e2.Hint = hint
	return &e2
}
