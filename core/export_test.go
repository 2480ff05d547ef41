package core

import (
	"github.com/copse-dev/copse/gitx"
)

// What core's external tests may reach inside a Service: the git runner's executor (to put
// a fault in front of real git) and the Herdr client. Compiled into tests only.

// SetGitExec puts exec in front of the service's git for every later run.
func SetGitExec(s *Service, exec gitx.Executor) { s.impl.Git.Exec = exec }

// testOps is every operation, for the internal tests that open a Service: an internal test
// cannot import core/ops (it imports the families, which import core), so the external
// test package sets it before any test runs (ops_init_test.go).
var testOps *Registry

// SetTestOps hands the internal tests the whole registry.
func SetTestOps(r *Registry) { testOps = r }

// EnvOf is the Env a service runs its operations on, for tests of what the families and
// core/removal do with it.
func EnvOf(s *Service) *Env { return s.impl }
