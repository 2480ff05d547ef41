package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

func toolRun(t *testing.T, r *coretest.Repo, req string, approved bool) result {
	t.Helper()
	args := []string{"tool"}
	if approved {
		args = append(args, "--approved")
	}
	return runWith(t, r, r.Root, nil, strings.NewReader(req), args...)
}

func replyToken(t *testing.T, res result) string {
	t.Helper()
	var rep struct {
		Error struct {
			StateToken string `json:"state_token"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || rep.Error.StateToken == "" {
		t.Fatalf("no state_token in %s: %v", res.stdout, err)
	}
	return rep.Error.StateToken
}

func TestLandClaimedByOtherCLIAndTool(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	w := landTree(t, r, "feat/c")
	r.Git(r.Root, "worktree", "lock", "--reason", "copse claim: session=agent-1 since=2026-01-01T00:00:00Z", w)
	before := r.Snapshot()
	want(t, run(t, r, r.Root, "land", "feat/c", "--session", "agent-2"), 1, "claimed by session agent-1", "--force-claim")
	want(t, toolRun(t, r, `{"operation":"land","branch":"feat/c","wait":true}`, false), 1, "claimed_by_other", "agent-1")
	// Forced: the CLI without a terminal needs --yes; the tool needs approval.
	want(t, run(t, r, r.Root, "land", "feat/c", "--force-claim"), 1, "pass --yes", "session agent-1")
	want(t, toolRun(t, r, `{"operation":"land","branch":"feat/c","force_claim":true,"wait":true}`, false), 1, "needs_approval", "agent-1 holds it")
	r.Unchanged(before)
	want(t, run(t, r, r.Root, "land", "feat/c", "--force-claim", "--yes"), 0, "landed feat/c", "released the claim", "removed")
}

func TestToolLandTestCommandNeedsApproval(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/t")
	ran := filepath.Join(r.Base, "trees", "gate-ran")
	req := `{"operation":"land","branch":"feat/t","test":"touch ../gate-ran","keep":true,"wait":true}`
	before := r.Snapshot()
	res := toolRun(t, r, req, false)
	want(t, res, 1, "needs_approval", "test (sh -c): touch ../gate-ran")
	token := replyToken(t, res)
	// The approval of another command does not cover this one.
	other := replyToken(t, toolRun(t, r, `{"operation":"land","branch":"feat/t","test":"true","keep":true,"wait":true}`, false))
	withToken := func(tok string) string {
		return strings.TrimSuffix(req, "}") + `,"expected_state_token":"` + tok + `"}`
	}
	want(t, toolRun(t, r, withToken(other), true), 1, "stale_state")
	r.Unchanged(before)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the command ran without approval")
	}
	want(t, toolRun(t, r, withToken(token), true), 0, `"state":"landed"`)
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("the approved command did not run")
	}
}

func TestLandTestFromConfigOrCLINeedsNoApproval(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	landTree(t, r, "feat/g")
	landTree(t, r, "feat/h")
	r.Git(r.Root, "config", "copse.test", "touch ../config-gate")
	want(t, toolRun(t, r, `{"operation":"land","branch":"feat/g","wait":true}`, false), 0, `"state":"landed"`)
	if _, err := os.Stat(filepath.Join(r.Base, "trees", "config-gate")); err != nil {
		t.Fatal("copse.test did not run")
	}
	// Typed by a person at the CLI: no confirmation, even without a terminal.
	want(t, run(t, r, r.Root, "land", "feat/h", "--test", "touch ../typed-gate"), 0, "landed feat/h")
	if _, err := os.Stat(filepath.Join(r.Base, "trees", "typed-gate")); err != nil {
		t.Fatal("the typed --test did not run")
	}
}
