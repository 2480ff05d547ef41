package claim

import "github.com/copse-dev/copse/core"

var ReleaseOp = &core.Op{
	Name:     core.OpRelease,
	Doc:      "release a session's claim; force releases another session's claim or a human's lock and needs confirmation",
	Approval: core.ApprovalExecute,
	Request:  core.ReleaseRequest{},
	// Releasing what another session (or a person) holds is a person's call.
	Confirms: core.RuleOf(func(r core.ReleaseRequest) bool { return r.Force }),
	Prepare:  core.PrepareAs(prepareClaim),
	Run:      runClaimOp,
}
