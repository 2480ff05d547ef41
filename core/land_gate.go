package core

// noGateLeft refuses a land of a worktree while processes of an earlier land's test gate
// still run there.
func (s *service) noGateLeft(cd, path string) error { return nil }
