package gitx

import (
	"context"
	"strings"
)

// RevParseFullName prints the full ref name ref resolves to (refs/heads/main for main,
// HEAD, @{-1} or refs/heads/main; refs/tags/v1 for a tag), or nothing for a plain commit
// or an expression such as main~1. It resolves by git's own rules, the same rules
// RevParseCommit uses, so the name and the commit agree.
func RevParseFullName(dir, ref string) (Cmd, error) {
	if err := check("rev-parse", checkDir(dir), checkRef("ref", ref)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-parse", "--verify", "--quiet", "--symbolic-full-name", "--end-of-options", ref}, read: true}, nil
}

// FullRefName is the full ref name ref resolves to at dir, "" when it names no ref
// (a commit id, an expression, or nothing git knows).
func (r *Runner) FullRefName(ctx context.Context, dir, ref string) (string, error) {
	c, err := RevParseFullName(dir, ref)
	if err != nil {
		return "", err
	}
	out, err := r.Run(ctx, c)
	if exitedOneSilently(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(string(out), "\n")
	if strings.ContainsAny(name, "\n\x00") {
		return "", nil
	}
	return name, nil
}
