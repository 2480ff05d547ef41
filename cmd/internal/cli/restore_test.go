package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

var undoLine = regexp.MustCompile(`undo with: copse restore ([0-9a-f]{12})\n`)

// The whole undo through the binary: a forced remove prints how to get the work back,
// --list shows it, restore brings it back; a taken path is refused with a hint that
// itself runs.
func TestRestoreCommand(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/cli", "cli")
	coretest.WriteFile(t, filepath.Join(wt, "notes.txt"), "unsaved thoughts\n")

	res := run(t, r, r.Root, "remove", "--force", "--yes", wt)
	want(t, res, 0, "removed", "undo with: copse restore ")
	m := undoLine.FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("no restore id:\n%s", res)
	}
	id := m[1]

	res = run(t, r, r.Root, "restore", "--list")
	want(t, res, 0, id, "feat/cli", "1 file, 17 bytes", "kept for 14 days")
	res = run(t, r, r.Root, "--json", "restore", "--list")
	var l struct {
		Removed []struct {
			ID    string `json:"id"`
			Path  string `json:"path"`
			Files int    `json:"files"`
			Bytes int64  `json:"bytes"`
		} `json:"removed"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &l); err != nil || len(l.Removed) != 1 || l.Removed[0].ID != id || l.Removed[0].Path != wt || l.Removed[0].Bytes != 17 {
		t.Fatalf("--json list: %v\n%s", err, res)
	}

	// The path is taken meanwhile: refused, nothing changed, and the hint's command works.
	coretest.WriteFile(t, filepath.Join(wt, "other"), "someone else\n")
	before := r.Snapshot()
	res = run(t, r, r.Root, "restore", id)
	want(t, res, 1, "cannot restore to", "--path")
	r.Unchanged(before)
	dest := filepath.Join(r.Base, "cli-again")
	hint := regexp.MustCompile("`(copse restore [^`]*)`").FindStringSubmatch(res.stderr)
	if hint == nil {
		t.Fatalf("no command in the hint:\n%s", res)
	}
	args := strings.Fields(strings.Replace(hint[1], "/abs/new/path", dest, 1))[1:]
	res = run(t, r, r.Root, args...) // no terminal, no --yes: asks, so refuses
	want(t, res, 1, "needs confirmation", "--yes")
	r.Unchanged(before)
	res = run(t, r, r.Root, append(args, "--yes")...)
	want(t, res, 0, "restored", "branch feat/cli", id)
	if got, _ := os.ReadFile(filepath.Join(dest, "notes.txt")); string(got) != "unsaved thoughts\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	res = run(t, r, r.Root, "restore", "--list")
	want(t, res, 0, "nothing to restore")
	res = run(t, r, r.Root, "restore")
	want(t, res, 1, "no removed worktree is recorded")
}

func TestRestoreCommandUsage(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	res := run(t, r, r.Root, "restore", "a", "b")
	want(t, res, 2, "at most one ID")
	res = run(t, r, r.Root, "restore", "--list", "abcd")
	want(t, res, 2, "list")
	res = run(t, r, r.Root, "restore", "not-an-id")
	want(t, res, 2, "not a restore id")
}

// toolApproved sends req as a host does: first without approval (needs_approval with a
// state_token), then approved with that token.
func toolApproved(t *testing.T, r *coretest.Repo, req string) result {
	t.Helper()
	res := runWith(t, r, r.Root, nil, strings.NewReader(req), "tool")
	var rep struct {
		Error struct {
			Code       string `json:"code"`
			StateToken string `json:"state_token"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || rep.Error.Code != "needs_approval" || rep.Error.StateToken == "" {
		t.Fatalf("want needs_approval with a state_token: %v\n%s", err, res)
	}
	approved := strings.TrimSuffix(req, "}") + `,"expected_state_token":"` + rep.Error.StateToken + `"}`
	return runWith(t, r, r.Root, nil, strings.NewReader(approved), "tool", "--approved")
}

// copse tool reaches restore through core.Decode: list is a plain request, a restore to
// a chosen path needs approval.
func TestRestoreThroughTool(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/tool", "tool")
	coretest.WriteFile(t, filepath.Join(wt, "f"), "x\n")
	res := toolApproved(t, r, `{"operation":"remove","path":"`+wt+`","force":true}`)
	want(t, res, 0, `"restore_id":"`)
	var rep struct {
		Result struct {
			RestoreID string `json:"restore_id"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || rep.Result.RestoreID == "" {
		t.Fatalf("%v\n%s", err, res)
	}
	id := rep.Result.RestoreID
	res = runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"restore","list":true}`), "tool")
	want(t, res, 0, `"removed":[{"id":"`+id)
	dest := filepath.Join(r.Base, "tool-back")
	before := r.Snapshot()
	res = runWith(t, r, r.Root, nil, strings.NewReader(`{"operation":"restore","id":"`+id+`","path":"`+dest+`"}`), "tool", "--approved")
	want(t, res, 2, "state_token_required")
	r.Unchanged(before)
	res = toolApproved(t, r, `{"operation":"restore","id":"`+id+`","path":"`+dest+`"}`)
	want(t, res, 0, `"restored":{"id":"`+id)
	if got, _ := os.ReadFile(filepath.Join(dest, "f")); string(got) != "x\n" {
		t.Fatalf("f = %q", got)
	}
}

func TestRestoreCompletesIDs(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat/comp", "comp")
	coretest.WriteFile(t, filepath.Join(wt, "f"), "x\n")
	res := run(t, r, r.Root, "remove", "--force", "--yes", wt)
	m := undoLine.FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("no restore id:\n%s", res)
	}
	res = run(t, r, r.Root, "__complete", "restore", "")
	want(t, res, 0, m[1]+"\tfeat/comp "+wt)
}
