package core_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// Setup itself refuses an unapproved project command, whoever calls it (the picker's
// create calls it directly): nothing is copied, nothing runs. Once approved it runs, and an
// approvals file others can write is not trusted.
func TestSetupRefusesUnapprovedProjectCommands(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(r.Base, "ran")
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, core.ProjectConfigFile), "--add", "copse.setup", "touch '"+marker+"'")
	r.Write(".worktreeinclude", "# comment\n.env  \n")
	r.Write(".env", "A=1\n")
	wt := r.AddWorktree("feat", "feat")
	ctx := context.Background()
	s, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SetupConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Include, []string{".env"}) || len(cfg.Project) != 1 {
		t.Fatalf("config: include %q, project %q", cfg.Include, cfg.Project)
	}
	before := r.Snapshot()
	_, err = s.Setup(ctx, wt, cfg, io.Discard)
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeProjectCommandUnapproved || core.ExitCode(err) != 1 {
		t.Fatalf("unapproved setup: %v", err)
	}
	r.Unchanged(before)

	if err := s.Approve(cfg.Project); err != nil {
		t.Fatal(err)
	}
	approvals := filepath.Join(r.Home, ".config", "copse", "approved")
	if err := os.Chmod(approvals, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Setup(ctx, wt, cfg, io.Discard); !errors.As(err, &e) || e.Code != core.CodeApprovalsUnsafe {
		t.Fatalf("setup trusted a world-writable approvals file: %v", err)
	}
	if err := os.Chmod(approvals, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Setup(ctx, wt, cfg, io.Discard)
	if err != nil || len(rep.Steps) != 1 || !slices.Equal(rep.Copied, []string{".env"}) {
		t.Fatalf("approved setup: %+v, %v", rep, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// A setup step runs with Options.Env, as copse's own git does: its git gets the same HOME
// and config (under coretest.Main a git with the process's environment fails), and a
// variable only Options.Env carries reaches the step.
func TestSetupStepsGetOptionsEnv(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	r.Git(r.Root, "config", "--global", "copse-test.who", "the test's own config")
	out := filepath.Join(r.Base, "step-saw")
	r.Git(r.Root, "config", "--add", "copse.setup", `printf '%s|%s' "$COPSE_TEST_MARK" "$(git config --global copse-test.who)" > '`+out+`'`)
	ctx := context.Background()
	s, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv,
		Env: append(coretest.Env(r.Home), "COPSE_TEST_MARK=from Options.Env")})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SetupConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Setup(ctx, wt, cfg, io.Discard); err != nil || len(rep.Steps) != 1 || rep.Steps[0].ExitCode != 0 {
		t.Fatalf("setup: %+v, %v", rep, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "from Options.Env|the test's own config" {
		t.Fatalf("the step saw %q", got)
	}
}
