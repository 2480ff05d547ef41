package main

import (
	"path/filepath"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
)

// open is `worktree open` (§3): only checkouts git already lists; a checkout that a
// workspace shows is returned with already_open.
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
		s.st.Workspaces = append(s.st.Workspaces, statefile.Workspace{ID: s.st.NewID(), Checkout: e.path, Label: filepath.Base(e.path)})
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
