package land

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/copse-dev/copse/core"
)

// A land that stops on conflicts leaves its rebase open for a person to resolve. `land
// --force-restart` aborts it (git rebase --abort resets the index and the tracked files to
// the branch as it was), which would throw away a resolution in progress: files edited,
// staged or resolved, commits made with git rebase --continue. So the land records what the
// stopped rebase held, path by path, and --force-restart aborts only a rebase that still
// holds exactly that; any other is refused, and the refusal changes nothing.

// rebaseStopState reads what the rebase stopped at w holds now.
func rebaseStopState(s *core.Env, ctx context.Context, w string) (*core.LandStopped, error) {
	head, entries, err := s.Git.StatusEntries(ctx, w)
	if err != nil {
		return nil, err
	}
	st := &core.LandStopped{Head: head, Paths: make(map[string]string, len(entries))}
	for _, e := range entries {
		v := e.Line
		if e.WorktreeSide {
			v += "\x00" + fileState(filepath.Join(w, filepath.FromSlash(e.Path)))
		}
		st.Paths[e.Path] = v
	}
	return st, nil
}

// fileState names what the file at p holds: its content's hash, a link's target, or what
// else is there.
func fileState(p string) string {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return "missing"
	case fi.Mode()&fs.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		return "link " + t
	case !fi.Mode().IsRegular():
		return "not a file " + fi.Mode().Type().String()
	}
	f, err := os.Open(p)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return fi.Mode().Perm().String() + " " + hex.EncodeToString(h.Sum(nil))
}

// stoppedChanges are the paths whose state differs between then and now (HEAD named
// "HEAD" when it moved), sorted.
func stoppedChanges(then, now *core.LandStopped) []string {
	var out []string
	if then.Head != now.Head {
		out = append(out, "HEAD")
	}
	for p, v := range now.Paths {
		if then.Paths[p] != v {
			out = append(out, p)
		}
	}
	for p := range then.Paths {
		if _, ok := now.Paths[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ruleRestartAbortsNothingMade: --force-restart aborts the rebase a land left open only
// while it holds exactly what it held when the land stopped (rec, read then); a rebase a
// person has worked in since, or one whose state at the stop is not known, is refused.
func ruleRestartAbortsNothingMade(s *core.Env, ctx context.Context, w string, rec *core.LandRebase) error {
	hint := "finish the resolution (git add, git rebase --continue) and land again; or, if nothing in it is yours to keep, abort it yourself (git -C " + core.QuoteDisplay(w) + " rebase --abort) and land again"
	if rec.Stopped == nil {
		return core.Refused(core.CodeRebaseChanged, hint,
			"the rebase a land left open in %s has no record of what it held when it stopped, so copse cannot tell whether someone resolved anything in it; nothing was aborted", core.Escape(w))
	}
	now, err := rebaseStopState(s, ctx, w)
	if err != nil {
		return core.GitFailure(core.CodeStatusFailed, err, "cannot read the status of "+core.Escape(w))
	}
	if changed := stoppedChanges(rec.Stopped, now); len(changed) > 0 {
		return core.Refused(core.CodeRebaseChanged, hint,
			"the rebase a land left open in %s was worked on since it stopped (changed: %s); aborting it would throw that away, so nothing was aborted",
			core.Escape(w), listPaths(changed))
	}
	return nil
}
