package omptest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run types a slash command and runs it: enter, and once more if omp's completion list took
// the first one (the editor still holds the command), until want shows.
func (p *pane) run(cmd, want string) {
	p.t.Helper()
	p.text(cmd)
	p.keys("Enter")
	deadline := time.Now().Add(5 * time.Second)
	p.waitFor(want, func() bool {
		s := p.screen()
		if strings.Contains(s, want) {
			return true
		}
		if time.Now().After(deadline) && strings.Contains(s, "╰─ "+cmd) {
			p.keys("Enter")
			deadline = time.Now().Add(5 * time.Second)
		}
		return false
	})
}

// TestCopseCommandInOmp: omp keeps /worktree for its own command, so copse's is /copse; it
// names the worktree and hands the move to omp's /move, which relocates the session.
func TestCopseCommandInOmp(t *testing.T) {
	w := newWorld(t, false)
	feat := filepath.Join(filepath.Dir(w.s.Repo), "feat")
	w.s.Git(t, w.s.Repo, "worktree", "add", "-q", "-b", "feat", feat)
	p := w.startOmp()

	p.run("/copse feat", "Press enter to move omp to feat")
	p.waitText("╰─ /move " + feat)
	p.keys("Enter")
	p.waitText("Moved to " + feat)
	p.text("where")
	p.keys("Enter")
	p.waitText("current working directory: '" + feat + "'")

	p.run("/copse -", "Press enter to move omp to main")
	p.waitText("╰─ /move " + w.s.Repo)
	p.keys("Enter")
	p.waitText("Moved to " + w.s.Repo)

	p.run("/copse nosuch", "No worktree has branch nosuch. Create one?")
}
