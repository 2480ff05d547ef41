package core

var ReleaseOp = &Op{
	Name:     OpRelease,
	Doc:      "release a session's claim; force releases another session's claim or a human's lock and needs confirmation",
	Approval: ApprovalExecute,
	Request:  ReleaseRequest{},
	// Releasing what another session (or a person) holds is a person's call.
	Confirms: RuleOf(func(r ReleaseRequest) bool { return r.Force }),
	Prepare:  PrepareAs((*Env).prepareClaim),
	Run:      runClaimOp,
}
