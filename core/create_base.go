package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Where a new branch starts. Without --base it is git config copse.base, else the main
// checkout's branch: never the HEAD of whichever worktree copse happens to run in, which
// may be another agent's unreviewed work (branching off it and landing the result would
// put that work into main without anyone choosing it).

// Where a new branch's start came from (CreateBase.From).
const (
	BaseFromRequest = "request" // --base (the request's base field)
	BaseFromConfig  = "config"  // git config copse.base
	BaseFromMain    = "main"    // the main checkout's branch, or its HEAD commit when it has none
	BaseFromRemote  = "remote"  // the remote branch a local branch of the same name is made from
)

// CreateBase is the ref and commit a new branch starts from, as every front end reports
// it and as the worktree's metadata keeps it.
type CreateBase struct {
	Ref    string `json:"ref"`              // as named: main, v1.0, origin/feat, or the commit id itself
	Commit string `json:"commit"`           // the commit the branch starts at
	Branch string `json:"branch,omitempty"` // the local branch Ref names, if it names one: land's default --into
	From   string `json:"from"`             // request, config, main or remote
}

// Describe is "main at abc1234", or "abc1234" when the base is a bare commit.
func (b CreateBase) Describe() string {
	if b.Ref == "" || b.Ref == b.Commit {
		return short(b.Commit)
	}
	return Escape(b.Ref) + " at " + short(b.Commit)
}

// startBase is what the create of c reports as its base; nil for an existing branch,
// which is checked out where it is.
func (c *createCmd) startBase() *CreateBase {
	if c.existing {
		return nil
	}
	return &CreateBase{Ref: c.base.Ref, Commit: c.base.OID, Branch: c.baseBranch, From: c.baseFrom}
}

// baseChoice is a resolved base with what the create reports about it.
type baseChoice struct {
	base    BaseCommit
	branch  string // local branch the base names, "" when none
	from    string
	warning string
}

// requestedBase resolves a base the request names, in the worktree the session is in
// (so HEAD and @{-1} mean what they mean there: the caller chose them).
func (s *Env) requestedBase(ctx context.Context, raw string) (baseChoice, error) {
	b, err := s.parseBase(ctx, raw)
	if err != nil {
		return baseChoice{}, err
	}
	branch, err := s.localBranchOf(ctx, s.at(), raw)
	if err != nil {
		return baseChoice{}, err
	}
	return baseChoice{base: b, branch: branch, from: BaseFromRequest}, nil
}

// localBranchOf is the local branch ref names at dir by git's own resolution ("" when it
// names a tag, a remote branch or a commit).
func (s *Env) localBranchOf(ctx context.Context, dir, ref string) (string, error) {
	full, err := s.Git.FullRefName(ctx, dir, ref)
	if err != nil {
		return "", GitFailure(CodeResolveBaseFailed, err, "cannot resolve the base")
	}
	b, ok := strings.CutPrefix(full, "refs/heads/")
	if !ok {
		return "", nil
	}
	return b, nil
}

// defaultBase is the base of a new branch the request gives none for: git config
// copse.base when set, else the main checkout's branch. A main checkout without a branch
// (detached, or a bare repository whose HEAD is detached) gives its HEAD commit, with a
// warning saying so; one with no commit at all is refused, asking for --base.
func (s *Env) defaultBase(ctx context.Context, snap Snapshot) (baseChoice, error) {
	main := s.Root()
	v, ok, err := s.Git.ConfigValue(ctx, main, "copse.base")
	if err != nil {
		return baseChoice{}, GitFailure(CodeConfigFailed, err, "cannot read git config copse.base")
	}
	if v = strings.TrimSpace(v); ok && v != "" {
		return s.configBase(ctx, main, v)
	}
	if len(snap.Trees) == 0 {
		return baseChoice{}, usage(CodeUnknownBase, "base", "pass --base REF", "git lists no main checkout to start a new branch from")
	}
	t := snap.Trees[0]
	branch := t.Branch
	switch {
	case t.Bare:
		// A bare repository's HEAD names its default branch (or is detached).
		ref, err := s.Git.SymbolicHeadRef(ctx, t.Path)
		if err != nil {
			return baseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot read HEAD of the bare repository")
		}
		branch, _ = strings.CutPrefix(ref, "refs/heads/")
	case branch == "":
		branch = rebasingBranch(t) // mid-rebase its branch still names where it was
	}
	if branch == "" {
		oid, err := s.Git.ResolveCommit(ctx, t.Path, "HEAD")
		if err != nil {
			if refusedByGit(err) {
				return baseChoice{}, usage(CodeUnknownBase, "base", "pass --base REF, or set git config copse.base",
					"the main checkout has no branch and no commit to start a new branch from")
			}
			return baseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve HEAD of the main checkout")
		}
		return baseChoice{base: BaseCommit{Ref: oid, OID: oid}, from: BaseFromMain,
			warning: "the main checkout has no branch checked out: the new branch starts at its HEAD commit " + short(oid) +
				" (pass --base or set git config copse.base to choose)"}, nil
	}
	oid, err := s.Git.ResolveCommit(ctx, main, "refs/heads/"+branch)
	if err != nil {
		if refusedByGit(err) {
			return baseChoice{}, usage(CodeUnknownBase, "base", "commit on it first, or pass --base REF",
				"the main checkout's branch %s has no commit to start a new branch from", Escape(branch))
		}
		return baseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve the main checkout's branch")
	}
	return baseChoice{base: BaseCommit{Ref: branch, OID: oid}, branch: branch, from: BaseFromMain}, nil
}

// configBase resolves git config copse.base in the main checkout: a setting is the
// repository's, so HEAD in it means the main checkout's HEAD, wherever copse runs.
func (s *Env) configBase(ctx context.Context, main, v string) (baseChoice, error) {
	const hint = "set a branch, tag or commit that exists (git config copse.base main), or unset it (git config --unset copse.base)"
	if checkText("copse.base", v, maxRef) != nil {
		return baseChoice{}, usage(CodeBadBaseConfig, "copse.base", hint, "git config copse.base is %s, which is not a plain ref", quote(v))
	}
	oid, err := s.Git.ResolveCommit(ctx, main, v)
	if err != nil {
		if refusedByGit(err) {
			return baseChoice{}, usage(CodeBadBaseConfig, "copse.base", hint, "git config copse.base is %s, which does not name a commit", quote(v))
		}
		return baseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve git config copse.base")
	}
	branch, err := s.localBranchOf(ctx, main, v)
	if err != nil {
		return baseChoice{}, err
	}
	return baseChoice{base: BaseCommit{Ref: v, OID: oid}, branch: branch, from: BaseFromConfig}, nil
}

// DefaultBase is where a new branch without a base would start now (copse.base, else
// the main checkout's branch), for the picker's create form to show before confirming.
func (s *Service) DefaultBase(ctx context.Context) (CreateBase, error) {
	snap, err := s.impl.readAndLearn(ctx)
	if err != nil {
		return CreateBase{}, err
	}
	ch, err := s.impl.defaultBase(ctx, snap)
	if err != nil {
		return CreateBase{}, err
	}
	return CreateBase{Ref: ch.base.Ref, Commit: ch.base.OID, Branch: ch.branch, From: ch.from}, nil
}

// ResolveBase is where a new branch with base raw would start, resolved as Prepare
// resolves it, for the picker's form to show the commit of a typed base.
func (s *Service) ResolveBase(ctx context.Context, raw string) (CreateBase, error) {
	ch, err := s.impl.requestedBase(ctx, raw)
	if err != nil {
		return CreateBase{}, err
	}
	return CreateBase{Ref: ch.base.Ref, Commit: ch.base.OID, Branch: ch.branch, From: ch.from}, nil
}

// ---- the worktree's own metadata

// worktreeMeta is what copse keeps about a worktree beyond git, in its admin directory
// (<common>/worktrees/<id>/copse.json), so it goes when git forgets the worktree.
type worktreeMeta struct {
	V       int         `json:"v"`
	Created time.Time   `json:"created"`
	Base    *CreateBase `json:"base,omitempty"` // nil for a worktree of an existing branch
}

const (
	metaFile    = "copse.json"
	maxMetaSize = 64 << 10
)

func metaPath(commonDir, id string) string { return filepath.Join(adminDir(commonDir, id), metaFile) }

// writeWorktreeMeta replaces the metadata whole (temporary file, then rename), so a
// reader never sees half of it.
func writeWorktreeMeta(commonDir, id string, m worktreeMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	p := metaPath(commonDir, id)
	tmp, err := os.CreateTemp(filepath.Dir(p), metaFile+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// readWorktreeMeta reads a worktree's metadata; ok is false when it has none or it
// cannot be read as copse wrote it (a worktree made by git or an older copse).
func readWorktreeMeta(commonDir, id string) (worktreeMeta, bool) {
	var m worktreeMeta
	if id == "" {
		return m, false
	}
	b, err := readSmall(metaPath(commonDir, id))
	if err != nil || len(b) > maxMetaSize || json.Unmarshal(b, &m) != nil || m.V != 1 {
		return worktreeMeta{}, false
	}
	return m, true
}

// recordCreate writes the new worktree's metadata. The create has happened whatever
// this does, so a failure is a warning that says what land will do instead.
func (s *Env) recordCreate(ctx context.Context, c *createCmd, w *Worktree) string {
	base := c.startBase()
	commonDir, err := s.commonDir(ctx)
	id := w.ID
	if err == nil && id == "" {
		id = idOf(worktreeIDs(commonDir), w.Path)
	}
	if err == nil && id == "" {
		err = os.ErrNotExist
	}
	if err == nil {
		err = writeWorktreeMeta(commonDir, id, worktreeMeta{V: 1, Created: time.Now().UTC().Truncate(time.Second), Base: base})
	}
	if err == nil || base == nil || base.Branch == "" {
		return ""
	}
	return "could not record the base " + Escape(base.Branch) + " of " + Escape(w.Path) + " (" + Escape(err.Error()) +
		"): land it with --into " + quoteDisplay(base.Branch)
}

// recordedInto is the branch the worktree with id was created from, as its metadata
// keeps it; "" when it has none (made by git, from a tag, a remote branch or a commit).
func recordedInto(commonDir, id string) string {
	m, ok := readWorktreeMeta(commonDir, id)
	if !ok || m.Base == nil || checkText("into", m.Base.Branch, maxBranch) != nil {
		return ""
	}
	return m.Base.Branch
}
