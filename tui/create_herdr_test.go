package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/ops"
	"github.com/copse-dev/copse/herdr/herdrdouble"
	"github.com/copse-dev/copse/internal/testexec"
)

// Under Herdr, create and go: the create opens a workspace, and the switch that follows
// gives it focus (the double records the focused workspace).
func TestFlowCreateSwitchFocusesHerdrWorkspace(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	fake := herdrdouble.Build(t)
	// A binary path of its own: herdr.Detect caches per path.
	bin := filepath.Join(dir, "herdr")
	if err := testexec.WriteFile(bin, []byte("#!/bin/sh\nexec '"+fake+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var knobs []string
	for _, kv := range herdrdouble.Env(fake, state, herdrdouble.Knobs{}) {
		if strings.HasPrefix(kv, "FAKE_HERDR_") {
			knobs = append(knobs, kv)
		}
	}
	getenv := func(k string) string {
		switch k {
		case "HERDR_ENV":
			return "1"
		case "HERDR_BIN_PATH":
			return bin
		}
		return r.Getenv(k)
	}
	svc, err := core.Open(context.Background(), core.Options{Registry: ops.All, Dir: r.Root, Backend: "auto", Getenv: getenv,
		Env: append(coretest.Env(r.Home), knobs...)})
	if err != nil || !svc.HasWorkspaces() {
		t.Fatalf("open under the double: %v (workspaces %v)", err, err == nil && svc.HasWorkspaces())
	}
	f := startFlow(t, svc, Options{})
	f.keys("n")
	fr := f.wait("the form is open", func(fr frame) bool { return fr.mode == modeForm })
	if !strings.Contains(fr.view, "[x] switch to it after create (its workspace gets focus)") {
		t.Errorf("form:\n%s", fr.view)
	}
	f.tm.Type("feat/herdr")
	f.keys("enter")
	res := f.result()
	if res.Outcome == nil || res.Outcome.Operation != core.OpSwitch || res.Outcome.WorkspaceID == "" {
		t.Fatalf("result = %+v outcome = %+v", res, res.Outcome)
	}
	if got := herdrdouble.ReadState(t, state); got.Focused != res.Outcome.WorkspaceID {
		t.Errorf("focused workspace %q, want the new one %q", got.Focused, res.Outcome.WorkspaceID)
	}
}
