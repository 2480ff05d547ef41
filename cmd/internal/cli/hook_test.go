package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/agentstate"
	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/internal/liveproc"
)

// TestHookWritesTheAgentsRecordAndSaysNothing: `copse hook claude` reads Claude Code's
// payload, writes the record of the process that ran it (here the test, which runs copse
// directly as an agent runs its hook's shell) with its start time, and prints nothing.
func TestHookWritesTheAgentsRecordAndSaysNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	state := filepath.Join(r.Base, "state")
	env := []string{"COPSE_STATE_DIR=" + state}
	payload := `{"session_id":"sess-9","transcript_path":"/x.jsonl","cwd":"` + r.Root + `","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`
	res := runWith(t, r, r.Base, env, strings.NewReader(payload), "hook", "claude", "Notification")
	if res.code != 0 || res.stdout != "" || res.stderr != "" {
		t.Fatalf("the hook said something:\n%s", res)
	}
	recs, err := agentstate.ReadAll(agentstate.Dir(func(k string) string {
		if k == "COPSE_STATE_DIR" {
			return state
		}
		return ""
	}))
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	rec := recs[0]
	self, _ := liveproc.Identify(os.Getpid())
	if rec.Agent != "claude" || rec.Session != "sess-9" || rec.State != agentstate.Blocked || rec.Source != agentstate.SourceHook ||
		rec.Cwd != r.Root || rec.Event != "Notification" || rec.PID != os.Getpid() || rec.Start != self.Start || rec.Time.IsZero() {
		t.Fatalf("record %+v", rec)
	}
}

// TestHookNeverFails: whatever it is given — no payload, garbage, an unknown event, no
// arguments, a store it cannot write — the hook exits 0 and prints nothing (the agent
// would show it, or stop).
func TestHookNeverFails(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	blocker := filepath.Join(r.Base, "file")
	os.WriteFile(blocker, []byte("x"), 0o600)
	for _, c := range []struct {
		env  []string
		in   string
		args []string
	}{
		{nil, "", []string{"hook"}},
		{nil, "not json", []string{"hook", "claude"}},
		{nil, `{"hook_event_name":"Frobnicate"}`, []string{"hook", "claude"}},
		{[]string{"COPSE_STATE_DIR=" + blocker}, `{"hook_event_name":"Stop"}`, []string{"hook", "claude", "Stop"}},
		{nil, "", []string{"hook", "a", "b", "c"}},
	} {
		res := runWith(t, r, r.Base, c.env, strings.NewReader(c.in), c.args...)
		if res.code != 0 || res.stdout != "" || res.stderr != "" {
			t.Errorf("%s", res)
		}
	}
	// COPSE_HOOK_DEBUG says why nothing was written, on stderr only.
	res := runWith(t, r, r.Base, []string{"COPSE_STATE_DIR=" + blocker, "COPSE_HOOK_DEBUG=1"}, strings.NewReader(`{"hook_event_name":"Stop"}`), "hook", "claude")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "copse hook:") {
		t.Errorf("debug: %s", res)
	}
}

// An agent that never closes its hook's stdin does not hold the hook: copse reads the
// payload for a bounded while (hookReadTimeout), writes what it got and exits 0, well
// within a second and a half even on a loaded machine.
func TestHookWithStdinLeftOpenExitsQuickly(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // kept open while the hook runs, as a careless agent would
	pw.WriteString(`{"session_id":"s-open","hook_event_name":"Stop","cwd":"` + r.Root + `"}`)
	cmd := exec.Command(copseBin, "hook", "claude", "Stop")
	cmd.Env = cleanEnv(r.Home)
	cmd.Stdin = pr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the hook failed: %v", err)
		}
		if took := time.Since(began); took > 1500*time.Millisecond && !raceEnabled {
			t.Errorf("the hook took %v with its stdin left open", took)
		}
		recs, _ := agentstate.ReadAll(agentstate.Dir(func(k string) string {
			if k == "HOME" {
				return r.Home
			}
			return ""
		}))
		if len(recs) != 1 || recs[0].Session != "s-open" || recs[0].State != agentstate.Idle {
			t.Errorf("records %+v; want the payload read before the bound: s-open idle", recs)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the hook waited for its stdin to close")
	}
}
