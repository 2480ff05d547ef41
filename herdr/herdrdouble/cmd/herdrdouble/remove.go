package main

import (
	"slices"
	"strings"
)

// remove is `worktree remove` (§3): only linked workspaces with worktree membership;
// the branch is kept; a dirty checkout needs --force.
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
