package core

import (
	"errors"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// gitMessage picks what git said went wrong out of its stderr (every git failure core
// reports goes through it: gitFailure, status errors, loss checks). git prints progress
// ("Preparing worktree (new branch 'x')", "HEAD is now at …") before it fails, so the first
// line is often not the error. Its own errors start with "fatal:" or "error:": those
// lines are the message (the fatal ones, which say why git stopped, else the error ones).
// Without either (a hook that printed its own complaint), the last line is the one
// closest to the failure.
func gitMessage(stderr string) string {
	var fatal, errs []string
	last := ""
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "fatal:"):
			fatal = append(fatal, l)
		case strings.HasPrefix(l, "error:"):
			if len(errs) == 0 || errs[len(errs)-1] != l {
				errs = append(errs, l)
			}
		}
		last = l
	}
	switch {
	case len(fatal) > 0:
		return strings.Join(fatal, "; ")
	case len(errs) > 0:
		return strings.Join(errs, "; ")
	}
	return last
}

// ErrText is an error's first line, for a message that goes on.
func ErrText(err error) string {
	var ge *gitx.Error
	if errors.As(err, &ge) && ge.Kind == gitx.ErrExit && strings.TrimSpace(ge.Stderr) != "" {
		return gitMessage(ge.Stderr)
	}
	return FirstLine(err.Error())
}

// BranchExistedForGit: git refused to create the branch because it exists ("fatal: a
// branch named 'x' already exists").
func BranchExistedForGit(err error) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "fatal: a branch named ") && strings.Contains(ge.Stderr, " already exists")
}
