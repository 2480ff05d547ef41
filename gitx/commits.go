package gitx

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/internal/textsafe"
)

// Commits and how they relate, as the picker's views and land read them: the last commit
// of each worktree, the recent log, merge bases, diffstats, divergence and upstreams; also
// `git status --short` for the preview and the one config write (the sort order the picker
// remembers in copse.sort).

// ConfigSet writes one value to the repository's local config (.git/config).
func ConfigSet(dir, key, value string) (Cmd, error) {
	reason := ""
	if h := textsafe.HiddenKind(value); h != "" {
		reason = "value " + strconv.Quote(value) + " contains " + h
	}
	if err := check("config", checkDir(dir), checkConfigKey(key), reason); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--local", "--end-of-options", key, value}}, nil
}

// ConfigSetGlobal writes key = value to the user's global config (git config --global:
// $GIT_CONFIG_GLOBAL, else ~/.gitconfig or the XDG file git picks): where a person's own
// preference belongs, not in one repository's config.
func ConfigSetGlobal(dir, key, value string) (Cmd, error) {
	c, err := ConfigSet(dir, key, value)
	if err != nil {
		return Cmd{}, err
	}
	c.args[1] = "--global"
	return c, nil
}

// SetGlobalConfig runs ConfigSetGlobal.
func (r *Runner) SetGlobalConfig(ctx context.Context, dir, key, value string) error {
	c, err := ConfigSetGlobal(dir, key, value)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, c)
	return err
}

// ConfigGetLocal reads one value from the repository's own config only (git config
// --local); git exits 1 with no output when it is unset there.
func ConfigGetLocal(dir, key string) (Cmd, error) {
	c, err := ConfigGet(dir, key)
	if err != nil {
		return Cmd{}, err
	}
	c.args = append([]string{"config", "--local"}, c.args[1:]...)
	return c, nil
}

// LocalConfigValue runs ConfigGetLocal; ok is false when the repository's config does not
// set key.
func (r *Runner) LocalConfigValue(ctx context.Context, dir, key string) (string, bool, error) {
	c, err := ConfigGetLocal(dir, key)
	if err != nil {
		return "", false, err
	}
	return r.configGet(ctx, c)
}

// SetConfig runs ConfigSet.
func (r *Runner) SetConfig(ctx context.Context, dir, key, value string) error {
	c, err := ConfigSet(dir, key, value)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, c)
	return err
}

// Commit is what the picker shows of a worktree's last commit.
type Commit struct {
	OID     string
	When    time.Time
	Author  string
	Subject string
}

// commitFormat separates fields with US and records with NUL (-z): a subject cannot
// contain either, so it cannot forge a field.
const commitFormat = "%H%x1f%ct%x1f%an%x1f%s"

// CommitsOf describes each of oids (full object ids) in one `git log --no-walk`.
func CommitsOf(dir string, oids []string) (Cmd, error) {
	reasons := []string{checkDir(dir)}
	for _, o := range oids {
		reasons = append(reasons, checkOID("oid", o))
	}
	if err := check("log", reasons...); err != nil {
		return Cmd{}, err
	}
	args := append([]string{"log", "--no-walk=unsorted", "-z", "--format=" + commitFormat, "--end-of-options"}, oids...)
	return Cmd{dir: dir, args: args, read: true}, nil
}

// Commits runs CommitsOf and returns the commits by object id.
func (r *Runner) Commits(ctx context.Context, dir string, oids []string) (map[string]Commit, error) {
	out := map[string]Commit{}
	if len(oids) == 0 {
		return out, nil
	}
	c, err := CommitsOf(dir, oids)
	if err != nil {
		return nil, err
	}
	b, err := r.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return ParseCommits(b), nil
}

// ParseCommits reads CommitsOf's output; malformed records are skipped.
func ParseCommits(b []byte) map[string]Commit {
	out := map[string]Commit{}
	for _, rec := range strings.Split(string(b), "\x00") {
		rec = strings.TrimPrefix(rec, "\n")
		f := strings.SplitN(rec, "\x1f", 4)
		if len(f) != 4 || !isOID(f[0]) {
			continue
		}
		secs, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		out[f[0]] = Commit{OID: f[0], When: time.Unix(secs, 0), Author: f[2], Subject: f[3]}
	}
	return out
}

// StatusShort is `git status --short` as a person reads it (the preview shows it as is).
func StatusShort(dir string) (Cmd, error) {
	if err := check("status", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"-c", "color.status=never", "status", "--short", "--branch"}, read: true, limit: 256 << 10}, nil
}

// RecentLog is the last n commits of HEAD, one line each: short id, age, subject.
func RecentLog(dir string, n int) (Cmd, error) {
	if err := check("log", checkDir(dir)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"log", "--no-color", "-n", strconv.Itoa(n), "--format=%h %ar · %s", "HEAD"}, read: true}, nil
}

// MergeBaseCmd is the best common ancestor of a and b.
func MergeBaseCmd(dir, a, b string) (Cmd, error) {
	if err := check("merge-base", checkDir(dir), checkRef("a", a), checkRef("b", b)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"merge-base", "--end-of-options", a, b}, read: true}, nil
}

// DiffStatFrom is the diffstat of the work tree (committed and not) against base (an
// object id), as `git diff --stat` prints it.
func DiffStatFrom(dir, base string) (Cmd, error) {
	if err := check("diff", checkDir(dir), checkOID("base", base)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"diff", "--no-color", "--stat=200", base}, read: true, limit: 256 << 10}, nil
}

// LeftRightCount counts the commits only on a and only on b (a...b).
func LeftRightCount(dir, a, b string) (Cmd, error) {
	if err := check("rev-list", checkDir(dir), checkRef("a", a), checkRef("b", b)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"rev-list", "--left-right", "--count", a + "..." + b, "--"}, read: true}, nil
}

// Text runs a read-only command and returns its output without the final newline.
func (r *Runner) Text(ctx context.Context, c Cmd) (string, error) {
	out, err := r.Run(ctx, c)
	return strings.TrimSuffix(string(out), "\n"), err
}

// Divergence runs LeftRightCount: the commits only on a, and only on b.
func (r *Runner) Divergence(ctx context.Context, dir, a, b string) (onlyA, onlyB int, err error) {
	c, err := LeftRightCount(dir, a, b)
	if err != nil {
		return 0, 0, err
	}
	s, err := r.Text(ctx, c)
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("gitx: rev-list --count printed %q", s)
	}
	onlyA, err1 := strconv.Atoi(f[0])
	onlyB, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("gitx: rev-list --count printed %q", s)
	}
	return onlyA, onlyB, nil
}

// UpstreamCmd prints branch's upstream: its tracking ref, its remote's name and the
// branch's name there (refs/remotes/origin/x origin refs/heads/x), or an empty line when
// it has none.
func UpstreamCmd(dir, branch string) (Cmd, error) {
	if err := check("for-each-ref", checkDir(dir), checkBranch("branch", branch)); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"for-each-ref", "--format=%(upstream) %(upstream:remotename) %(upstream:remoteref)",
		"refs/heads/" + branch}, read: true}, nil
}

// Upstream runs UpstreamCmd. ok is false when branch has no upstream on a remote (none
// configured, or one on the local repository, remote ".").
func (r *Runner) Upstream(ctx context.Context, dir, branch string) (tracking, remote, remoteRef string, ok bool, err error) {
	c, err := UpstreamCmd(dir, branch)
	if err != nil {
		return "", "", "", false, err
	}
	s, err := r.Text(ctx, c)
	if err != nil {
		return "", "", "", false, err
	}
	f := strings.Fields(s)
	if len(f) != 3 || !strings.HasPrefix(f[0], "refs/remotes/") || f[1] == "." || !strings.HasPrefix(f[2], "refs/heads/") {
		return "", "", "", false, nil
	}
	return f[0], f[1], f[2], true, nil
}
