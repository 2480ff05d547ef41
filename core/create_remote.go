package core

import (
	"context"
	"errors"
	"strings"

	"github.com/copse-dev/copse/gitx"
)

// CreateSource says where the branch of a create comes from.
type CreateSource string

const (
	CreateNew        CreateSource = "new"       // a new branch from the base (default: copse.base, else the main checkout's branch)
	CreateExisting   CreateSource = "existing"  // the existing local branch is checked out
	CreateFromRemote CreateSource = "remote"    // a new local branch at a remote branch, tracking it
	CreateAmbiguous  CreateSource = "ambiguous" // several remotes have the branch: refused until one is named
)

// CreateKind is what a create of a branch name would do, for the picker's form to say
// while the name is typed. It is computed by the same resolution Prepare uses.
type CreateKind struct {
	Source  CreateSource
	Branch  string   // the local branch the create checks out (origin/x → x)
	Remote  string   // CreateFromRemote: the remote branch, e.g. "origin/feat"
	Remotes []string // CreateAmbiguous: the remotes that have the branch
}

// Describe is one line for the form: what will happen.
func (k CreateKind) Describe() string {
	switch k.Source {
	case CreateExisting:
		return "existing branch " + Escape(k.Branch) + " will be checked out"
	case CreateFromRemote:
		return "new branch " + Escape(k.Branch) + " from " + Escape(k.Remote) + " (tracking it)"
	case CreateAmbiguous:
		if len(k.Remotes) == 0 {
			return "branch " + Escape(k.Branch) + " is on several remotes: type <remote>/" + Escape(k.Branch)
		}
		return "branch " + Escape(k.Branch) + " is on remotes " + joinEscaped(k.Remotes) + ": type one, e.g. " +
			Escape(k.Remotes[0]+"/"+k.Branch)
	}
	return "new branch " + Escape(k.Branch) + " from the base"
}

func joinEscaped(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Escape(s)
	}
	return strings.Join(out, ", ")
}

// BranchSource is the resolved branch of a create request.
type BranchSource struct {
	Branch  BranchName
	Source  CreateSource
	Remote  *gitx.RemoteBranch  // CreateFromRemote
	matches []gitx.RemoteBranch // CreateAmbiguous
}

// ResolveCreateBranch decides what `create raw` means, the way git's own worktree add
// would guess but without guessing where git would:
//   - <remote>/<name>, where <remote> is a configured remote, means that remote branch: a
//     new local <name> at its commit, tracking it. Never a local branch literally named
//     "origin/name" (git itself would create one).
//   - an existing local branch is checked out;
//   - otherwise, without a base, a branch <name> that exactly one remote has is checked
//     out from it (tracking it), and one that several remotes have is ambiguous;
//   - otherwise a new branch from the base.
//
// It runs `git remote` (and for-each-ref over refs/remotes/ only when it must look for a
// remote branch); it changes nothing.
func (s *Env) ResolveCreateBranch(ctx context.Context, raw string, hasBase bool) (BranchSource, error) {
	name, err := s.ParseBranch(ctx, "branch", raw)
	if err != nil {
		return BranchSource{}, err
	}
	var remotes []string
	if strings.Contains(name.s, "/") || !hasBase {
		if remotes, err = s.Git.Remotes(ctx, s.Root()); err != nil {
			return BranchSource{}, GitFailure(CodeRemoteListFailed, err, "cannot list the remotes")
		}
	}
	if rb, ok := splitRemote(name.s, remotes); ok {
		return s.namedRemoteBranch(ctx, rb, hasBase)
	}
	exists, err := s.Git.BranchExists(ctx, s.Root(), name.s)
	if err != nil {
		return BranchSource{}, GitFailure(CodeBranchLookupFailed, err, "cannot check whether the branch exists")
	}
	if exists {
		return BranchSource{Branch: name, Source: CreateExisting}, nil
	}
	if hasBase || len(remotes) == 0 {
		return BranchSource{Branch: name, Source: CreateNew}, nil
	}
	all, err := s.Git.RemoteTrackingBranches(ctx, s.Root(), remotes)
	if err != nil {
		return BranchSource{}, GitFailure(CodeRemoteBranchesFailed, err, "cannot list the remote branches")
	}
	var matches []gitx.RemoteBranch
	for _, rb := range all {
		if rb.Name == name.s {
			matches = append(matches, rb)
		}
	}
	switch len(matches) {
	case 0:
		return BranchSource{Branch: name, Source: CreateNew}, nil
	case 1:
		return BranchSource{Branch: name, Source: CreateFromRemote, Remote: &matches[0]}, nil
	}
	return BranchSource{Branch: name, Source: CreateAmbiguous, matches: matches}, nil
}

// splitRemote splits "<remote>/<name>" at the longest configured remote it starts with.
func splitRemote(name string, remotes []string) (gitx.RemoteBranch, bool) {
	best := ""
	for _, r := range remotes {
		if strings.HasPrefix(name, r+"/") && len(name) > len(r)+1 && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return gitx.RemoteBranch{}, false
	}
	return gitx.RemoteBranch{Remote: best, Name: name[len(best)+1:]}, true
}

// namedRemoteBranch resolves an explicit origin/name: the remote branch must exist, and
// the local name must be free.
func (s *Env) namedRemoteBranch(ctx context.Context, rb gitx.RemoteBranch, hasBase bool) (BranchSource, error) {
	if hasBase {
		return BranchSource{}, Usage(CodeBaseWithRemoteBranch, "base", "drop the base: the new branch starts at "+Escape(rb.String()),
			"%s names a remote branch; a base applies only to a new branch of your own", Escape(rb.String()))
	}
	local, err := s.ParseBranch(ctx, "branch", rb.Name)
	if err != nil {
		return BranchSource{}, err
	}
	oid, err := s.Git.ResolveCommit(ctx, s.Root(), "refs/remotes/"+rb.String())
	if err != nil {
		if RefusedByGit(err) {
			return BranchSource{}, Refused(CodeNoRemoteBranch,
				"fetch it first (git fetch "+QuoteDisplay(rb.Remote)+"), or check the name: git branch -r lists the remote branches",
				"remote %s has no branch %s (there is no %s)", Escape(rb.Remote), Escape(rb.Name), Escape("refs/remotes/"+rb.String()))
		}
		return BranchSource{}, GitFailure(CodeResolveRemoteFailed, err, "cannot resolve the remote branch")
	}
	rb.OID = oid
	exists, err := s.Git.BranchExists(ctx, s.Root(), local.s)
	if err != nil {
		return BranchSource{}, GitFailure(CodeBranchLookupFailed, err, "cannot check whether the branch exists")
	}
	if exists {
		return BranchSource{}, Refused(CodeBranchExists,
			"check out the local branch (`copse create "+QuoteDisplay(local.s)+"`), or delete it first",
			"%s would become local branch %s, which already exists", Escape(rb.String()), Escape(local.s))
	}
	return BranchSource{Branch: local, Source: CreateFromRemote, Remote: &rb}, nil
}

// AmbiguousRemote is the refusal of a name several remotes have.
func AmbiguousRemote(b BranchSource) *Error {
	var names, picks []string
	for _, m := range b.matches {
		names = append(names, m.Remote)
		picks = append(picks, "`copse create "+QuoteDisplay(m.String())+"`")
	}
	e := Refused(CodeAmbiguousRemoteBranch, "name the remote branch to check out: "+strings.Join(picks, " or "),
		"branch %s does not exist locally, and remotes %s all have it", Escape(b.Branch.s), joinEscaped(names))
	e.Field = "branch"
	return e
}

// createKind is Service.CreateKind.
func (s *Env) createKind(ctx context.Context, raw string, hasBase bool) (CreateKind, error) {
	b, err := s.ResolveCreateBranch(ctx, raw, hasBase)
	if err != nil {
		return CreateKind{}, err
	}
	k := CreateKind{Source: b.Source, Branch: b.Branch.s}
	if b.Remote != nil {
		k.Remote = b.Remote.String()
	}
	for _, m := range b.matches {
		k.Remotes = append(k.Remotes, m.Remote)
	}
	return k, nil
}

// CreateKind says what `create raw` would do (new branch from the base, existing local
// branch, from a remote branch, or refused as ambiguous between remotes), by the same
// resolution Prepare uses; withBase is whether a base will be given (a base means a new
// branch, so no remote branch is looked for). A name core would refuse returns that error.
func (s *Service) CreateKind(ctx context.Context, raw string, withBase bool) (CreateKind, error) {
	return s.impl.createKind(ctx, raw, withBase)
}

// TrackRemote makes sure a branch made from a remote branch tracks it: with git, worktree
// add --track set it; Herdr creates the branch at the commit without --track, so copse sets
// it. Either way git's config is read back, so "tracking it" is never said of a branch
// that does not track.
func (s *Env) TrackRemote(ctx context.Context, c *CreateSpec) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadBackTimeout)
	defer cancel()
	hint := "set it by hand: git branch --set-upstream-to=" + QuoteDisplay(c.Remote.String()) + " " + QuoteDisplay(c.Branch.s)
	if s.Backend.HasWorkspaces() {
		cmd, err := gitx.BranchSetUpstream(c.Cwd, c.Branch.s, c.Remote.Remote, c.Remote.Name)
		if err != nil {
			return BuilderErr(err)
		}
		if _, err := s.Git.Run(rctx, cmd); err != nil {
			return Uncertain(CodeUpstreamNotSet, err, hint,
				"the worktree of %s was created at %s, but its upstream could not be set", Escape(c.Branch.s), Escape(c.Remote.String()))
		}
	}
	remote, _, err1 := s.Git.ConfigValue(rctx, c.Cwd, "branch."+c.Branch.s+".remote")
	merge, _, err2 := s.Git.ConfigValue(rctx, c.Cwd, "branch."+c.Branch.s+".merge")
	if err1 != nil || err2 != nil || remote != c.Remote.Remote || merge != "refs/heads/"+c.Remote.Name {
		return Uncertain(CodeUpstreamNotSet, errors.Join(err1, err2), hint,
			"the worktree of %s was created at %s, but git does not show %s as its upstream", Escape(c.Branch.s), Escape(c.Remote.String()), Escape(c.Remote.String()))
	}
	return nil
}

// CreateCommands are the commands a create runs: the backend's, and for a branch from a
// remote under Herdr (which cannot --track) the git command that sets the upstream.
func (s *Env) CreateCommands(c *CreateSpec) ([]string, error) {
	cmds, err := s.Backend.CreateCommands(c)
	if err != nil || c.Remote == nil || !s.Backend.HasWorkspaces() {
		return cmds, err
	}
	up, err := gitx.BranchSetUpstream(c.Cwd, c.Branch.s, c.Remote.Remote, c.Remote.Name)
	if err != nil {
		return nil, BuilderErr(err)
	}
	return append(cmds, up.String()), nil
}
