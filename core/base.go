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
		return Short(b.Commit)
	}
	return Escape(b.Ref) + " at " + Short(b.Commit)
}

// StartBase is what the create of c reports as its base; nil for an existing branch,
// which is checked out where it is.
func (c *CreateSpec) StartBase() *CreateBase {
	if c.Existing {
		return nil
	}
	return &CreateBase{Ref: c.Base.Ref, Commit: c.Base.OID, Branch: c.BaseBranch, From: c.BaseFrom}
}

// BaseChoice is a resolved base with what the create reports about it.
type BaseChoice struct {
	Base    BaseCommit
	Branch  string // local branch the base names, "" when none
	From    string
	Warning string
}

// RequestedBase resolves a base the request names, in the worktree the session is in
// (so HEAD and @{-1} mean what they mean there: the caller chose them).
func (s *Env) RequestedBase(ctx context.Context, raw string) (BaseChoice, error) {
	b, err := s.ParseBase(ctx, raw)
	if err != nil {
		return BaseChoice{}, err
	}
	branch, err := s.localBranchOf(ctx, s.at(), raw)
	if err != nil {
		return BaseChoice{}, err
	}
	return BaseChoice{Base: b, Branch: branch, From: BaseFromRequest}, nil
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

// DefaultBase is the base of a new branch the request gives none for: git config
// copse.base when set, else the main checkout's branch. A main checkout without a branch
// (detached, or a bare repository whose HEAD is detached) gives its HEAD commit, with a
// warning saying so; one with no commit at all is refused, asking for --base.
func (s *Env) DefaultBase(ctx context.Context, snap Snapshot) (BaseChoice, error) {
	main := s.Root()
	v, ok, err := s.Git.ConfigValue(ctx, main, "copse.base")
	if err != nil {
		return BaseChoice{}, GitFailure(CodeConfigFailed, err, "cannot read git config copse.base")
	}
	if v = strings.TrimSpace(v); ok && v != "" {
		return s.configBase(ctx, main, v)
	}
	if len(snap.Trees) == 0 {
		return BaseChoice{}, Usage(CodeUnknownBase, "base", "pass --base REF", "git lists no main checkout to start a new branch from")
	}
	t := snap.Trees[0]
	branch := t.Branch
	switch {
	case t.Bare:
		// A bare repository's HEAD names its default branch (or is detached).
		ref, err := s.Git.SymbolicHeadRef(ctx, t.Path)
		if err != nil {
			return BaseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot read HEAD of the bare repository")
		}
		branch, _ = strings.CutPrefix(ref, "refs/heads/")
	case branch == "":
		branch = RebasingBranch(t) // mid-rebase its branch still names where it was
	}
	if branch == "" {
		oid, err := s.Git.ResolveCommit(ctx, t.Path, "HEAD")
		if err != nil {
			if RefusedByGit(err) {
				return BaseChoice{}, Usage(CodeUnknownBase, "base", "pass --base REF, or set git config copse.base",
					"the main checkout has no branch and no commit to start a new branch from")
			}
			return BaseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve HEAD of the main checkout")
		}
		return BaseChoice{Base: BaseCommit{Ref: oid, OID: oid}, From: BaseFromMain,
			Warning: "the main checkout has no branch checked out: the new branch starts at its HEAD commit " + Short(oid) +
				" (pass --base or set git config copse.base to choose)"}, nil
	}
	oid, err := s.Git.ResolveCommit(ctx, main, "refs/heads/"+branch)
	if err != nil {
		if RefusedByGit(err) {
			return BaseChoice{}, Usage(CodeUnknownBase, "base", "commit on it first, or pass --base REF",
				"the main checkout's branch %s has no commit to start a new branch from", Escape(branch))
		}
		return BaseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve the main checkout's branch")
	}
	return BaseChoice{Base: BaseCommit{Ref: branch, OID: oid}, Branch: branch, From: BaseFromMain}, nil
}

// configBase resolves git config copse.base in the main checkout: a setting is the
// repository's, so HEAD in it means the main checkout's HEAD, wherever copse runs.
func (s *Env) configBase(ctx context.Context, main, v string) (BaseChoice, error) {
	const hint = "set a branch, tag or commit that exists (git config copse.base main), or unset it (git config --unset copse.base)"
	if CheckText("copse.base", v, maxRef) != nil {
		return BaseChoice{}, Usage(CodeBadBaseConfig, "copse.base", hint, "git config copse.base is %s, which is not a plain ref", Quote(v))
	}
	oid, err := s.Git.ResolveCommit(ctx, main, v)
	if err != nil {
		if RefusedByGit(err) {
			return BaseChoice{}, Usage(CodeBadBaseConfig, "copse.base", hint, "git config copse.base is %s, which does not name a commit", Quote(v))
		}
		return BaseChoice{}, GitFailure(CodeResolveBaseFailed, err, "cannot resolve git config copse.base")
	}
	branch, err := s.localBranchOf(ctx, main, v)
	if err != nil {
		return BaseChoice{}, err
	}
	return BaseChoice{Base: BaseCommit{Ref: v, OID: oid}, Branch: branch, From: BaseFromConfig}, nil
}

// DefaultBase is where a new branch without a base would start now (copse.base, else
// the main checkout's branch), for the picker's create form to show before confirming.
func (s *Service) DefaultBase(ctx context.Context) (CreateBase, error) {
	snap, err := s.impl.ReadAndLearn(ctx)
	if err != nil {
		return CreateBase{}, err
	}
	ch, err := s.impl.DefaultBase(ctx, snap)
	if err != nil {
		return CreateBase{}, err
	}
	return CreateBase{Ref: ch.Base.Ref, Commit: ch.Base.OID, Branch: ch.Branch, From: ch.From}, nil
}

// ResolveBase is where a new branch with base raw would start, resolved as Prepare
// resolves it, for the picker's form to show the commit of a typed base.
func (s *Service) ResolveBase(ctx context.Context, raw string) (CreateBase, error) {
	ch, err := s.impl.RequestedBase(ctx, raw)
	if err != nil {
		return CreateBase{}, err
	}
	return CreateBase{Ref: ch.Base.Ref, Commit: ch.Base.OID, Branch: ch.Branch, From: ch.From}, nil
}

// ---- the worktree's own metadata

// WorktreeMeta is what copse keeps about a worktree beyond git, in its admin directory
// (<common>/worktrees/<id>/copse.json), so it goes when git forgets the worktree.
type WorktreeMeta struct {
	V       int         `json:"v"`
	Created time.Time   `json:"created"`
	Base    *CreateBase `json:"base,omitempty"` // nil for a worktree of an existing branch
}

const (
	metaFile    = "copse.json"
	maxMetaSize = 64 << 10
)

func metaPath(commonDir, id string) string { return filepath.Join(AdminDir(commonDir, id), metaFile) }

// WriteWorktreeMeta replaces the metadata whole (temporary file, then rename), so a
// reader never sees half of it.
func WriteWorktreeMeta(commonDir, id string, m WorktreeMeta) error {
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
func ReadWorktreeMeta(commonDir, id string) (WorktreeMeta, bool) {
	var m WorktreeMeta
	if id == "" {
		return m, false
	}
	b, err := readSmall(metaPath(commonDir, id))
	if err != nil || len(b) > maxMetaSize || json.Unmarshal(b, &m) != nil || m.V != 1 {
		return WorktreeMeta{}, false
	}
	return m, true
}

// recordedInto is the branch the worktree with id was created from, as its metadata
// keeps it; "" when it has none (made by git, from a tag, a remote branch or a commit).
func RecordedInto(commonDir, id string) string {
	m, ok := ReadWorktreeMeta(commonDir, id)
	if !ok || m.Base == nil || CheckText("into", m.Base.Branch, MaxBranch) != nil {
		return ""
	}
	return m.Base.Branch
}
