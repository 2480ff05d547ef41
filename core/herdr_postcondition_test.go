package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/herdr"
	"github.com/copse-dev/copse/herdr/herdrdouble"
	"github.com/copse-dev/copse/herdr/herdrtest"
)

// Herdr answers the double does not give on demand, through herdrtest in front of the
// Herdr client: every other call goes to the double, and git stays real.

// herdrService opens the repository under the Herdr backend (the double), with a worktree
// opened in a workspace; it returns the service, the worktree and its workspace id.
func herdrService(t *testing.T) (*core.Service, *coretest.Repo, string, string) {
	t.Helper()
	r := coretest.New(t)
	bin := herdrdouble.Build(t)
	state := filepath.Join(t.TempDir(), "state.json")
	getenv := func(k string) string {
		switch k {
		case "HERDR_ENV":
			return "1"
		case "HERDR_BIN_PATH":
			return bin
		}
		return r.Getenv(k)
	}
	env := coretest.Env(r.Home)
	for _, kv := range herdrdouble.Env(bin, state, herdrdouble.Knobs{}) {
		if strings.HasPrefix(kv, "FAKE_HERDR_") {
			env = append(env, kv)
		}
	}
	ctx := context.Background()
	svc, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "herdr", Getenv: getenv, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Do(ctx, core.CreateRequest{Branch: "feat"}, true)
	if err != nil || out.WorkspaceID == "" {
		t.Fatalf("create through the double: %v %+v", err, out)
	}
	return svc, r, out.Path, out.WorkspaceID
}

func herdrClient(t *testing.T, svc *core.Service) *herdr.Client {
	t.Helper()
	c := core.HerdrClientOf(svc)
	if c == nil {
		t.Fatalf("backend %s, want herdr", svc.BackendName())
	}
	return c
}

// Herdr printed past the output cap while opening: a failure that may have acted, so copse
// reads Herdr's list back; the workspace is the one it was, so nothing changed: exit 1
// with herdr_output_limit, not uncertain.
func TestHerdrOpenOutputLimit(t *testing.T) {
	t.Parallel()
	svc, r, path, ws := herdrService(t)
	f := herdrtest.New(t).Allow("worktree", "list")
	f.ExpectPrefix("worktree", "open", "--cwd", r.Root, "--path", path).
		Returns("", &herdr.Error{Kind: herdr.ErrOutputLimit, Started: true, ExitCode: -1, Message: "output passed the 2 MiB limit"})
	herdrClient(t, svc).Exec = f
	before := r.Snapshot()
	_, err := svc.Do(context.Background(), core.OpenRequest{Path: &path}, true)
	e := core.AsError(err)
	if e == nil || e.Code != core.CodeHerdrOutputLimit || e.Kind != core.KindFailed || !strings.Contains(e.Message, "still open in workspace "+ws) {
		t.Fatalf("got %v (%+v); want herdr_output_limit, failed, naming workspace %s", err, e, ws)
	}
	r.Unchanged(before)
}

// The open timed out, and Herdr's list cannot be read back either: copse cannot tell what
// Herdr did, so the answer is uncertain (open_unverified), never a plain failure.
func TestHerdrOpenUnverified(t *testing.T) {
	t.Parallel()
	svc, r, path, _ := herdrService(t)
	f := herdrtest.New(t).Allow("worktree", "list")
	f.ExpectPrefix("worktree", "open", "--cwd", r.Root, "--path", path).
		Returns("", &herdr.Error{Kind: herdr.ErrTimeout, Started: true, ExitCode: -1, Message: "did not finish within 2m0s"})
	f.ExpectPrefix("worktree", "list").
		Returns("", &herdr.Error{Kind: herdr.ErrReply, Code: "server_not_running", ExitCode: 1, Message: "the server went away"})
	herdrClient(t, svc).Exec = f
	_, err := svc.Do(context.Background(), core.OpenRequest{Path: &path}, true)
	e := core.AsError(err)
	if e == nil || e.Code != core.CodeOpenUnverified || e.Kind != core.KindUncertain || !strings.Contains(e.Message, "could not be read back") {
		t.Fatalf("got %v (%+v); want an uncertain open_unverified", err, e)
	}
}
