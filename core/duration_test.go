package core_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/coretest"
)

// wrapsToHalfASecond is a day count whose nanoseconds overflow int64 and wrap to about
// 0.52s: parsed without a bound, it made a worktree idle for two hours look old enough.
const wrapsToHalfASecond = "616385997d"

// A huge idle threshold, from the flag or from git config, is refused (exit 2, naming the
// largest allowed) and prunes nothing: the worktree used two hours ago stays.
func TestPruneRefusesHugeIdleThreshold(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("a", "app.worktrees/a")
	age(t, r, "a", 2*time.Hour)
	s := open(t, r, r.Root)
	for _, huge := range []string{wrapsToHalfASecond, "99999999999h", "36501d"} {
		before := r.Snapshot()
		_, err := do(t, s, core.PruneRequest{OlderThan: core.Str(huge)})
		wantCode(t, err, core.KindUsage, core.CodeDurationTooLong)
		if msg := core.AsError(err).Message; !strings.Contains(msg, huge) || !strings.Contains(msg, "36500d") {
			t.Errorf("--older-than %s: the message names neither the value nor the largest allowed: %s", huge, msg)
		}
		r.Unchanged(before)
	}
	r.Git(r.Root, "config", "copse.pruneAfter", wrapsToHalfASecond)
	before := r.Snapshot()
	_, err := do(t, s, core.PruneRequest{})
	wantCode(t, err, core.KindUsage, core.CodeDurationTooLong)
	if e := core.AsError(err); !strings.Contains(e.Hint, "git config copse.pruneAfter") {
		t.Errorf("the hint does not say how to fix the setting: %+v", e)
	}
	r.Unchanged(before)
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("the worktree used two hours ago is gone: %v", err)
	}

	// The largest allowed still works, and "never" prunes nothing for being idle.
	age(t, r, "a", 400*24*time.Hour)
	r.Git(r.Root, "config", "copse.pruneAfter", "never")
	out, err := do(t, s, core.PruneRequest{DryRun: true})
	if err != nil || reasons(out.Prune)["a"] != "kept:not_idle" || out.Prune.OlderThan != "never" {
		t.Fatalf("pruneAfter never: %v %+v", err, out.Prune)
	}
	out, err = do(t, s, core.PruneRequest{DryRun: true, OlderThan: core.Str("36500d")})
	if err != nil || reasons(out.Prune)["a"] != "kept:not_idle" || out.Prune.OlderThan != "36500d" {
		t.Fatalf("--older-than 36500d: %v %+v", err, out.Prune)
	}
	out, err = do(t, s, core.PruneRequest{DryRun: true, OlderThan: core.Str("30d")})
	if err != nil || reasons(out.Prune)["a"] != "removed:idle" {
		t.Fatalf("--older-than 30d on a worktree idle 400 days: %v %+v", err, out.Prune)
	}
}

// A huge copse.keepRemoved (or copse.keepLands) is refused, and prune drops no record.
func TestPruneRefusesHugeRetention(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/old", "old")
	coretest.WriteFile(t, wt+"/f", "x\n")
	s := open(t, r, r.Root)
	if _, err := do(t, s, core.RemoveRequest{Path: core.Str(wt), Force: true}); err != nil {
		t.Fatal(err)
	}
	records := func() string {
		return r.Git(r.Root, "for-each-ref", "--format=%(refname)", "refs/copse/removed/")
	}
	if records() == "" {
		t.Fatal("the forced remove left no record")
	}
	for _, key := range []string{"copse.keepRemoved", "copse.keepLands"} {
		r.Git(r.Root, "config", key, wrapsToHalfASecond)
		before := r.Snapshot()
		rec := records()
		_, err := do(t, s, core.PruneRequest{})
		wantCode(t, err, core.KindUsage, core.CodeDurationTooLong)
		if msg := core.AsError(err).Message; !strings.Contains(msg, key) || !strings.Contains(msg, "36500d") {
			t.Errorf("%s: the message names neither the setting nor the largest allowed: %s", key, msg)
		}
		r.Unchanged(before)
		if records() != rec {
			t.Fatalf("%s %s dropped a record: %q, was %q", key, wrapsToHalfASecond, records(), rec)
		}
		r.Git(r.Root, "config", "--unset", key)
	}
}

// A timeout over a day is refused before anything runs: a land's gate and a setup's
// steps never start, nothing changes, and the message names the largest allowed.
func TestTimeoutsAreBounded(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feature(t, r, "feat/t", "t.txt", "t\n")
	s := open(t, r, r.Root)
	marker := r.Base + "/gate ran"
	for _, huge := range []string{"25h", "99999999999h", "90000"} {
		r.Git(r.Root, "config", "copse.testTimeout", huge)
		before := r.Snapshot()
		mainBefore := r.Git(r.Root, "rev-parse", "main")
		_, err := land(t, s, core.LandRequest{Branch: core.Str("feat/t"), Test: core.Str(`touch "` + marker + `"`)})
		wantCode(t, err, core.KindUsage, core.CodeDurationTooLong)
		if msg := core.AsError(err).Message; !strings.Contains(msg, "copse.testTimeout") || !strings.Contains(msg, "24h") {
			t.Errorf("copse.testTimeout %s: %s", huge, msg)
		}
		r.Unchanged(before)
		if _, err := os.Stat(marker); err == nil || r.Git(r.Root, "rev-parse", "main") != mainBefore {
			t.Fatalf("copse.testTimeout %s: the gate ran or main moved", huge)
		}
	}
	r.Git(r.Root, "config", "--unset", "copse.testTimeout")

	r.Git(r.Root, "config", "copse.setup", "true")
	r.Git(r.Root, "config", "copse.setupTimeout", "2562048h")
	_, err := s.SetupConfig(t.Context())
	wantCode(t, err, core.KindUsage, core.CodeDurationTooLong)
	r.Git(r.Root, "config", "copse.setupTimeout", "24h")
	if cfg, err := s.SetupConfig(t.Context()); err != nil || cfg.Timeout != 24*time.Hour {
		t.Fatalf("setupTimeout 24h: %+v, %v", cfg, err)
	}
}
