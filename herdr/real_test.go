package herdr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/copse-dev/copse/herdr/herdrdouble"
)

// TestRealHerdr checks the client against an installed Herdr, read-only: a list and an
// open that Herdr must refuse. It runs only inside a Herdr pane with herdr on PATH.
func TestRealHerdr(t *testing.T) {
	bin, err := exec.LookPath("herdr")
	if err != nil || os.Getenv("HERDR_ENV") != "1" {
		t.Skipf("real herdr not installed: herdr on PATH: %v, HERDR_ENV=%q (run inside a Herdr pane to enable)", err == nil, os.Getenv("HERDR_ENV"))
	}
	t.Logf("using %s", bin)
	ctx := context.Background()
	det, err := Detect(ctx, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("detected herdr %s at %s", det.Version, det.Bin)
	sb := herdrdouble.NewSandbox(t) // only its git repository is used
	// The process environment, not the sandbox's: HOME decides which server herdr talks to.
	c := &Client{Bin: det.Bin}
	l, err := c.List(ctx, sb.Repo)
	if err != nil {
		t.Fatal(err)
	}
	if resolved, _ := filepath.EvalSymlinks(l.Source.RepoRoot); resolved != sb.Repo || len(l.Worktrees) != 1 {
		t.Fatalf("list = %+v", l)
	}
	_, err = c.Open(ctx, OpenArgs{Cwd: sb.Repo, Path: filepath.Join(sb.Home, "not-a-worktree")})
	replyErr(t, err, "worktree_not_found")
}
