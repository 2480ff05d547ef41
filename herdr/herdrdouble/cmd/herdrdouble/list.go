package main

// list is `worktree list` (§3): git's porcelain list of the source's repository,
// annotated with the open workspaces.
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
