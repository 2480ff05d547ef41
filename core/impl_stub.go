package core

// TEMPORARY: replaced by the real implementation (engine.go) shortly.

import "context"

type backend interface {
	name() string
	hasWorkspaces() bool
}

type repo struct{ root, current string }

type service struct {
	repo    repo
	backend backend
	history *History
	session string
}

type BranchName struct{ s string }

func (b BranchName) String() string { return b.s }

var errTODO = &Error{Kind: KindFailed, Code: "not_implemented", Message: "not implemented yet"}

func openService(ctx context.Context, opts Options) (*Service, error) { return nil, errTODO }
func (s *service) list(ctx context.Context, st bool) (*Listing, error) { return nil, errTODO }
func (s *service) statuses(ctx context.Context, p []string, w int, emit func(StatusResult)) {}
func (s *service) branches(ctx context.Context) ([]string, error)                         { return nil, errTODO }
func (s *service) parseBranch(ctx context.Context, f, raw string) (BranchName, error) {
	return BranchName{}, errTODO
}
func (s *service) prepare(ctx context.Context, r Request) (*Plan, error)    { return nil, errTODO }
func (s *service) execute(ctx context.Context, p *Plan) (*Outcome, error) { return nil, errTODO }
