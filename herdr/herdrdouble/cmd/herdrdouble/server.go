package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
)

// server is the pretend Herdr server for one request.
type server struct {
	k     knobs
	st    *statefile.State
	noGit bool // FAKE_HERDR_LIE=no_git: reply as if done, touch neither git nor state
}

var errDiscard = errors.New("discard state changes")

// serve runs req against the state file under its lock. A server-side error changes
// nothing, and neither does the no_git lie (its reply describes work that never happened).
func serve(k knobs, req request) (map[string]any, *apiError, error) {
	var result map[string]any
	var apiErr *apiError
	err := statefile.Update(k.state, func(st *statefile.State) error {
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

func (s *server) worktreesDir() string {
	if s.k.worktreesDir != "" {
		return absolute(s.k.worktreesDir)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".herdr", "worktrees")
}
