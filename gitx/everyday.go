package gitx

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Reads and one write behind the picker's everyday views: the sort order it remembers
// (git config copse.sort) and the last commit of each worktree.

// ConfigSet writes one value to the repository's local config (.git/config).
func ConfigSet(dir, key, value string) (Cmd, error) {
	reason := ""
	if hasControl(value) {
		reason = "value " + strconv.Quote(value) + " contains a control character"
	}
	if err := check("config", checkDir(dir), checkConfigKey(key), reason); err != nil {
		return Cmd{}, err
	}
	return Cmd{dir: dir, args: []string{"config", "--local", "--end-of-options", key, value}}, nil
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
