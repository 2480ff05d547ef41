package core

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// Losses is what removing a worktree would delete that git cannot give back. copse
// computes it itself, whatever the user's git config hides from git status: untracked
// files under status.showUntrackedFiles=no, changed assume-unchanged and skip-worktree
// files, commits only a detached HEAD holds, an operation half done, nested repositories.
// Ignored files are deleted too; they are named in the confirmation but refuse nothing.
type Losses struct {
	Status        Status   // every staged, unstaged, untracked and conflicted entry
	Hidden        []string // assume-unchanged/skip-worktree files that differ from the index
	Operation     string   // rebase, merge, cherry-pick, revert, bisect ("" when none)
	Detached      int      // commits reachable only from a detached HEAD
	Nested        []string // nested repositories (untracked or ignored directories with their own .git)
	Ignored       int      // ignored files and directories git deletes with the worktree
	IgnoredSample []string
	Unique        int // commits of the branch on no other branch or remote
}

// losses reads what removing t would lose. A failure to read any part is Status.Error:
// the caller refuses without --force, because "could not tell" is never "nothing".
func (s *service) losses(ctx context.Context, t gitx.Worktree) Losses {
	var l Losses
	if t.Prunable != nil {
		// The directory is gone: nothing on disk can be lost; the branch still counts.
		l.Unique = s.uniqueOf(ctx, t, &l)
		return l
	}
	st, op, err := s.git.SafetyStatus(ctx, t.Path)
	if err != nil {
		l.Status.Error = statusError(err)
		return l
	}
	l.Status = fromGitStatus(st)
	l.Operation = op
	// Nested repositories are untracked or ignored entries to git; here they are counted
	// once, as what they are.
	l.Nested = append(append([]string(nil), st.UntrackedDirs...), st.IgnoredDirs...)
	l.Status.Untracked -= len(st.UntrackedDirs)
	l.Ignored = st.Ignored - len(st.IgnoredDirs)
	for _, x := range st.IgnoredSample {
		if !strings.HasSuffix(x, "/") {
			l.IgnoredSample = append(l.IgnoredSample, x)
		}
	}
	if l.Hidden, err = s.git.HiddenChanges(ctx, t.Path); err != nil {
		l.Status.Error = statusError(err)
		return l
	}
	if t.Detached && t.Head != "" && !allZero(t.Head) {
		if l.Detached, err = s.git.UnreachableCommits(ctx, t.Path, t.Head); err != nil {
			l.Status.Error = statusError(err)
			return l
		}
	}
	l.Unique = s.uniqueOf(ctx, t, &l)
	return l
}

func (s *service) uniqueOf(ctx context.Context, t gitx.Worktree, l *Losses) int {
	if t.Branch == "" {
		return 0
	}
	n, err := s.git.UniqueCommits(ctx, s.root(), t.Branch)
	if err != nil && l.Status.Error == "" {
		l.Status.Error = "cannot count the branch's unpushed commits: " + statusError(err)
	}
	return n
}

func statusError(err error) string {
	if e, ok := err.(*gitx.Error); ok && e.Stderr != "" {
		return Escape(gitMessage(e.Stderr))
	}
	return Escape(err.Error())
}

func allZero(oid string) bool { return strings.Trim(oid, "0") == "" }

// Dirty reports work a remove would lose that needs --force: changes (including hidden
// ones), an operation in progress, commits only a detached HEAD holds, nested repositories.
func (l Losses) Dirty() bool {
	return l.Status.Dirty() || len(l.Hidden) > 0 || l.Operation != "" || l.Detached > 0 || len(l.Nested) > 0
}

// lines are the confirmation's "will be lost" lines, most serious first.
func (l Losses) lines(t gitx.Worktree, deleteBranch bool) []string {
	var out []string
	if l.Status.Error != "" {
		out = append(out, "status unknown: "+l.Status.Error)
	}
	if l.Operation != "" {
		out = append(out, "a "+l.Operation+" in progress will be abandoned")
	}
	if l.Status.Dirty() {
		out = append(out, "uncommitted changes will be lost: "+changeSummary(l.Status))
	}
	if len(l.Hidden) > 0 {
		out = append(out, fmt.Sprintf("%s git status does not show (assume-unchanged or skip-worktree) will be lost: %s",
			plural(len(l.Hidden), "changed file"), sample(l.Hidden, len(l.Hidden))))
	}
	if l.Detached > 0 {
		out = append(out, fmt.Sprintf("%s on no branch, tag or remote will be lost (detached at %s)", plural(l.Detached, "commit"), short(t.Head)))
	}
	if len(l.Nested) > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", plural(len(l.Nested), "nested repository"), sample(l.Nested, len(l.Nested))))
	}
	if l.Ignored > 0 {
		out = append(out, fmt.Sprintf("%s will be deleted: %s", plural(l.Ignored, "ignored file"), sample(l.IgnoredSample, l.Ignored)))
	}
	if deleteBranch && l.Unique > 0 {
		out = append(out, fmt.Sprintf("%s on no other branch or remote will be lost with branch %s", plural(l.Unique, "commit"), Escape(t.Branch)))
	}
	return out
}

// sample shows the first few names of n, escaped, and how many more there are.
func sample(names []string, n int) string {
	const show = 3
	var parts []string
	for i, x := range names {
		if i == show {
			break
		}
		parts = append(parts, Escape(x))
	}
	s := strings.Join(parts, ", ")
	if more := n - len(parts); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// Plural is plural for the front ends, so every layer counts the same way.
func Plural(n int, noun string) string { return plural(n, noun) }

// plural writes a count with its noun: "1 commit", "2 commits", "1 nested repository".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "ry"), strings.HasSuffix(noun, "ty"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	case strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "s"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// hereWithin reports a directory copse or its session is in that lies anywhere inside
// path: the directory copse started in (-C), the process's working directory, and where
// this session switched to. Removing any of them would pull the floor from under it.
func (s *service) hereWithin(path string) (string, bool) {
	cp := canonical(path)
	var places []string
	places = append(places, s.dir)
	if wd, err := os.Getwd(); err == nil {
		places = append(places, wd)
	}
	if at := s.sessionAt(); at != "" {
		places = append(places, at)
	}
	for _, p := range places {
		if within(canonical(p), cp) {
			return p, true
		}
	}
	return "", false
}
