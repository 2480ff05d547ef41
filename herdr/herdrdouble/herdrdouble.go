// Package herdrdouble builds and configures the Herdr test double (the fake `herdr` program
// in cmd/herdrdouble, its state file in internal/statefile) for tests in any package:
// knobs, the state file and a sandbox. It does not import herdr, so herdr's own tests can
// use it.
package herdrdouble

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copse-dev/copse/herdr/herdrdouble/internal/statefile"
	"github.com/copse-dev/copse/internal/gobuild"
)

// The double's package; `go build` resolves it from the test's module.
const programPkg = "github.com/copse-dev/copse/herdr/herdrdouble/cmd/herdrdouble"

var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Build compiles the double once per test binary and returns its path; it may be called
// after HOME was changed. The binary is
// named "herdr" so a directory holding it can stand in for PATH. Call Cleanup from
// TestMain to delete it afterwards.
func Build(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "herdrdouble-")
		if build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "herdr")
		// With the Go caches the test binary started with: the caller may have pointed
		// HOME at a temporary directory already.
		build.err = gobuild.Build(build.bin, programPkg)
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

// Cleanup removes the built double (call it from TestMain after m.Run).
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

// Lies the double can tell (FAKE_HERDR_LIE).
const (
	LieNoGit     = "no_git"     // success reply; neither git nor the workspace state changed
	LieWrongType = "wrong_type" // does the work, replies with another result type
	LieOtherPath = "other_path" // does the work, names another checkout path in the reply
)

// Knobs configure one run of the double; zero values mean "behave".
type Knobs struct {
	Version      string        // FAKE_HERDR_VERSION: printed by --version (default 0.8.2)
	Delay        time.Duration // FAKE_HERDR_DELAY: sleep before acting (killed ⇒ nothing changed)
	DelayAfter   time.Duration // FAKE_HERDR_DELAY_AFTER: sleep after acting, before replying (killed ⇒ git changed)
	Error        string        // FAKE_HERDR_ERROR: answer with this error code, exit 1, change nothing
	Lie          string        // FAKE_HERDR_LIE: LieNoGit, LieWrongType or LieOtherPath
	ServerDown   bool          // FAKE_HERDR_SERVER_DOWN: server_not_running, exit 1
	IOError      bool          // FAKE_HERDR_IO_ERROR: non-JSON stderr ("Error: Os {…}"), exit 1
	WorktreesDir string        // FAKE_HERDR_WORKTREES_DIR: default worktree root
	Log          string        // FAKE_HERDR_LOG: file getting one JSON line per invocation
}

// Env is the process environment with the double's settings: what a Herdr pane has
// (HERDR_ENV=1, HERDR_BIN_PATH=bin), the state file and the knobs. Inherited FAKE_HERDR_*
// and HERDR_* variables are dropped so the caller's environment cannot leak in.
func Env(bin, stateFile string, k Knobs) []string {
	return append(without(os.Environ(), "FAKE_HERDR_", "HERDR_"), knobEnv(bin, stateFile, k)...)
}

// knobEnv is only the variables Env adds.
func knobEnv(bin, stateFile string, k Knobs) []string {
	env := []string{"HERDR_ENV=1", "HERDR_BIN_PATH=" + bin, "FAKE_HERDR_STATE=" + stateFile}
	set := func(name, v string) {
		if v != "" {
			env = append(env, name+"="+v)
		}
	}
	set("FAKE_HERDR_VERSION", k.Version)
	if k.Delay > 0 {
		set("FAKE_HERDR_DELAY", k.Delay.String())
	}
	if k.DelayAfter > 0 {
		set("FAKE_HERDR_DELAY_AFTER", k.DelayAfter.String())
	}
	set("FAKE_HERDR_ERROR", k.Error)
	set("FAKE_HERDR_LIE", k.Lie)
	if k.ServerDown {
		set("FAKE_HERDR_SERVER_DOWN", "1")
	}
	if k.IOError {
		set("FAKE_HERDR_IO_ERROR", "1")
	}
	set("FAKE_HERDR_WORKTREES_DIR", k.WorktreesDir)
	set("FAKE_HERDR_LOG", k.Log)
	return env
}

// without drops the variables whose names start with any of prefixes.
func without(env []string, prefixes ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// State and Workspace are the double's state file schema, for seeding and inspecting it.
type (
	State     = statefile.State
	Workspace = statefile.Workspace
)

// ReadState reads the double's state file.
func ReadState(t testing.TB, path string) State {
	t.Helper()
	s, err := statefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// WriteState replaces the double's state file (e.g. to seed a workspace opened by hand).
func WriteState(t testing.TB, path string, s State) {
	t.Helper()
	if err := statefile.Save(path, s); err != nil {
		t.Fatal(err)
	}
}

// SetAgentStatus sets the agent_status `workspace list` reports for workspace id (what
// Herdr would read from the agent in its panes); the test fails if there is no such
// workspace.
func SetAgentStatus(t testing.TB, path, id, status string) {
	t.Helper()
	err := statefile.Update(path, func(s *statefile.State) error {
		i := s.Find(id)
		if i < 0 {
			return fmt.Errorf("fake herdr state %s: no workspace %s", path, id)
		}
		s.Workspaces[i].AgentStatus = status
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
