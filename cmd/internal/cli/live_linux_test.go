//go:build linux

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
)

// list --json --status counts the processes working in each worktree, from one scan; copse
// itself (run inside feat) is not one of them. Plain list --json does not scan.
func TestListJSONCountsProcesses(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	busy := r.AddWorktree("busy", "busy")
	feat := r.AddWorktree("feat", "feat")
	coretest.StartLive(t, busy, "sleep", "300")
	coretest.StartLive(t, filepath.Join(busy), "sleep", "301")
	counts := func(args ...string) map[string]any {
		res := run(t, r, feat, args...)
		want(t, res, 0)
		var l struct {
			Worktrees []map[string]any `json:"worktrees"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &l); err != nil {
			t.Fatal(err, res)
		}
		out := map[string]any{}
		for _, w := range l.Worktrees {
			out[filepath.Base(w["path"].(string))] = w["processes"]
		}
		return out
	}
	if got := fmt.Sprint(counts("list", "--json", "--status")); got != fmt.Sprintf("map[%s:0 busy:2 feat:0]", filepath.Base(r.Root)) {
		t.Fatalf("processes per worktree: %s", got)
	}
	if got := fmt.Sprint(counts("list", "--json")); got != fmt.Sprintf("map[%s:<nil> busy:<nil> feat:<nil>]", filepath.Base(r.Root)) {
		t.Fatalf("plain list counted processes: %s", got)
	}
	// The text listing marks the busy row.
	res := run(t, r, feat, "list", "--status")
	want(t, res, 0)
	for _, l := range strings.Split(res.stdout, "\n") {
		if strings.Contains(l, "busy") != strings.Contains(l, "2 proc") {
			t.Fatalf("list --status:\n%s", res.stdout)
		}
	}
}

// copse remove refuses, with its code, while a process works in the worktree, and changes
// nothing.
func TestRemoveRefusesWhileAProcessWorksInIt(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	busy := r.AddWorktree("busy", "busy")
	pid := coretest.StartLive(t, busy, "sleep", "300")
	before := r.Snapshot()
	res := run(t, r, r.Root, "--json", "remove", "--yes", "busy")
	want(t, res, 1, "processes_running", fmt.Sprintf("pid %d sleep 300 in %s", pid, busy), "--force")
	r.Unchanged(before)
}

// The shell that runs copse from elsewhere is not a process working in the worktree, even
// holding a file of it open (as copse itself then does): the remove goes through.
func TestRemoveDoesNotCountTheShellThatRanCopse(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	wt := r.AddWorktree("feat", "feat")
	held := filepath.Join(wt, ".git") // a file of the worktree that no status counts
	c := exec.Command("sh", "-c", `exec 3<"$0"; "$1" remove --yes feat; echo "exit=$?"`, held, copseBin)
	c.Dir = r.Root
	c.Env = cleanEnv(r.Home)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "exit=0") {
		t.Fatalf("copse remove from a shell holding %s open: %v\n%s", held, err, out)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v\n%s", wt, err, out)
	}
}
