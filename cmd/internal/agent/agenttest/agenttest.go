// Package agenttest is the repository fixture the agent front ends' tests share (copse
// tool in package agent, copse mcp in package mcpserver): a real repository with a main
// checkout and one linked worktree, and Openers as cmd builds them.
package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// Fixture is a real repository (main checkout on main, plus a linked worktree on branch
// feat) and an Opener for it.
type Fixture struct {
	*coretest.Repo
	Feat string // path of the feat worktree
}

// New makes the fixture and checks that core opens it.
func New(t *testing.T) *Fixture {
	t.Helper()
	r := coretest.New(t)
	f := &Fixture{Repo: r}
	f.Feat = r.AddWorktree("feat", "app.worktrees/feat")
	if _, err := f.Open(t.Context()); err != nil {
		t.Fatalf("core.Open: %v", err)
	}
	return f
}

// Open is the fixture's agent.Opener: the main checkout, the git backend.
func (f *Fixture) Open(ctx context.Context) (*core.Service, error) {
	return core.Open(ctx, core.Options{Registry: ops.All, Dir: f.Root, Backend: "git", Getenv: f.Getenv, Env: coretest.Env(f.Home)})
}

// NoOpen is an Opener for requests that must be refused before the repository is opened.
func NoOpen(t *testing.T) func(context.Context) (*core.Service, error) {
	return func(context.Context) (*core.Service, error) {
		t.Error("the repository was opened for a request that should have been refused first")
		return nil, errors.New("must not open")
	}
}

// WorktreeListed reports whether git lists path as a worktree.
func (f *Fixture) WorktreeListed(path string) bool {
	for _, line := range strings.Split(f.Git(f.Root, "worktree", "list", "--porcelain"), "\n") {
		if line == "worktree "+path {
			return true
		}
	}
	return false
}

// CommitIn commits one new file in the worktree at dir.
func (f *Fixture) CommitIn(t *testing.T, dir, file string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Git(dir, "add", "--", file)
	f.Git(dir, "commit", "-q", "-m", "add "+file)
}

// MustJSON is v as JSON.
func MustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
