package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
)

// apiError is a server-side error: code and message of the JSON envelope.
type apiError struct{ code, msg string }

func errf(code, format string, args ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// encode prints v as one compact line. Maps marshal with sorted keys, as the real CLI's
// serde_json re-serialisation does (§2.10); HTML escaping is off because serde has none.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// replyOK and replyError take the request id the CLI sends: "cli:<noun>:<sub>".
func replyOK(id string, result map[string]any) int {
	os.Stdout.Write(encode(map[string]any{"id": id, "result": result}))
	return 0
}

func replyError(id, code, msg string) int {
	os.Stderr.Write(encode(map[string]any{
		"id":    id,
		"error": map[string]any{"code": code, "message": msg},
	}))
	return 1
}

// forcedMessage gives FAKE_HERDR_ERROR codes the message Herdr would print (§4.5).
func forcedMessage(code string) string {
	msgs := map[string]string{
		"protocol_mismatch":              "herdr client protocol 20 does not match the running server (protocol 19); restart herdr",
		"invalid_request":                "workspace_id or cwd is required when no workspace is active",
		"workspace_not_found":            "workspace not found",
		"not_git_worktree":               "Herdr worktree actions require a path inside a Git work tree",
		"linked_worktree_source":         "New and open worktree actions start from the repo parent workspace.",
		"worktree_not_found":             "worktree path not found",
		"worktree_create_failed":         "fatal: simulated git failure",
		"worktree_operation_in_progress": "worktree operation is already in progress for this checkout",
		"not_linked_worktree":            "workspace is not a Herdr-managed worktree checkout",
		"worktree_remove_failed":         "fatal: simulated git failure",
	}
	if m, ok := msgs[code]; ok {
		return m
	}
	return "simulated " + code
}

// workspaceRecord is WorkspaceInfo (§4.2) for the workspace at index i.
func workspaceRecord(st *statefile.State, i int) map[string]any {
	w := st.Workspaces[i]
	rec := map[string]any{
		"workspace_id":  w.ID,
		"number":        i + 1,
		"label":         w.Label,
		"focused":       st.Focused == w.ID,
		"pane_count":    1,
		"tab_count":     1,
		"active_tab_id": w.ID + ":t1",
		"agent_status":  agentStatus(w),
	}
	if w.RepoRoot != "" {
		rec["worktree"] = map[string]any{
			"repo_key":           w.RepoKey,
			"repo_name":          filepath.Base(w.RepoRoot),
			"repo_root":          w.RepoRoot,
			"checkout_path":      w.Checkout,
			"is_linked_worktree": w.Linked,
		}
	}
	return rec
}

// agentStatus is the workspace's agent_status: what a test set in the state file, else
// "unknown", which is what Herdr reports for panes running no agent it recognises (the
// double's workspaces start with a shell only).
func agentStatus(w statefile.Workspace) string {
	if w.AgentStatus != "" {
		return w.AgentStatus
	}
	return "unknown"
}

func tabRecord(st *statefile.State, w statefile.Workspace) map[string]any {
	return map[string]any{
		"tab_id": w.ID + ":t1", "workspace_id": w.ID, "number": 1, "label": "1",
		"focused": st.Focused == w.ID, "pane_count": 1, "agent_status": "unknown",
	}
}

func paneRecord(st *statefile.State, w statefile.Workspace, terminal string) map[string]any {
	return map[string]any{
		"pane_id": w.ID + ":p1", "terminal_id": terminal, "workspace_id": w.ID, "tab_id": w.ID + ":t1",
		"focused": st.Focused == w.ID, "cwd": w.Checkout, "agent_status": "unknown", "revision": 0,
	}
}

// worktreeRecord is WorktreeInfo (§4.2): branch omitted when detached, label = repo name.
func worktreeRecord(e entry, repoRoot, openID string) map[string]any {
	rec := map[string]any{
		"path":               e.path,
		"is_bare":            e.bare,
		"is_detached":        e.detached,
		"is_prunable":        e.prunable,
		"is_linked_worktree": !samePath(e.path, repoRoot),
		"label":              filepath.Base(repoRoot),
	}
	if e.branch != "" {
		rec["branch"] = e.branch
	}
	if openID != "" {
		rec["open_workspace_id"] = openID
	}
	return rec
}
