package herdr

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// world is a sandbox (temp HOME, git repo "app", state file) with a client on the double.
type world struct {
	*herdrdouble.Sandbox
	log string // FAKE_HERDR_LOG of the client
}

func newWorld(t *testing.T) *world {
	t.Helper()
	sb := herdrdouble.NewSandbox(t)
	return &world{Sandbox: sb, log: filepath.Join(t.TempDir(), "invocations")}
}

// client runs the double with knobs (logging to w.log).
func (w *world) client(k herdrdouble.Knobs) *Client {
	k.Log = w.log
	return &Client{Bin: w.Bin, Env: w.Env(k)}
}

// state reads the double's workspaces.
func (w *world) state(t *testing.T) herdrdouble.State {
	t.Helper()
	return herdrdouble.ReadState(t, w.State)
}

// gitHas reports whether git lists path as a worktree of the sandbox repository.
func (w *world) gitHas(t *testing.T, path string) bool {
	t.Helper()
	return slices.Contains(w.WorktreePaths(t), path)
}

// invocations is what the double logged: one line per run.
func (w *world) invocations(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(w.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// runDouble runs the double directly (bypassing the builder) in dir.
func (w *world) runDouble(t *testing.T, k herdrdouble.Knobs, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(w.Bin, args...)
	cmd.Dir = dir
	cmd.Env = w.Env(k)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// herdrErr asserts err is an *Error of kind and returns it.
func herdrErr(t *testing.T, err error, kind ErrKind) *Error {
	t.Helper()
	var he *Error
	if !errors.As(err, &he) {
		t.Fatalf("err = %v (%T), want *herdr.Error of kind %s", err, err, kind)
	}
	if he.Kind != kind {
		t.Fatalf("err kind %s, want %s: %v", he.Kind, kind, err)
	}
	return he
}

// replyErr asserts an ErrReply with code.
func replyErr(t *testing.T, err error, code string) *Error {
	t.Helper()
	he := herdrErr(t, err, ErrReply)
	if he.Code != code {
		t.Fatalf("code = %q, want %q: %v", he.Code, code, err)
	}
	if he.ExitCode != 1 || he.Uncertain() {
		t.Fatalf("exit %d, uncertain %v", he.ExitCode, he.Uncertain())
	}
	return he
}
