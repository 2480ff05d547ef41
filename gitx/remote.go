package gitx

import (
	"context"
	"fmt"
	"strings"
)

// RemoteList prints the configured remotes, one name per line.
func RemoteList(dir string) (Cmd, error) {
	if err := check("remote", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"remote"}, read: true}, nil
}

// RemoteBranchRefs prints "<oid> <refname>" for every remote-tracking ref
// (symbolic ones such as origin/HEAD excluded by the caller via %(symref)).
func RemoteBranchRefs(dir string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(objectname) %(symref) %(refname)", "refs/remotes/"}, read: true}, nil
}

// WorktreeAddTrack creates branch from the remote-tracking branch
// refs/remotes/<remote>/<name>, sets it as the upstream, and checks it out at
// path: what `git worktree add` does implicitly for a unique remote branch,
// spelt out so git cannot guess differently (another remote, an existing local
// branch). remote and name are checked as branch-name parts.
func WorktreeAddTrack(dir, path, branch, remote, name string) (Cmd, error) {
	if err := check("worktree add", checkDir(dir), checkPath("path", path),
		checkBranch("branch", branch), checkBranch("remote", remote), checkBranch("remote branch", name)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"worktree", "add", "--track", "-b", branch, "--", path,
		"refs/remotes/" + remote + "/" + name}}, nil
}

// BranchSetUpstream makes refs/remotes/<remote>/<name> the upstream of branch.
func BranchSetUpstream(dir, branch, remote, name string) (Cmd, error) {
	if err := check("branch", checkDir(dir), checkBranch("branch", branch),
		checkBranch("remote", remote), checkBranch("remote branch", name)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"branch", "--set-upstream-to=refs/remotes/" + remote + "/" + name, "--", branch}}, nil
}

// BranchDeleteIfAt deletes refs/heads/<branch> only while it still points at
// oid (compare-and-swap): a branch someone moved meanwhile is left alone.
// Unlike `git branch -D` it leaves the branch's config section; see
// ConfigRemoveSection.
func BranchDeleteIfAt(dir, branch, oid string) (Cmd, error) {
	if err := check("update-ref", checkDir(dir), checkBranch("branch", branch), checkOID("oid", oid)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"update-ref", "-d", "--end-of-options", "refs/heads/" + branch, oid}}, nil
}

// BranchConfigRemove removes the config section branch.<branch> (upstream
// settings) that `worktree add --track` wrote.
func BranchConfigRemove(dir, branch string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--remove-section", "--end-of-options", "branch." + branch}}, nil
}

// BranchConfigList prints branch.<branch>.* settings; git exits 1 silently when
// there are none.
func BranchConfigList(dir, branch string) (Cmd, error) {
	if err := check("config", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--get-regexp", "--end-of-options", "^branch\\." + regexpQuote(branch) + "\\."}, read: true}, nil
}

// regexpQuote escapes the characters of a branch name that are special in
// git's extended regular expressions ('.' and '+', '$', '(' and friends;
// checkBranch already excludes * ? [ \ and ^).
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(".+$(){}|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// RemoteBranch is one remote-tracking branch: refs/remotes/<Remote>/<Name>.
type RemoteBranch struct {
	Remote string
	Name   string
	OID    string
}

// String is the short name git shows: origin/feat.
func (b RemoteBranch) String() string { return b.Remote + "/" + b.Name }

// Remotes lists the configured remote names.
func (r *Runner) Remotes(ctx context.Context, dir string) ([]string, error) {
	c, err := RemoteList(dir)
	if err != nil {
		return nil, err
	}
	return r.lines(ctx, c)
}

// RemoteTrackingBranches lists the remote-tracking branches of the configured remotes
// (symbolic refs such as origin/HEAD left out), splitting each ref name at the
// longest configured remote name it starts with. remotes is Remotes' answer.
func (r *Runner) RemoteTrackingBranches(ctx context.Context, dir string, remotes []string) ([]RemoteBranch, error) {
	c, err := RemoteBranchRefs(dir)
	if err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return parseRemoteBranches(string(out), remotes)
}

func parseRemoteBranches(out string, remotes []string) ([]RemoteBranch, error) {
	var list []RemoteBranch
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		oid, rest, ok := strings.Cut(l, " ")
		symref, ref, ok2 := strings.Cut(rest, " ")
		if !ok || !ok2 || !isOID(oid) {
			return nil, fmt.Errorf("gitx: for-each-ref printed %q, not \"<oid> <symref> <ref>\"", clip(l))
		}
		if symref != "" {
			continue
		}
		short, ok := strings.CutPrefix(ref, "refs/remotes/")
		if !ok {
			return nil, fmt.Errorf("gitx: for-each-ref printed %q outside refs/remotes/", clip(ref))
		}
		remote := ""
		for _, rm := range remotes {
			if strings.HasPrefix(short, rm+"/") && len(rm) > len(remote) {
				remote = rm
			}
		}
		if remote == "" {
			continue // a leftover of a remote that was removed: git's DWIM ignores it too
		}
		list = append(list, RemoteBranch{Remote: remote, Name: short[len(remote)+1:], OID: oid})
	}
	return list, nil
}

// BranchConfigured reports whether any branch.<branch>.* setting exists.
func (r *Runner) BranchConfigured(ctx context.Context, dir, branch string) (bool, error) {
	c, err := BranchConfigList(dir, branch)
	if err != nil {
		return false, err
	}
	_, err = r.Run(ctx, c)
	switch {
	case err == nil:
		return true, nil
	case exitedOneSilently(err):
		return false, nil
	}
	return false, err
}
