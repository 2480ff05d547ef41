// Package gobuild builds this module's programs for tests, with the Go caches of whoever
// runs `go test`. It is for tests only and never changes the test process's environment.
//
// Many tests point HOME (and XDG_CONFIG_HOME) at a temporary directory. A `go build` that
// inherited that environment would find an empty build cache, an empty module cache and
// no `go env -w` settings, and compile everything, the standard library included, from
// cold: tens of seconds per test binary on a busy machine. So the environment is captured
// when the test binary starts (package initialisation runs before TestMain and before any
// t.Setenv), and every build gets the real GOCACHE, GOMODCACHE, GOPATH and GOENV.
package gobuild

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// startEnv is the environment the test binary started with.
var startEnv = os.Environ()

// The settings a build must not lose, as `go env` reports them for startEnv.
var settings = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}

var goEnv = sync.OnceValues(func() (map[string]string, error) {
	cmd := exec.Command("go", append([]string{"env", "-json"}, settings...)...)
	cmd.Env = startEnv
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go env -json: %w", err)
	}
	return m, nil
})

// Env is the environment the test binary started with, Go settings included, for any
// `go` command a test runs. Not the current one: a TestMain may have changed it for the
// tests' own children (coretest.Main makes the process's git config unreadable, and the
// build's VCS stamping runs git).
func Env() ([]string, error) {
	m, err := goEnv()
	if err != nil {
		return nil, err
	}
	env := append([]string(nil), startEnv...)
	for _, k := range settings {
		env = append(env, k+"="+m[k]) // later entries win in exec.Cmd.Env
	}
	return env, nil
}

// Build runs `go build -o out [flags] pkg` (pkg is an import path of this module) and
// returns an error that includes the compiler's output.
func Build(out, pkg string, flags ...string) error {
	env, err := Env()
	if err != nil {
		return err
	}
	args := append(append([]string{"build", "-o", out}, flags...), pkg)
	cmd := exec.Command("go", args...)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", args, err, b)
	}
	return nil
}
