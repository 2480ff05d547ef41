package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/herdr/internal/fakestate"
)

// server is the pretend Herdr server for one request.
type server struct {
	k      knobs
	st     *fakestate.State
	noGit  bool // FAKE_HERDR_LIE=no_git: reply as if done, touch neither git nor state
	result map[string]any
}

var errDiscard = errors.New("discard state changes")

// serve runs req against the state file under its lock. A server-side error changes
// nothing, and neither does the no_git lie (its reply describes work that never happened).
func serve(k knobs, req request) (map[string]any, *apiError, error) {
	var result map[string]any
	var apiErr *apiError
	err := fakestate.Update(k.state, func(st *fakestate.State) error {
		s := &server{k: k, st: st, noGit: k.lie == lieNoGit}
		if s.noGit {
			cp := *st
			cp.Workspaces = slices.Clone(st.Workspaces)
			s.st = &cp
		}
		switch req.sub {
		case "list":
			result, apiErr = s.list(req)
		case "create":
			result, apiErr = s.create(req)
		case "open":
			result, apiErr = s.open(req)
		case "remove":
			result, apiErr = s.remove(req)
		}
		if apiErr != nil || s.noGit {
			return errDiscard
		}
		return nil
	})
	if errors.Is(err, errDiscard) {
		err = nil
	}
	return result, apiErr, err
}

// lookup resolves a --workspace value like parse_workspace_id: the exact id, else a bare
// integer as a 1-based sidebar position (no bounds check upstream). -1 when not found;
// numeric reports whether the value was a position.
func (s *server) lookup(id string) (i int, numeric bool) {
	if i := s.st.Find(id); i >= 0 {
		return i, false
	}
	if n, err := strconv.Atoi(id); err == nil {
		if n >= 1 && n <= len(s.st.Workspaces) {
			return n - 1, true
		}
		return -1, true
	}
	return -1, false
}

// source resolves --workspace / --cwd / the focused workspace to a repository.
func (s *server) source(req request) (repo, *apiError) {
	var dir, what string
	switch {
	case req.workspace != nil:
		i, _ := s.lookup(*req.workspace)
		if i < 0 {
			return repo{}, errf("workspace_not_found", "workspace %s not found", *req.workspace)
		}
		dir, what = s.st.Workspaces[i].Checkout, "workspace"
	case req.cwd != nil:
		dir, what = *req.cwd, "path"
	default:
		// Unscoped calls use the UI's focused workspace, not the caller's (§3).
		i := s.st.Find(s.st.Focused)
		if i < 0 && len(s.st.Workspaces) > 0 {
			i = 0
		}
		if i < 0 {
			return repo{}, errf("invalid_request", "workspace_id or cwd is required when no workspace is active")
		}
		dir, what = s.st.Workspaces[i].Checkout, "workspace"
	}
	r, ok := resolveRepo(dir)
	if !ok {
		return repo{}, errf("not_git_worktree", "Herdr worktree actions require a %s inside a Git work tree", what)
	}
	return r, nil
}

// openID is the workspace showing path, with worktree membership.
func (s *server) openID(path string) string {
	for _, w := range s.st.Workspaces {
		if w.RepoRoot != "" && samePath(w.Checkout, path) {
			return w.ID
		}
	}
	return ""
}

func (s *server) list(req request) (map[string]any, *apiError) {
	r, apiErr := s.source(req) // linked sources are fine here: list resolves to the parent
	if apiErr != nil {
		return nil, apiErr
	}
	entries, apiErr := worktreeList(r.root)
	if apiErr != nil {
		return nil, apiErr
	}
	worktrees := []any{}
	for _, e := range entries {
		worktrees = append(worktrees, worktreeRecord(e, r.root, s.openID(e.path)))
	}
	return map[string]any{"type": "worktree_list", "source": s.sourceRecord(r), "worktrees": worktrees}, nil
}

func (s *server) sourceRecord(r repo) map[string]any {
	src := map[string]any{"repo_key": r.key, "repo_name": r.name(), "repo_root": r.root, "source_checkout_path": r.root}
	if id := s.openID(r.root); id != "" {
		src["source_workspace_id"] = id
	}
	return src
}

func (s *server) create(req request) (map[string]any, *apiError) {
	r, apiErr := s.source(req)
	if apiErr != nil {
		return nil, apiErr
	}
	if r.linked {
		return nil, errf("linked_worktree_source", "New and open worktree actions start from the repo parent workspace.")
	}
	branch := generatedBranch(time.Now())
	if req.branch != nil {
		branch = strings.TrimSpace(*req.branch)
	}
	if branch == "" {
		return nil, errf("invalid_request", "branch is required")
	}
	path := filepath.Join(s.worktreesDir(), r.name(), pathSlug(branch))
	if req.path != nil {
		path = filepath.Clean(*req.path)
	}
	if !s.noGit {
		if apiErr := addWorktree(r.root, branch, path, req.base); apiErr != nil {
			return nil, apiErr
		}
	}
	label := filepath.Base(path)
	if req.label != nil {
		label = *req.label
	}
	w := fakestate.Workspace{ID: s.st.NewID(), Checkout: path, RepoRoot: r.root, RepoKey: r.key, Linked: true, Label: label}
	s.st.Workspaces = append(s.st.Workspaces, w)
	// #4032: creating from a repo whose parent workspace is not open opens that too,
	// without mentioning it in the reply.
	if s.st.FindCheckout(r.root) < 0 {
		s.st.Workspaces = append(s.st.Workspaces, fakestate.Workspace{
			ID: s.st.NewID(), Checkout: r.root, RepoRoot: r.root, RepoKey: r.key, Label: r.name()})
	}
	if req.focus {
		s.st.Focused = w.ID
	}
	e := entry{path: path, branch: branch}
	return s.workspaceReply("worktree_created", w.ID, worktreeRecord(e, r.root, w.ID)), nil
}

// addWorktree is upstream's create: check out an existing local branch (base ignored),
// else make the branch from base (default HEAD). Parent directories are created first.
func addWorktree(root, branch, path string, base *string) *apiError {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return errf("worktree_create_failed", "%v", err)
	}
	args := []string{"worktree", "add", path, branch}
	if _, _, err := git(root, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		from := "HEAD"
		if base != nil {
			from = *base
		}
		args = []string{"worktree", "add", "-b", branch, path, from}
	}
	if _, stderr, err := git(root, args...); err != nil {
		return errf("worktree_create_failed", "%s", stderr)
	}
	return nil
}

func (s *server) worktreesDir() string {
	if s.k.worktreesDir != "" {
		return absolute(s.k.worktreesDir)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".herdr", "worktrees")
}

// workspaceReply is the created/opened result for the workspace with id.
func (s *server) workspaceReply(typ, id string, worktree map[string]any) map[string]any {
	i := s.st.Find(id)
	w := s.st.Workspaces[i]
	s.st.Terminals++
	terminal := fmt.Sprintf("term_%x%x", time.Now().UnixMicro(), s.st.Terminals)
	return map[string]any{
		"type":      typ,
		"workspace": workspaceRecord(s.st, i),
		"tab":       tabRecord(s.st, w),
		"root_pane": paneRecord(s.st, w, terminal),
		"worktree":  worktree,
	}
}

func (s *server) open(req request) (map[string]any, *apiError) {
	r, apiErr := s.source(req)
	if apiErr != nil {
		return nil, apiErr
	}
	if r.linked {
		return nil, errf("linked_worktree_source", "New and open worktree actions start from the repo parent workspace.")
	}
	entries, apiErr := worktreeList(r.root)
	if apiErr != nil {
		return nil, apiErr
	}
	e, apiErr := pick(entries, req)
	if apiErr != nil {
		return nil, apiErr
	}
	i := s.st.FindCheckout(e.path)
	already := i >= 0
	if !already {
		s.st.Workspaces = append(s.st.Workspaces, fakestate.Workspace{ID: s.st.NewID(), Checkout: e.path, Label: filepath.Base(e.path)})
		i = len(s.st.Workspaces) - 1
	}
	w := &s.st.Workspaces[i]
	// Opening records membership, also on a workspace the user had opened by hand.
	w.RepoRoot, w.RepoKey, w.Linked = r.root, r.key, !samePath(e.path, r.root)
	if req.label != nil {
		w.Label = *req.label
	}
	if req.focus {
		s.st.Focused = w.ID
	}
	reply := s.workspaceReply("worktree_opened", w.ID, worktreeRecord(e, r.root, w.ID))
	reply["already_open"] = already
	return reply, nil
}

// pick finds the checkout `open` names: by path, or by branch among non-bare,
// non-prunable, attached entries.
func pick(entries []entry, req request) (entry, *apiError) {
	if req.path != nil {
		for _, e := range entries {
			if samePath(e.path, *req.path) {
				if e.bare || e.prunable {
					return entry{}, errf("worktree_not_found", "worktree cannot be opened")
				}
				return e, nil
			}
		}
		return entry{}, errf("worktree_not_found", "worktree path not found")
	}
	var found []entry
	for _, e := range entries {
		if !e.bare && !e.prunable && !e.detached && e.branch == *req.branch {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return entry{}, errf("worktree_not_found", "worktree branch not found")
	case 1:
		return found[0], nil
	default:
		return entry{}, errf("ambiguous_worktree_branch", "multiple worktrees matched branch")
	}
}

func (s *server) remove(req request) (map[string]any, *apiError) {
	i, numeric := s.lookup(*req.workspace)
	switch {
	case i < 0 && numeric: // upstream quirk: an out-of-range position is "not linked"
		return nil, errf("not_linked_worktree", "workspace is not a Herdr-managed worktree checkout")
	case i < 0:
		return nil, errf("workspace_not_found", "workspace %s not found", *req.workspace)
	}
	w := s.st.Workspaces[i]
	if w.RepoRoot == "" {
		return nil, errf("not_linked_worktree", "workspace is not a Herdr-managed worktree checkout")
	}
	if !w.Linked {
		return nil, errf("not_linked_worktree", "workspace is not a linked worktree checkout")
	}
	if !s.noGit {
		args := []string{"worktree", "remove"}
		if req.force {
			args = append(args, "--force")
		}
		if _, stderr, err := git(w.RepoRoot, append(args, w.Checkout)...); err != nil {
			if strings.Contains(stderr, "contains modified or untracked files") {
				return nil, errf("dirty_worktree_requires_force", "%s", stderr)
			}
			return nil, errf("worktree_remove_failed", "%s", stderr)
		}
	}
	s.st.Workspaces = slices.Delete(s.st.Workspaces, i, i+1)
	if s.st.Focused == w.ID {
		s.st.Focused = s.openID(w.RepoRoot) // focus returns to the parent, if open
	}
	return map[string]any{"type": "worktree_removed", "workspace_id": w.ID, "path": w.Checkout, "forced": req.force}, nil
}
