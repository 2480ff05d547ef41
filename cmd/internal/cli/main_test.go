package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/gobuild"
)

// The acceptance tests run the real binary, built once here, as a subprocess against real
// git in temporary repositories, with a clean environment.

var (
	copseBin string // the built binary
	binDir   string // its directory (put on PATH for the shell tests)
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "copse-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	copseBin = filepath.Join(dir, "copse")
	var flags []string
	if raceEnabled {
		flags = append(flags, "-race")
	}
	if err := gobuild.Build(copseBin, "github.com/copse-dev/copse/cmd/copse", flags...); err != nil {
		fmt.Fprintln(os.Stderr, "building copse:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// The tests run copse with a whole environment of their own; the few that run it in
	// this process hand git its HOME through the Factory, and coretest.Main fails a git
	// that inherited the process's instead.
	code := coretest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("copse %q → exit %d\nstdout: %s\nstderr: %s", r.args, r.code, r.stdout, r.stderr)
}

// cleanEnv is the whole environment of a copse subprocess: HOME in the test's temporary
// directory, no system git config, a fixed identity, no Herdr, git on PATH.
func cleanEnv(home string, extra ...string) []string {
	env := append(coretest.Env(home), "PATH="+os.Getenv("PATH"), "TMPDIR="+os.TempDir())
	return append(env, extra...)
}

// run is copse args in dir with a clean environment, stdin at EOF (not a terminal).
func run(t *testing.T, r *coretest.Repo, dir string, args ...string) result {
	t.Helper()
	return runWith(t, r, dir, nil, nil, args...)
}

func runWith(t *testing.T, r *coretest.Repo, dir string, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	return runCmd(t, r, dir, env, stdin, false, args...)
}

// runWithSetsid runs copse in a new session: it has no controlling terminal.
func runWithSetsid(t *testing.T, r *coretest.Repo, dir string, args ...string) result {
	t.Helper()
	return runCmd(t, r, dir, nil, nil, true, args...)
}

func runCmd(t *testing.T, r *coretest.Repo, dir string, env []string, stdin io.Reader, setsid bool, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, copseBin, args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(r.Home, env...)
	cmd.Stdin = stdin
	if setsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("running copse %q: %v", args, err)
	}
	if res.code == 66 && strings.Contains(res.stderr, "DATA RACE") {
		t.Fatalf("data race in copse:\n%s", res.stderr)
	}
	checkHints(t, res.stdout, res.stderr)
	return res
}

// want checks the exit code and that stderr (or stdout, for --json) names the problem.
func want(t *testing.T, res result, code int, mentions ...string) {
	t.Helper()
	if res.code != code {
		t.Fatalf("want exit %d:\n%s", code, res)
	}
	all := res.stdout + res.stderr
	for _, m := range mentions {
		if !strings.Contains(all, m) {
			t.Fatalf("output does not mention %q:\n%s", m, res)
		}
	}
}
