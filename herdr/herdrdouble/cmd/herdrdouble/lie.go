package main

import "strings"

// FAKE_HERDR_LIE values: ways a reply can disagree with what happened, so tests prove
// copse believes git, not Herdr.
const (
	// lieNoGit: reply with success, but neither git nor the workspace state changed.
	lieNoGit = "no_git"
	// lieWrongType: do the work, then reply with another result type.
	lieWrongType = "wrong_type"
	// lieOtherPath: do the work, then name a different checkout path in the reply.
	lieOtherPath = "other_path"
)

var wrongTypes = map[string]string{
	"list":   "workspace_list",
	"create": "worktree_opened",
	"open":   "worktree_created",
	"remove": "workspace_closed",
}

// lie rewrites a successful result in place (no_git was applied while serving).
func lie(kind, sub string, result map[string]any) {
	switch kind {
	case lieWrongType:
		result["type"] = wrongTypes[sub]
	case lieOtherPath:
		other := func(p string) string { return strings.TrimSuffix(p, "/") + "-elsewhere" }
		switch sub {
		case "remove":
			result["path"] = other(result["path"].(string))
		case "list":
			for _, w := range result["worktrees"].([]any) {
				if rec := w.(map[string]any); rec["is_linked_worktree"] == true {
					rec["path"] = other(rec["path"].(string))
				}
			}
		default:
			wt := result["worktree"].(map[string]any)
			wt["path"] = other(wt["path"].(string))
			if ws, ok := result["workspace"].(map[string]any)["worktree"].(map[string]any); ok {
				ws["checkout_path"] = wt["path"]
			}
			result["root_pane"].(map[string]any)["cwd"] = wt["path"]
		}
	}
}
