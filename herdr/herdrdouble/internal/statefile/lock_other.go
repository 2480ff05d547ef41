//go:build !unix

package statefile

// lock is a no-op where flock does not exist; tests there must not run doubles concurrently.
func lock(string) (func(), error) { return func() {}, nil }
