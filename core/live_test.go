//go:build linux

package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// A process whose working directory is inside the worktree (deep down) keeps it: remove
// refuses, naming the process, and nothing changes; --force names it in the confirmation
// and removes.
func TestRemoveRefusesWhileAProcessWorksInIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	sub := filepath.Join(wt, "src", "app")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pid := coretest.StartLive(t, sub, "sleep", "300")
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Branch: core.Str("feat")})
	wantCode(t, err, core.KindRefused, "processes_running")
	e := core.AsError(err)
	proc := fmt.Sprintf("pid %d sleep 300 in %s", pid, sub)
	if !strings.Contains(e.Message, proc) || !strings.Contains(e.Message, "1 process working in it") {
		t.Errorf("refusal %q does not name %q", e.Message, proc)
	}
	if !strings.Contains(e.Hint, fmt.Sprintf("kill %d", pid)) || !strings.Contains(e.Hint, "--force") || !e.ForceHelps {
		t.Errorf("hint %q (force helps %v) does not say how to proceed", e.Hint, e.ForceHelps)
	}
	r.Unchanged(before)

	p, err := s.Prepare(context.Background(), core.RemoveRequest{Branch: core.Str("feat"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if line := p.Confirm.Line(); !strings.Contains(line, "1 process working in it will lose their directory: "+proc) {
		t.Fatalf("forced confirmation %q does not name the process", line)
	}
	if _, err := s.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("forced remove left %s: %v", wt, err)
	}
}

// A process that sits elsewhere but holds a file of the worktree open keeps it too.
func TestRemoveRefusesWhileAProcessHoldsAFileOpenInIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	commitOn(t, r, wt, "server.log", "started\n")
	log := filepath.Join(wt, "server.log")
	elsewhere := t.TempDir()
	pid := coretest.StartLive(t, elsewhere, "tail", "-f", log)
	coretest.WaitOpen(t, pid, log)
	s := open(t, r, r.Root)
	before := r.Snapshot()
	_, err := do(t, s, core.RemoveRequest{Path: core.Str(wt)})
	wantCode(t, err, core.KindRefused, "processes_running")
	// The command line is cut (here inside the long temporary path); where it is is not.
	msg := core.AsError(err).Message
	for _, want := range []string{fmt.Sprintf("pid %d tail -f ", pid), fmt.Sprintf(" holds %s open (cwd %s)", log, elsewhere)} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %q", msg, want)
		}
	}
	r.Unchanged(before)
}

// A process working in a worktree is activity: prune keeps it however old its git files.
func TestPruneKeepsAWorktreeAProcessWorksIn(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	busy := r.AddWorktree("busy", "app.worktrees/busy")
	quiet := r.AddWorktree("quiet", "app.worktrees/quiet")
	age(t, r, "busy", 100*time.Hour)
	age(t, r, "quiet", 100*time.Hour)
	pid := coretest.StartLive(t, busy, "sleep", "300")
	s := open(t, r, r.Root)
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(out.Prune); got["busy"] != "kept:processes" || got["quiet"] != "removed:idle" {
		t.Fatalf("reasons %v", got)
	}
	out, err = do(t, s, core.PruneRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var detail string
	for _, e := range out.Prune.Kept {
		if e.Path == busy {
			detail = e.Detail
		}
	}
	if want := fmt.Sprintf("1 process working in it: pid %d sleep 300 in %s", pid, busy); detail != want {
		t.Errorf("kept detail %q, want %q", detail, want)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Fatalf("prune removed the worktree a process works in: %v", err)
	}
	if _, err := os.Stat(quiet); !os.IsNotExist(err) {
		t.Fatalf("the idle worktree was kept: %v", err)
	}
}

// Land's clean-up keeps a worktree a process works in: the land is done, the report says
// why the worktree stayed.
func TestLandKeepsAWorktreeAProcessWorksIn(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := feature(t, r, "feat/dev", "dev.txt", "dev\n")
	pid := coretest.StartLive(t, w, "sleep", "300")
	s := open(t, r, r.Root)
	out, err := land(t, s, core.LandRequest{Branch: core.Str("feat/dev")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Land.State != core.LandLanded || out.Land.Removed {
		t.Fatalf("job %+v", out.Land)
	}
	if want := fmt.Sprintf("kept %s: 1 process working in it (pid %d sleep 300 in %s)", w, pid, w); !strings.Contains(strings.Join(out.Land.Warnings, "\n"), want) {
		t.Fatalf("warnings %q do not say %q", out.Land.Warnings, want)
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatalf("clean-up removed the worktree a process works in: %v", err)
	}
	if !strings.Contains(r.Git(r.Root, "log", "--format=%s", "main"), "work on feat/dev") {
		t.Fatal("the land itself did not happen")
	}
}
