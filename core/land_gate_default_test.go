package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// The gate a land without --test runs, and where it comes from, is what the land itself
// picks: .copse.conf's copse.test (named unapproved until a person approves it), and git
// config copse.test over it. The dry run's test step says the same source.
func TestDefaultLandGateNamesTheTestTheLandRunsAndItsSource(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	s := open(t, r, r.Root)
	ctx := context.Background()
	if g, err := s.DefaultLandGate(ctx); err != nil || g != (core.DefaultGate{}) {
		t.Fatalf("no test configured: %+v, %v; want no gate", g, err)
	}
	r.Git(r.Root, "config", "-f", filepath.Join(r.Root, ".copse.conf"), "copse.test", "true project")
	r.Git(r.Root, "add", ".copse.conf")
	r.Git(r.Root, "commit", "-q", "-m", "project test")
	g, err := s.DefaultLandGate(ctx)
	if err != nil || g != (core.DefaultGate{Command: "true project", From: ".copse.conf copse.test", Approved: false}) {
		t.Fatalf("unapproved .copse.conf test: %+v, %v", g, err)
	}
	if err := s.Approve([]string{"true project"}); err != nil {
		t.Fatal(err)
	}
	if g, err = s.DefaultLandGate(ctx); err != nil || !g.Approved || g.From != core.GateFromProject {
		t.Fatalf("approved .copse.conf test: %+v, %v", g, err)
	}
	feature(t, r, "feat/gate", "g.txt", "g\n")
	out, err := dryLand(t, s, core.LandRequest{Branch: core.Str("feat/gate")})
	if err != nil {
		t.Fatal(err)
	}
	if cmds := strings.Join(out.Commands, "\n"); !strings.Contains(cmds, "sh -c 'true project'") || !strings.Contains(cmds, "from .copse.conf copse.test") {
		t.Fatalf("the dry run's gate step does not name .copse.conf as its source:\n%s", cmds)
	}
	r.Git(r.Root, "config", "copse.test", "true mine")
	if g, err = s.DefaultLandGate(ctx); err != nil || g != (core.DefaultGate{Command: "true mine", From: "git config copse.test", Approved: true}) {
		t.Fatalf("git config copse.test over .copse.conf: %+v, %v", g, err)
	}
	out, err = dryLand(t, s, core.LandRequest{Branch: core.Str("feat/gate")})
	if err != nil {
		t.Fatal(err)
	}
	if cmds := strings.Join(out.Commands, "\n"); !strings.Contains(cmds, "sh -c 'true mine'") || !strings.Contains(cmds, "from git config copse.test") {
		t.Fatalf("the dry run's gate step does not name git config as its source:\n%s", cmds)
	}
	// The land's record keeps where its gate came from.
	lo, err := land(t, s, core.LandRequest{Branch: core.Str("feat/gate")})
	if err != nil {
		t.Fatal(err)
	}
	if lo.Land.Test != "true mine" || lo.Land.TestFrom != core.GateFromGitConfig {
		t.Fatalf("the land's record: test %q from %q", lo.Land.Test, lo.Land.TestFrom)
	}
}
