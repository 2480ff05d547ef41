package core_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
)

// The approvals file is trusted only when it and every directory above it up to the
// user's config directory are the user's and writable by neither group nor others (as
// ssh's StrictModes): an approved command then does not run, the refusal
// (approvals_unsafe, exit 1) names the unsafe path, and nothing changes; a directory above
// the config directory is not the approvals' business. Approve refuses the same way.
func TestApprovalsAreTrustedOnlyWhenTheirFileAndDirectoriesAreTheUsersAlone(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	marker := filepath.Join(r.Base, "ran")
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, core.ProjectConfigFile), "--add", "copse.setup", "touch '"+marker+"'")
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
	if err := s.Approve(cfg.Project); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(r.Home, ".config")
	approvals := filepath.Join(config, "copse", "approved")
	held, err := os.ReadFile(approvals)
	if err != nil {
		t.Fatal(err)
	}
	unsafe := func(path string, mode os.FileMode, why string) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(path, fi.Mode().Perm())
		before := r.Snapshot()
		_, err = s.Setup(ctx, wt, cfg, io.Discard)
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeApprovalsUnsafe || core.ExitCode(err) != 1 {
			t.Fatalf("%s mode %o: setup trusted the approvals: %v", path, mode, err)
		}
		if !strings.Contains(e.Message, path+" is writable by "+why) || !strings.Contains(e.Hint, "chmod go-w") {
			t.Errorf("refusal %q (hint %q) does not name %s as writable by %s", e.Message, e.Hint, path, why)
		}
		if _, err := os.Stat(marker); !os.IsNotExist(err) {
			t.Fatalf("the command ran on untrusted approvals: %v", err)
		}
		r.Unchanged(before)
		if err := s.Approve(cfg.Project); !errors.As(err, &e) || e.Code != core.CodeApprovalsUnsafe {
			t.Fatalf("approve wrote into untrusted approvals: %v", err)
		}
		if now, _ := os.ReadFile(approvals); string(now) != string(held) {
			t.Fatalf("the approvals file changed: %q", now)
		}
	}
	unsafe(approvals, 0o620, "its group")
	unsafe(filepath.Dir(approvals), 0o703, "others")
	unsafe(config, 0o777, "group and others")

	// Above the config directory is not checked; then the approved command runs.
	if err := os.Chmod(r.Home, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Setup(ctx, wt, cfg, io.Discard); err != nil {
		t.Fatalf("setup with safe approvals: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// A directory of the approvals another user owns is not trusted either (checked when the
// test may give a directory away: as root).
func TestApprovalsInADirectoryAnotherUserOwnsAreNotTrusted(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("only root can give a directory to another user")
	}
	r := coretest.New(t)
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, core.ProjectConfigFile), "--add", "copse.setup", "true")
	ctx := context.Background()
	s, err := core.Open(ctx, core.Options{Registry: ops.All, Dir: r.Root, Backend: "git", Getenv: r.Getenv, Env: coretest.Env(r.Home)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Approve([]string{"true"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.Home, ".config", "copse")
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	_, err = s.Unapproved([]string{"true"})
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeApprovalsUnsafe || !strings.Contains(e.Message, dir+" is owned by uid 4242, not by you") {
		t.Fatalf("approvals in a directory of uid 4242: %v", err)
	}
}
