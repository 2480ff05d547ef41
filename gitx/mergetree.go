package gitx

// Plumbing for predicting lands without a worktree or an index: in-memory merges
// (`merge-tree --write-tree`, git 2.38 or later; one process for many merges with
// --stdin), the paths a branch changes since it forked from a target, and commits of the
// trees such merges write, so a merge can be stacked on the one before it (merge-tree
// takes commits, not trees, before git 2.40's --merge-base).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// pathListLimit caps the output of a command that lists paths a branch changes or a merge
// conflicts on: a branch that rewrites a large tree (a vendored directory, a mass rename)
// names hundreds of thousands of paths, more than the runner's default cap.
const pathListLimit = 64 << 20

// MergeResult is one in-memory merge of two commits. Tree is the merged tree; when the
// merge conflicts it is still written, with conflict markers in the conflicted files.
type MergeResult struct {
	Tree       string
	Clean      bool
	Conflicted []string // the paths git could not merge, each once, in git's order; nil when Clean
}

// MergeTreeBatchCmd runs many merges in one git process (`merge-tree --stdin`, one pair
// of commits a line): a queue's merges cost one fork instead of one each. git stops at
// the first merge it cannot do at all (unrelated histories, a missing object), exiting
// 128 after printing the results before it.
func MergeTreeBatchCmd(dir string, pairs [][2]string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	if len(pairs) == 0 {
		reasons = append(reasons, "no merges")
	}
	var in bytes.Buffer
	for _, p := range pairs {
		reasons = append(reasons, checkOID("first", p[0]), checkOID("second", p[1]))
		in.WriteString(p[0] + " " + p[1] + "\n")
	}
	if err := check("merge-tree", reasons...); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"merge-tree", "--stdin", "--write-tree", "--name-only", "--no-messages", "-z"},
		stdin: in.Bytes(), limit: pathListLimit}, nil
}

// MergeTreeNames merges commits a and b in memory (their merge base found by git): the
// merged tree and, on a conflict, the conflicted paths. It writes tree and blob objects but
// touches no ref, index or file. It is a batch of one: a lone `merge-tree --write-tree`
// says "conflict" by exiting 1, and Run keeps no output of a command that failed, while
// the batch form exits 0 and prints each merge's status.
func (r *Runner) MergeTreeNames(ctx context.Context, dir, a, b string) (MergeResult, error) {
	res, err := r.MergeTrees(ctx, dir, [][2]string{{a, b}})
	if err != nil {
		return MergeResult{}, err
	}
	return res[0], nil
}

// MergeTrees runs MergeTreeBatchCmd and returns one result per pair, in order. When git
// stops early, the results it printed come back with the error (len < len(pairs)): the
// merge at index len(results) is the one git could not do.
func (r *Runner) MergeTrees(ctx context.Context, dir string, pairs [][2]string) ([]MergeResult, error) {
	c, err := MergeTreeBatchCmd(dir, pairs)
	if err != nil {
		return nil, err
	}
	out, runErr := r.Run(ctx, c)
	if runErr != nil {
		var e *Error
		if !errors.As(runErr, &e) || e.Kind != ErrExit {
			return nil, runErr
		}
		if len(pairs) == 1 {
			return nil, runErr
		}
		// Run keeps no stdout of a failed command; run the merges one by one up to
		// the failing one instead, which also names what git refused.
		return r.mergeTreesSingly(ctx, dir, pairs)
	}
	res, err := ParseMergeTrees(out)
	if err != nil {
		return nil, err
	}
	if len(res) != len(pairs) {
		return nil, fmt.Errorf("gitx: merge-tree --stdin answered %d of %d merges", len(res), len(pairs))
	}
	return res, nil
}

func (r *Runner) mergeTreesSingly(ctx context.Context, dir string, pairs [][2]string) ([]MergeResult, error) {
	var res []MergeResult
	for _, p := range pairs {
		m, err := r.MergeTreeNames(ctx, dir, p[0], p[1])
		if err != nil {
			return res, err
		}
		res = append(res, m)
	}
	return res, nil
}

// ParseMergeTrees parses `merge-tree --stdin --write-tree --name-only --no-messages -z`:
// per merge "<1 clean|0 conflicted>\0<tree>\0", the conflicted paths each ending in NUL,
// then an empty field (a path is never empty).
func ParseMergeTrees(b []byte) ([]MergeResult, error) {
	var res []MergeResult
	for len(b) > 0 {
		status, rest, ok := bytes.Cut(b, []byte{0})
		tree, rest2, ok2 := bytes.Cut(rest, []byte{0})
		if !ok || !ok2 || (string(status) != "0" && string(status) != "1") || !isOID(string(tree)) {
			return nil, fmt.Errorf("gitx: merge-tree --stdin: malformed result %q", clip(string(b)))
		}
		m := MergeResult{Tree: string(tree), Clean: string(status) == "1"}
		b = rest2
		var names []string
		for {
			name, after, ok := bytes.Cut(b, []byte{0})
			if !ok {
				return nil, fmt.Errorf("gitx: merge-tree --stdin: result for tree %s is not terminated", m.Tree)
			}
			b = after
			if len(name) == 0 {
				break
			}
			names = append(names, string(name))
		}
		if !m.Clean {
			m.Conflicted = uniqueNonEmpty(names)
		}
		res = append(res, m)
	}
	return res, nil
}

// Change is one path a diff lists, with git's status letter (A added, D deleted, M
// modified, T type changed; renames are off, so a rename is a D and an A).
type Change struct {
	Status byte
	Path   string
}

// ForkChangesCmd lists the paths tip changes since it forked from base (`git diff
// base...tip`: from their merge base to tip), NUL-separated status and path, renames off
// so both sides of a move are named. The options that would change what the porcelain
// diff prints (colour, external diff tools, diff.relative) are overridden.
func ForkChangesCmd(dir, base, tip string) (Cmd, error) {
	if err := check("diff", checkDir(dir), checkOID("base", base), checkOID("tip", tip)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"diff", "--no-color", "--no-ext-diff", "--no-relative", "--no-renames",
		"--ignore-submodules=none", "--name-status", "-z", base + "..." + tip, "--"}, read: true, limit: pathListLimit}, nil
}

// ForkChanges runs ForkChangesCmd.
func (r *Runner) ForkChanges(ctx context.Context, dir, base, tip string) ([]Change, error) {
	c, err := ForkChangesCmd(dir, base, tip)
	return output(ctx, r, c, err, ParseNameStatus)
}

// ParseNameStatus parses `diff --name-status -z --no-renames`: "X\0path\0" per path.
func ParseNameStatus(b []byte) ([]Change, error) {
	fields := splitFields(b)
	if len(fields)%2 != 0 {
		return nil, fmt.Errorf("gitx: diff --name-status: odd number of fields in %q", clip(string(b)))
	}
	out := make([]Change, 0, len(fields)/2)
	for i := 0; i < len(fields); i += 2 {
		st, p := fields[i], fields[i+1]
		if len(st) == 0 || p == "" {
			return nil, fmt.Errorf("gitx: diff --name-status: malformed entry %q %q", clip(st), clip(p))
		}
		out = append(out, Change{Status: st[0], Path: p})
	}
	return out, nil
}

// stackEnv makes a stacked commit depend on its tree, parent and
// message alone: every process that stacks the same queue makes the same commit id, so a
// gate's tested commit can be compared by id, and a cache keyed by ids stays valid.
var stackEnv = []string{
	"GIT_AUTHOR_NAME=copse", "GIT_AUTHOR_EMAIL=copse@localhost", "GIT_AUTHOR_DATE=@0 +0000",
	"GIT_COMMITTER_NAME=copse", "GIT_COMMITTER_EMAIL=copse@localhost", "GIT_COMMITTER_DATE=@0 +0000",
}

// StackCommitCmd makes a commit of tree on parent (commit-tree: no ref moves, no hook
// runs, never signed) for a merge to be stacked on. Its author, committer and dates are
// fixed, so the same tree, parent and message always give the same commit.
func StackCommitCmd(dir, tree, parent, message string) (Cmd, error) {
	if err := check("commit-tree", checkDir(dir), checkOID("tree", tree), checkOID("parent", parent),
		checkMessage(message)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"commit-tree", "--no-gpg-sign", "-p", parent, "-m", message, tree}, env: stackEnv}, nil
}

// StackCommit runs StackCommitCmd and returns the new commit's id.
func (r *Runner) StackCommit(ctx context.Context, dir, tree, parent, message string) (string, error) {
	c, err := StackCommitCmd(dir, tree, parent, message)
	if err != nil {
		return "", err
	}
	return r.OutputOID(ctx, c)
}

// splitFields splits NUL-terminated output into its fields (the last NUL ends the last
// field; empty fields in between are kept).
func splitFields(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	parts := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	return parts
}

func uniqueNonEmpty(in []string) []string {
	seen := make(map[string]bool, len(in))
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// WorktreeAddScratchCmd checks commit out, detached, in a new worktree at path, locked
// with reason so that neither `git worktree prune` nor copse's own prune takes it while
// copse uses it (a speculative gate runs there). Its owner removes it with
// WorktreeRemove(dir, path, true, true).
func WorktreeAddScratchCmd(dir, path, commit, reason string) (Cmd, error) {
	if err := check("worktree add", checkDir(dir), checkPath("path", path), checkOID("commit", commit),
		checkReflogMessage(reason)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"-c", "submodule.recurse=false", "-c", "core.hooksPath=/dev/null",
		"worktree", "add", "--detach", "--lock", "--reason", reason, "--", path, commit}}, nil
}
