package core

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
	"github.com/copse-dev/copse/gitx/divergence"
)

// Reads and small writes behind the picker's views (create form, sorting, last
// commits, refresh) and the commands it hands to the terminal (editor, shell).

// DefaultPath is where `create` would put a worktree for the branch raw names (the
// branch is parsed exactly as Prepare parses it).
func (s *Service) DefaultPath(ctx context.Context, raw string) (string, error) {
	b, err := s.impl.ParseBranch(ctx, "branch", raw)
	if err != nil {
		return "", err
	}
	p, err := s.impl.DefaultPath(ctx, b)
	return p.String(), err
}

// HeadCommit is the commit a base of "HEAD" names: the HEAD of the worktree this session
// is in. (Without a base, create starts elsewhere: see DefaultBase.)
func (s *Service) HeadCommit(ctx context.Context) (Commit, error) {
	oid, err := s.impl.Git.ResolveCommit(ctx, s.impl.at(), "HEAD")
	if err != nil {
		return Commit{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve HEAD")
	}
	cs, err := s.Commits(ctx, []string{oid})
	if err != nil {
		return Commit{OID: oid}, nil // the id alone still says which commit
	}
	if c, ok := cs[oid]; ok {
		return c, nil
	}
	return Commit{OID: oid}, nil
}

// Commit is a worktree's last commit as the picker shows it. Text fields are escaped.
type Commit struct {
	OID     string
	When    time.Time
	Author  string
	Subject string
}

// Commits describes each object id (a worktree's head) in one git process.
func (s *Service) Commits(ctx context.Context, oids []string) (map[string]Commit, error) {
	var valid []string
	seen := map[string]bool{}
	for _, o := range oids {
		if !seen[o] && fullOID(o) {
			seen[o] = true
			valid = append(valid, o)
		}
	}
	got, err := s.impl.Git.Commits(ctx, s.impl.Root(), valid)
	if err != nil {
		return nil, GitFailure(CodeLogFailed, err, "cannot read the last commits")
	}
	out := make(map[string]Commit, len(got))
	for o, c := range got {
		out[o] = Commit{OID: o, When: c.When, Author: Escape(c.Author), Subject: Escape(c.Subject)}
	}
	return out, nil
}

// Sort orders of the picker, remembered in git config copse.sort.
const (
	SortName   = "name"   // main checkout first, then by branch name
	SortRecent = "recent" // main checkout first, then the most recent commit first
	SortPath   = "path"   // main checkout first, then by path
	// SortNeedsYou: main checkout first, then the worktrees whose agent waits for a person
	// (Agent.State blocked), then by branch name.
	SortNeedsYou = "needs-you"
)

// SortOrders is the cycle `s` steps through.
var SortOrders = []string{SortName, SortRecent, SortPath, SortNeedsYou}

// SortOrder reads git config copse.sort; unset or unknown values are SortName.
func (s *Service) SortOrder(ctx context.Context) string {
	v, ok, err := s.impl.Git.ConfigValue(ctx, s.impl.Root(), "copse.sort")
	if err != nil || !ok {
		return SortName
	}
	v = strings.TrimSpace(v)
	for _, o := range SortOrders {
		if v == o {
			return o
		}
	}
	return SortName
}

// SetSortOrder remembers the picker's sort order: a person's preference, so in the user's
// global git config (git config --global copse.sort), never in the repository's, which
// the next clone or colleague does not share. A repository whose own config already sets
// copse.sort (by hand, or by an older copse) keeps it there: that value wins over the
// global one, so writing elsewhere would leave the cycle stuck.
func (s *Service) SetSortOrder(ctx context.Context, order string) error {
	known := false
	for _, o := range SortOrders {
		known = known || o == order
	}
	if !known {
		return Usage(CodeBadSort, "sort", "use one of "+strings.Join(SortOrders, ", "), "sort order %s is not known", Quote(order))
	}
	root := s.impl.Root()
	_, local, err := s.impl.Git.LocalConfigValue(ctx, root, "copse.sort")
	if err != nil {
		return GitFailure(CodeConfigFailed, err, "cannot read the repository's git config copse.sort")
	}
	if local {
		err = s.impl.Git.SetConfig(ctx, root, "copse.sort", order)
	} else {
		err = s.impl.Git.SetGlobalConfig(ctx, root, "copse.sort", order)
	}
	if err != nil {
		return GitFailure(CodeConfigFailed, err, "cannot write git config copse.sort")
	}
	return nil
}

// WorktreesStamp changes whenever git adds, removes, locks, moves or re-points a linked
// worktree, or the main checkout changes branch: it is the modification times of
// <common dir>/HEAD, <common dir>/worktrees and each entry in it (git writes an entry's
// files through lock files, which touches the entry's directory). It reads only the file
// system, so the picker can poll it every few seconds.
func (s *Service) WorktreesStamp(ctx context.Context) (string, error) {
	commonDir, err := s.impl.CommonDir(ctx)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(commonDir, "worktrees")
	var b strings.Builder
	if hi, err := os.Stat(filepath.Join(commonDir, "HEAD")); err == nil {
		b.WriteString("HEAD:" + strconv.FormatInt(hi.ModTime().UnixNano(), 36) + " ")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return b.String() + "none", nil
		}
		return "", Failed(CodeStatFailed, err, "", "cannot read %s: %s", Escape(dir), Escape(err.Error()))
	}
	b.WriteString(strconv.FormatInt(fi.ModTime().UnixNano(), 36))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", Failed(CodeStatFailed, err, "", "cannot read %s: %s", Escape(dir), Escape(err.Error()))
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue // removed between ReadDir and Info: the directory's time changed too
		}
		b.WriteString(" " + e.Name() + ":" + strconv.FormatInt(info.ModTime().UnixNano(), 36))
	}
	return b.String(), nil
}

// EditorCommand is $VISUAL (else $EDITOR) opened on the worktree at path, run through
// sh so an editor setting with arguments ("code -w") works as it does in git.
func (s *Service) EditorCommand(path string) (*exec.Cmd, error) {
	ed := strings.TrimSpace(s.impl.Opts.Getenv("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(s.impl.Opts.Getenv("EDITOR"))
	}
	if ed == "" {
		return nil, Usage(CodeNoEditor, "", "set one, e.g. export EDITOR=vi", "neither $VISUAL nor $EDITOR is set")
	}
	c := exec.Command("sh", "-c", ed+` "$1"`, "sh", path)
	c.Dir = path
	c.Env = s.impl.childEnv()
	return c, nil
}

// ShellCommand is $SHELL (else /bin/sh) started in the worktree at path.
func (s *Service) ShellCommand(path string) *exec.Cmd {
	sh := strings.TrimSpace(s.impl.Opts.Getenv("SHELL"))
	if sh == "" {
		sh = "/bin/sh"
	}
	c := exec.Command(sh)
	c.Dir = path
	c.Env = s.impl.childEnv()
	return c
}

// childEnv is the environment of a program the person runs from copse (editor, shell):
// the process's plus Options.Env, as copse's own git gets it (a nil Env would drop the latter).
func (s *Env) childEnv() []string { return append(os.Environ(), s.Opts.Env...) }

// fullOID: what git prints as a commit id (a row without one, like a bare repository's,
// has nothing to describe).
func fullOID(v string) bool {
	if len(v) != 40 && len(v) != 64 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Preview is what the picker's preview shows of one worktree. Every line is escaped.
type Preview struct {
	Path     string
	Status   []string // git status --short --branch
	Log      []string // the last commits: short id, age, subject
	Base     string   // what the diffstat is against: "main (abc1234)"; "" when unknown
	DiffStat []string // git diff --stat against the merge-base with the main branch
	Problems []string // parts that could not be read, and why
}

// previewCommits is how many commits the preview lists.
const previewCommits = 10

// Preview reads the worktree at path: its changed files, its last commits and its
// diffstat against its base, the merge-base of HEAD with mainBranch (the main checkout's
// branch; no diffstat when empty or when path is on it).
func (s *Service) Preview(ctx context.Context, path, mainBranch string) (*Preview, error) {
	if !filepath.IsAbs(path) {
		return nil, Usage(CodeBadPath, "path", "name an absolute worktree path", "%s is not an absolute path", Quote(path))
	}
	g := s.impl.Git
	p := &Preview{Path: path}
	lines := func(c gitx.Cmd, err error) ([]string, error) {
		if err != nil {
			return nil, err
		}
		out, err := g.Text(ctx, c)
		if err != nil {
			return nil, err
		}
		var ls []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" {
				ls = append(ls, Escape(l))
			}
		}
		return ls, nil
	}
	problem := func(what string, err error) {
		if err == nil {
			p.Problems = append(p.Problems, what+": git printed nothing usable")
			return
		}
		p.Problems = append(p.Problems, GitFailure(CodePreviewFailed, err, what).Message)
	}
	var err error
	if p.Status, err = lines(gitx.StatusShort(path)); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		problem("status", err)
	}
	if p.Log, err = lines(gitx.RecentLog(path, previewCommits)); err != nil {
		problem("log", err)
	}
	if mainBranch == "" {
		return p, nil
	}
	base, err := lines(gitx.MergeBaseCmd(path, "refs/heads/"+mainBranch, "HEAD"))
	if err != nil || len(base) != 1 {
		problem("base", err)
		return p, nil
	}
	p.Base = Escape(mainBranch) + " (" + Short(base[0]) + ")"
	if p.DiffStat, err = lines(gitx.DiffStatFrom(path, base[0])); err != nil {
		problem("diffstat", err)
	}
	return p, nil
}

// Divergence is how far a worktree's HEAD is from the main branch.
type Divergence struct {
	Ahead, Behind int // commits only on HEAD, only on the main branch
}

// Divergences compares each worktree's HEAD with mainBranch (for the picker's detail
// line). The answers are kept by the pair of commits (gitx/divergence): a row on the main
// branch's commit runs no git, and a pair asked before (in this process, or in an earlier
// one) none either; the rest run one git rev-list each, in the order given (the caller
// puts the rows on screen first). Rows that cannot be compared are left out.
func (s *Service) Divergences(ctx context.Context, mainBranch string, rows []Worktree) map[string]Divergence {
	out := map[string]Divergence{}
	if mainBranch == "" {
		return out
	}
	si := s.impl
	base := ""
	for _, r := range rows {
		if r.Branch == mainBranch && r.Head != "" && !r.Detached {
			base = r.Head // the list just read says where the branch is: no git needed
			break
		}
	}
	if base == "" {
		oid, err := si.Git.ResolveCommit(ctx, si.Root(), "refs/heads/"+mainBranch)
		if err != nil {
			return out
		}
		base = oid
	}
	common, err := si.CommonDir(ctx)
	if err != nil {
		return out
	}
	cache := divergence.For(common)
	defer cache.Flush()
	for _, r := range rows {
		if ctx.Err() != nil {
			break
		}
		if r.Head == "" {
			continue // unborn or unreadable: nothing to compare
		}
		if d, err := cache.Count(ctx, si.Git, r.Path, base, r.Head); err == nil {
			out[r.Path] = Divergence{Ahead: d.Ahead, Behind: d.Behind}
		}
	}
	return out
}
