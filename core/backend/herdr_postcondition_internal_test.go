package backend

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/op/create"
	"github.com/copse-dev/copse/core/op/target"
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
	var envOf *core.Env
	svc, err := core.Open(ctx, core.Options{Registry: herdrOps(&envOf), Dir: r.Root, Backend: "herdr", Getenv: getenv, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.Do(ctx, core.CreateRequest{Branch: "feat"}, true)
	if err != nil || out.WorkspaceID == "" {
		t.Fatalf("create through the double: %v %+v", err, out)
	}
	if _, err := svc.Do(ctx, core.ListRequest{}, false); err != nil || envOf == nil {
		t.Fatalf("the list that hands the tests the Env: %v", err)
	}
	clientsMu.Lock()
	clients[svc] = envOf
	clientsMu.Unlock()
	return svc, r, out.Path, out.WorkspaceID
}

// clients is the Env each herdrService runs its operations on (the tests run in parallel).
var (
	clientsMu sync.Mutex
	clients   = map[*core.Service]*core.Env{}
)

// herdrOps are the operations these tests run, and, under list's name, one that hands the
// test the Env its service runs operations on (to put herdrtest in front of the client).
func herdrOps(env **core.Env) *core.Registry {
	handOver := &core.Op{Name: core.OpList, Doc: "hands the test the Env", Approval: core.ApprovalRead, Request: core.ListRequest{}, Changes: core.No,
		Prepare: core.PrepareAs(func(*core.Env, context.Context, core.ListRequest, core.Snapshot) (*core.Plan, error) {
			return &core.Plan{Cmd: struct{}{}}, nil
		}),
		Run: func(e *core.Env, _ context.Context, _ *core.Execution) (*core.Outcome, error) {
			*env = e
			return &core.Outcome{Operation: core.OpList}, nil
		}}
	return core.NewRegistry(handOver, create.Op, target.OpenOp, target.SwitchOp).WithBackends(Picker{})
}

func herdrClient(t *testing.T, svc *core.Service) *herdr.Client {
	t.Helper()
	clientsMu.Lock()
	e := clients[svc]
	clientsMu.Unlock()
	b, ok := e.Backend.(*herdrBackend)
	if !ok {
		t.Fatalf("backend %s, want herdr", svc.BackendName())
	}
	return b.client
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
