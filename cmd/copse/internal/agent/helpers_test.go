package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// fixture is a real repository (main checkout on main, plus a linked worktree on
// branch feat) and an Opener for it, as cmd would build it.
type fixture struct {
	*coretest.Repo
	feat string // path of the feat worktree
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	r := coretest.New(t)
	f := &fixture{Repo: r}
	f.feat = r.AddWorktree("feat", "app.worktrees/feat")
	requireCore(t, f.open)
	return f
}

func (f *fixture) open(ctx context.Context) (*core.Service, error) {
	return core.Open(ctx, core.Options{Dir: f.Root, Backend: "git", Getenv: f.Getenv})
}

// requireCore skips when core's Service is not implemented yet, so the agent tests that
// need a repository wait for it instead of failing.
func requireCore(t *testing.T, open Opener) {
	t.Helper()
	if _, err := open(t.Context()); err != nil {
		var e *core.Error
		if errors.As(err, &e) && e.Code == "not_implemented" {
			t.Skip("core.Open is not implemented yet")
		}
		t.Fatalf("core.Open: %v", err)
	}
}

// noOpen is an Opener for requests that must be refused before the repository is opened.
func noOpen(t *testing.T) Opener {
	return func(context.Context) (*core.Service, error) {
		t.Error("the repository was opened for a request that should have been refused first")
		return nil, errors.New("must not open")
	}
}

type toolRun struct {
	code  int
	reply Reply
	raw   string
}

func runToolJSON(t *testing.T, open Opener, in string, approved bool) toolRun {
	t.Helper()
	var out bytes.Buffer
	code := Tool(t.Context(), open, strings.NewReader(in), &out, approved)
	raw := out.String()
	if strings.Count(raw, "\n") != 1 || !strings.HasSuffix(raw, "\n") {
		t.Fatalf("reply is not exactly one line: %q", raw)
	}
	var rep Reply
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("reply %q: %v", raw, err)
	}
	if rep.OK != (code == 0) || rep.OK != (rep.Error == nil) {
		t.Fatalf("exit %d does not match reply %s", code, raw)
	}
	return toolRun{code: code, reply: rep, raw: raw}
}

// worktreeListed reports whether git lists path as a worktree.
func (f *fixture) worktreeListed(path string) bool {
	for _, line := range strings.Split(f.Git(f.Root, "worktree", "list", "--porcelain"), "\n") {
		if line == "worktree "+path {
			return true
		}
	}
	return false
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
