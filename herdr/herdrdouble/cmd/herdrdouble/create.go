package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
)

// create is `worktree create` (§3): from the main checkout only; an existing local
// branch is checked out, else a new one is made from --base (default HEAD).
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
	w := statefile.Workspace{ID: s.st.NewID(), Checkout: path, RepoRoot: r.root, RepoKey: r.key, Linked: true, Label: label}
	s.st.Workspaces = append(s.st.Workspaces, w)
	// Herdr #4032: creating from a repo whose parent workspace is not open opens that too,
	// without mentioning it in the reply.
	if s.st.FindCheckout(r.root) < 0 {
		s.st.Workspaces = append(s.st.Workspaces, statefile.Workspace{
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
