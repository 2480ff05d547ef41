package core

import "strings"

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
