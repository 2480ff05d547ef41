package create

import (
	"context"
	"os"
	"time"

	"github.com/copse-dev/copse/core"
)

// recordCreate writes the new worktree's metadata. The create has happened whatever
// this does, so a failure is a warning that says what land will do instead.
func recordCreate(s *core.Env, ctx context.Context, c *core.CreateSpec, w *core.Worktree) string {
	base := c.StartBase()
	commonDir, err := s.CommonDir(ctx)
	id := w.ID
	if err == nil && id == "" {
		id = core.IdOf(core.WorktreeIDs(commonDir), w.Path)
	}
	if err == nil && id == "" {
		err = os.ErrNotExist
	}
	if err == nil {
		err = core.WriteWorktreeMeta(commonDir, id, core.WorktreeMeta{V: 1, Created: time.Now().UTC().Truncate(time.Second), Base: base})
	}
	if err == nil || base == nil || base.Branch == "" {
		return ""
	}
	return "could not record the base " + core.Escape(base.Branch) + " of " + core.Escape(w.Path) + " (" + core.Escape(err.Error()) +
		"): land it with --into " + core.QuoteDisplay(base.Branch)
}
